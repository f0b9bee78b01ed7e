"""Quality control in the admin: gold items, each batch's gold rate and qualification set,
qualification attempts (read-only, with a reset action) and aggregation runs (read-only)."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError

from ..models import DIMENSIONS, AggregationRun, BatchQuality, GoldItem, QualificationAnswer, QualificationAttempt
from ..visibility import GoldAdmin
from .services import _ensure_not_in_open_batch, gold_set_active, qualification_items_check, qualification_reset


class GoldItemForm(forms.ModelForm):
    """A post of an open batch never becomes gold (services._ensure_not_in_open_batch): it would be
    served there as an ordinary post too."""

    class Meta:
        model = GoldItem
        fields = "__all__"

    def clean(self):
        data = super().clean()
        post = data.get("post")
        if post is not None:
            try:
                _ensure_not_in_open_batch([post])
            except DomainError as exc:
                self.add_error("post", str(exc))
        return data


@admin.register(GoldItem)
class GoldItemAdmin(GoldAdmin):
    form = GoldItemForm
    list_display = ("post", "explicit", "implicit", "emotional", "source", "release", "active", "qualification_used",
                    "created_at")
    list_filter = ("source", "active", "qualification_used")
    list_select_related = ("post", "release")
    search_fields = ("post__text", "post__external_id")
    raw_id_fields = ("post", "release")
    readonly_fields = ("qualification_used", "created_by", "created_at")
    actions = ["retire", "restore"]

    @admin.action(description=_("Retire: no longer mix into queues"))
    def retire(self, request, queryset):
        gold_set_active(post_ids=list(queryset.values_list("post_id", flat=True)), active=False, by=request.user)

    @admin.action(description=_("Mix into queues again"))
    def restore(self, request, queryset):
        gold_set_active(post_ids=list(queryset.values_list("post_id", flat=True)), active=True, by=request.user)


class BatchQualityForm(forms.ModelForm):
    """The rules of services.batch_quality_set: a required round needs its set, a pass threshold is a
    mean absolute error from 0 to 4 (the gold rate's range is a database constraint)."""

    class Meta:
        model = BatchQuality
        fields = "__all__"

    def clean(self):
        data = super().clean()
        for d in DIMENSIONS:
            value = data.get(f"pass_max_mae_{d}")
            if value is not None and not 0 <= value <= 4:
                self.add_error(f"pass_max_mae_{d}", _("A mean absolute error from 0 to 4."))
        items = data.get("qualification_items")
        if items is not None:
            try:
                qualification_items_check(quality=self.instance, items=list(items))
            except DomainError as exc:
                self.add_error("qualification_items", str(exc))
        if data.get("qualification_required") and not data.get("qualification_items"):
            self.add_error("qualification_items",
                           _("A qualification round needs a qualification set: choose its gold items first."))
        return data


@admin.register(BatchQuality)
class BatchQualityAdmin(GoldAdmin):
    form = BatchQualityForm
    list_display = ("batch", "gold_rate", "qualification_required", "pass_max_mae_explicit", "pass_max_mae_implicit",
                    "pass_max_mae_emotional")
    filter_horizontal = ("qualification_items",)


class AnswerInline(admin.TabularInline):
    model = QualificationAnswer
    extra = 0
    can_delete = False
    readonly_fields = ("gold_item", "explicit", "implicit", "emotional", "gold")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(QualificationAttempt)
class QualificationAttemptAdmin(GoldAdmin):
    """Every attempt is kept: read-only, never deleted; a failed one can be reset."""

    list_display = ("annotator", "batch", "number", "passed", "submitted_at", "reset_at", "reset_by")
    list_filter = ("passed", "batch")
    inlines = [AnswerInline]
    actions = ["reset"]

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in QualificationAttempt._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description=_("Reset: allow another attempt"))
    def reset(self, request, queryset):
        for attempt in queryset:
            try:
                qualification_reset(batch_id=attempt.batch_id, annotator_id=attempt.annotator_id, reset_by=request.user)
            except DomainError as exc:
                self.message_user(request, f"{attempt.annotator} #{attempt.number}: {exc}", level="warning")


@admin.register(AggregationRun)
class AggregationRunAdmin(admin.ModelAdmin):
    list_display = ("id", "status", "created_at", "finished_at", "requested_by")
    readonly_fields = [f.name for f in AggregationRun._meta.fields]

    def has_add_permission(self, request):
        return False
