"""Researchers launch, watch, cancel and re-run MAAM runs and scoring jobs from the admin."""
from __future__ import annotations

from django.contrib import admin, messages
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from annotation.visibility import VisibleRowsAdmin
from annotation.releases.admin import release_admin_action
from core.errors import DomainError

from . import services
from .forms import LaunchForm, ScoreForm
from .models import LexiconTerm, Prediction, ScoringJob, TrainingRun


@admin.register(LexiconTerm)
class LexiconTermAdmin(admin.ModelAdmin):
    list_display = ("term", "kind", "active", "note", "updated_at")
    list_filter = ("kind", "active")
    list_editable = ("kind", "active")
    search_fields = ("term",)


def launch_view(model_admin, request):
    form = LaunchForm(request.POST or None, initial={"release": request.GET.get("release")})
    if request.method == "POST" and form.is_valid():
        c = form.cleaned_data
        try:
            runs = services.training_run_launch(
                created_by=request.user, release_id=c["release"].pk if c["release"] else None,
                dimensions=c["dimensions"], variants=c["variants"], seeds=c["seeds"], backbone=c["backbone"].strip(),
                hyperparameters=form.hyperparameters(), device=c["device"], preset=c["preset"],
                final_fit_all=c["final_fit_all"], include_provisional=c["include_provisional"])
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            model_admin.message_user(request, ngettext("Launched %(n)s run.", "Launched %(n)s runs.", len(runs))
                                     % {"n": len(runs)}, messages.SUCCESS)
            return redirect(reverse("modeling:runs") + f"?group={runs[0].launch_group}")
    context = {**model_admin.admin_site.each_context(request), "form": form, "title": _("Launch MAAM training"),
               "opts": model_admin.model._meta}
    return TemplateResponse(request, "modeling/admin_launch.html", context)


@admin.register(TrainingRun)
class TrainingRunAdmin(admin.ModelAdmin):
    list_display = ("id", "variant", "seed", "backbone", "status", "progress", "release", "created_by", "created_at")
    list_filter = ("status", "variant", "backbone")
    readonly_fields = [f.name for f in TrainingRun._meta.fields]
    actions = ["cancel", "rerun", "score_all", "compare"]

    def get_urls(self):
        return [path("launch/", self.admin_site.admin_view(lambda r: launch_view(self, r)), name="modeling_launch"),
                path("<int:run_id>/score/", self.admin_site.admin_view(self.score_view), name="modeling_score"),
                *super().get_urls()]

    def add_view(self, request, form_url="", extra_context=None):
        return redirect("admin:modeling_launch")

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("progress"))
    def progress(self, obj):
        return format_html('<a href="{}">{}% {}</a>', reverse("modeling:run", args=[obj.pk]), obj.percent, obj.stage_display)

    @admin.action(description=gettext_lazy("Cancel selected runs"))
    def cancel(self, request, queryset):
        for run in queryset:
            try:
                services.training_run_cancel(run_id=run.pk)
            except DomainError as exc:
                self.message_user(request, str(exc), messages.WARNING)

    @admin.action(description=gettext_lazy("Re-run selected runs"))
    def rerun(self, request, queryset):
        try:
            for run in queryset:
                services.training_run_rerun(run_id=run.pk, created_by=request.user)
        except DomainError as exc:
            self.message_user(request, str(exc), messages.ERROR)

    @admin.action(description=gettext_lazy("Score all posts with the selected run"))
    def score_all(self, request, queryset):
        for run in queryset:
            try:
                services.scoring_job_launch(created_by=request.user, run_id=run.pk)
            except DomainError as exc:
                self.message_user(request, str(exc), messages.ERROR)
            else:
                self.message_user(request, _("Scoring with run %(id)s launched.") % {"id": run.pk}, messages.SUCCESS)

    @admin.action(description=gettext_lazy("Compare selected runs (Table 2 layout)"))
    def compare(self, request, queryset):
        ids = ",".join(str(pk) for pk in queryset.values_list("pk", flat=True))
        return redirect(reverse("modeling:compare") + f"?ids={ids}")

    def score_view(self, request, run_id: int):
        form = ScoreForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            c = form.cleaned_data
            upload = c["file"]
            try:
                job = services.scoring_job_launch(created_by=request.user, run_id=run_id, scope=c["scope"],
                                                  release_id=c["release"].pk if c["release"] else None,
                                                  upload=upload.read() if upload else None,
                                                  upload_name=upload.name if upload else "")
            except DomainError as exc:
                form.add_error(None, str(exc))
            else:
                self.message_user(request, _("Scoring job %(id)s launched.") % {"id": job.pk}, messages.SUCCESS)
                return redirect("admin:modeling_scoringjob_changelist")
        context = {**self.admin_site.each_context(request), "form": form, "title": _("Score with run %(id)s") % {"id": run_id},
                   "opts": self.model._meta}
        return TemplateResponse(request, "modeling/admin_launch.html", context)


@admin.register(ScoringJob)
class ScoringJobAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "scope", "status", "scored", "created_at", "finished_at")
    readonly_fields = [f.name for f in ScoringJob._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Prediction)
class PredictionAdmin(VisibleRowsAdmin):
    list_display = ("post", "run", "explicit", "implicit", "emotional", "created_at")
    list_select_related = ("post", "run")
    readonly_fields = [f.name for f in Prediction._meta.fields]


@release_admin_action
@admin.action(description=gettext_lazy("Launch the MAAM ablation on this release (4 variants × 5 seeds)"))
def launch_ablation(model_admin, request, queryset):
    for release in queryset:
        try:
            runs = services.training_run_launch(created_by=request.user, release_id=release.pk,
                                                dimensions=["explicit", "implicit", "emotional"],
                                                variants=["baseline", "astigmatism", "myopia", "full"],
                                                seeds=[0, 1, 2, 3, 4])
        except DomainError as exc:
            model_admin.message_user(request, str(exc), messages.ERROR)
        else:
            model_admin.message_user(request, _("Launched %(n)s runs on release %(number)s.")
                                     % {"n": len(runs), "number": release.number}, messages.SUCCESS)
