"""Researchers launch, watch, cancel and re-run LLM baseline runs from the admin, and keep versioned
prompt templates (a used version is frozen: a change becomes the next version)."""
from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.visibility import VisibleRowsAdmin
from core.errors import DomainError

from .forms import LaunchForm
from .models import LLMAnswer, LLMRun, PromptTemplate


def launch_view(model_admin, request):
    """GET: the form. POST "estimate": the same form with the estimate and where the posts would go.
    POST "launch": the run (the service validates again: allowlist, key variable, release split)."""
    from . import services

    initial = {"release": request.GET.get("release")}
    form = LaunchForm(request.POST or None, initial=initial)
    estimate = None
    if request.method == "POST" and form.is_valid():
        arguments = form.launch_arguments()
        try:
            if request.POST.get("action") == "launch":
                run = services.llm_run_launch(created_by=request.user, **arguments)
            else:
                estimate = services.llm_run_estimate(**arguments)
                run = None
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            if run is not None:
                model_admin.message_user(request, _("LLM run %(id)s launched.") % {"id": run.pk}, messages.SUCCESS)
                return redirect("llm:run", run.pk)
    context = {**model_admin.admin_site.each_context(request), "form": form, "estimate": estimate,
               "allowlist": settings.LLM_ENDPOINT_ALLOWLIST, "title": _("Launch an LLM baseline"),
               "opts": model_admin.model._meta}
    return TemplateResponse(request, "llm/admin_launch.html", context)


@admin.register(LLMRun)
class LLMRunAdmin(admin.ModelAdmin):
    list_display = ("id", "model_name", "shots", "runs", "release", "status", "progress", "unparsed", "created_by",
                    "created_at")
    list_filter = ("status", "shots", "backend")
    search_fields = ("model_name", "endpoint")
    readonly_fields = [f.name for f in LLMRun._meta.fields]
    actions = ["cancel", "rerun", "compare"]

    def get_urls(self):
        return [path("launch/", self.admin_site.admin_view(lambda r: launch_view(self, r)), name="llm_launch"),
                *super().get_urls()]

    def add_view(self, request, form_url="", extra_context=None):
        return redirect("admin:llm_launch")

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        """A run is the record of what was sent where; and its deletion page would list its answers by
        post key, those of posts hidden from the viewer included (tests/security)."""
        return False

    @admin.display(description=gettext_lazy("progress"))
    def progress(self, obj):
        return format_html('<a href="{}">{}% {}</a>', reverse("llm:run", args=[obj.pk]), obj.percent, obj.stage_display)

    @admin.action(description=gettext_lazy("Cancel selected LLM runs"))
    def cancel(self, request, queryset):
        from . import services

        for run in queryset:
            try:
                services.llm_run_cancel(run_id=run.pk)
            except DomainError as exc:
                self.message_user(request, str(exc), messages.WARNING)

    @admin.action(description=gettext_lazy("Re-run selected LLM runs (the cache answers what was already paid for)"))
    def rerun(self, request, queryset):
        from . import services

        for run in queryset:
            try:
                services.llm_run_rerun(run_id=run.pk, created_by=request.user)
            except DomainError as exc:
                self.message_user(request, str(exc), messages.ERROR)

    @admin.action(description=gettext_lazy("Compare with MAAM (Table 3 layout)"))
    def compare(self, request, queryset):
        release = queryset.values_list("release__number", flat=True).first()
        return redirect(reverse("llm:results") + (f"?release={release}" if release else ""))


@admin.register(PromptTemplate)
class PromptTemplateAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "description", "created_by", "created_at")
    search_fields = ("name", "description")
    fields = ("name", "text", "description")

    def get_readonly_fields(self, request, obj=None):
        return ("name", "text") if obj is not None and obj.is_used else ()

    def save_model(self, request, obj, form, change):
        """A new template, or a change to one: always the next version of its name (templates_add), so
        what a run sent stays on record exactly."""
        from . import services

        try:
            saved = services.template_add(name=obj.name, text=obj.text, description=obj.description,
                                          created_by=request.user)
        except DomainError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return
        obj.pk, obj.version = saved.pk, saved.version
        self.message_user(request, _("Saved as %(template)s.") % {"template": saved}, messages.SUCCESS)

    def has_delete_permission(self, request, obj=None):
        return obj is None or not obj.is_used


@admin.register(LLMAnswer)
class LLMAnswerAdmin(VisibleRowsAdmin):
    """Raw answers, for audit: researchers only, and never an answer about a post hidden from the viewer."""

    list_display = ("run", "run_index", "post_key", "parsed", "explicit", "implicit", "emotional", "from_cache")
    list_filter = ("parsed", "from_cache")
    list_select_related = ("run",)
    readonly_fields = [f.name for f in LLMAnswer._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
