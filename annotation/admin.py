from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .models import (
    AgreementReport,
    AnnotatorProfile,
    Assignment,
    Batch,
    FinalLabel,
    Guideline,
    Judgment,
    JudgmentRevision,
    Post,
    WorkbenchSettings,
)
from .releases import admin as releases_admin  # noqa: F401  (registers ReleaseAdmin)
from .quality import admin as quality_admin  # noqa: F401  (registers gold, qualification, aggregation)
from .visibility import VisibleRowsAdmin


@admin.register(Post)
class PostAdmin(VisibleRowsAdmin):
    visibility_post_field = "pk"  # its C-I-S tags are labels too
    list_display = ("id", "external_id", "short_text", "batch", "tone", "identity", "stance")
    list_filter = ("batch",)
    search_fields = ("text", "external_id")
    readonly_fields = ("text_sha256", "raw_text", "created_at")

    def get_fields(self, request, obj=None):
        """The raw text keeps the personal data the text has masked: researchers only (issue 21)."""
        from core.permissions import Role, user_has_role

        fields = super().get_fields(request, obj)
        return fields if user_has_role(request.user, Role.RESEARCHER) else [f for f in fields if f != "raw_text"]

    def get_queryset(self, request):
        from .visibility import posts_listed_to

        return posts_listed_to(request.user, super().get_queryset(request))  # "no batch" is not the gold list

    @admin.display(description=_("text"))
    def short_text(self, obj):
        return obj.text[:60]


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    list_display = ("name", "annotators_per_post", "posts", "judgments", "progress", "personal_data", "locked_at",
                    "created_at")
    filter_horizontal = ("annotators",)
    actions = ["lock"]

    def get_queryset(self, request):
        from django.db.models import Count, OuterRef, Q, Subquery
        from django.db.models.functions import Coalesce

        from .visibility.withdrawn import in_queues

        def counted(rows, group: str):
            return Coalesce(Subquery(rows.order_by().values(group).annotate(n=Count("pk")).values("n")), 0)

        # The progress column counts as the annotators' progress does (rule 4 of the visibility policy,
        # visibility/withdrawn.py): a taken-down post is no pending work, its judgments stay done.
        return super().get_queryset(request).annotate(
            n_posts=Count("posts", distinct=True),
            n_judgments=Count("posts__judgments", filter=Q(posts__judgments__gold=False), distinct=True),
            n_queue_posts=counted(in_queues(Post.objects.filter(batch=OuterRef("pk")), post_field="pk"), "batch"),
            n_queue_judgments=counted(in_queues(Judgment.objects.filter(post__batch=OuterRef("pk"), gold=False)),
                                      "post__batch"))

    @admin.display(description=_("posts"), ordering="n_posts")
    def posts(self, obj):
        return obj.n_posts

    @admin.display(description=_("judgments"), ordering="n_judgments")
    def judgments(self, obj):
        return obj.n_judgments

    @admin.display(description=_("progress"))
    def progress(self, obj):
        """Judgments given / wanted: k per post still in the queues, and for a taken-down post the
        judgments it had (withdrawn.py: done, never pending)."""
        wanted = obj.n_queue_posts * obj.annotators_per_post + (obj.n_judgments - obj.n_queue_judgments)
        return f"{100 * obj.n_judgments / wanted:.0f}%" if wanted else "–"

    @admin.display(description=_("personal data"))
    def personal_data(self, obj):
        from django.urls import reverse
        from django.utils.html import format_html

        return format_html('<a href="{}">{}</a>', reverse("personal_data:batch", args=[obj.pk]), _("report"))

    @admin.action(description=_("Lock selected batches (judgments become final)"))
    def lock(self, request, queryset):
        from .assignment.services import batch_lock

        for batch in queryset:
            batch_lock(batch_id=batch.id, locked_by=request.user)


class RevisionInline(admin.TabularInline):
    model = JudgmentRevision
    extra = 0
    readonly_fields = ("changed_by", "changed_at", "old", "new", "guideline")
    can_delete = False


@admin.register(Judgment)
class JudgmentAdmin(VisibleRowsAdmin):
    visibility_gold_field = "gold"
    list_display = ("id", "post", "annotator", "explicit", "implicit", "emotional", "flagged", "updated_at")
    list_filter = ("flagged", "post__batch")
    list_select_related = ("post", "annotator")
    inlines = [RevisionInline]
    readonly_fields = ("created_at", "updated_at")


@admin.register(FinalLabel)
class FinalLabelAdmin(VisibleRowsAdmin):
    list_display = ("post", "explicit", "implicit", "emotional", "provenance", "adjudicator", "updated_at")
    list_filter = ("provenance",)
    list_select_related = ("post", "adjudicator")


admin.site.register(Guideline)
admin.site.register(AnnotatorProfile)


@admin.register(Assignment)
class AssignmentAdmin(VisibleRowsAdmin):
    list_display = ("id", "post", "annotator", "status", "gold_batch", "assigned_at", "completed_at")
    list_select_related = ("post", "annotator", "gold_batch")
    visibility_gold_field = "gold_batch"


admin.site.register(WorkbenchSettings)
admin.site.register(AgreementReport)
