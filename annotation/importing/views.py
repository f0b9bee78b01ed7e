"""The researchers' upload page for post files."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.permissions import Role, require_role

from .background import post_import_queue, runs_in_background
from .forms import PostUploadForm
from .models import PostImport
from .services import ImportFailed, ImportResult, import_posts

PROBLEMS_SHOWN = 500


@login_required
def upload(request):
    require_role(request, Role.RESEARCHER)
    problems = []
    form = PostUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload_file = form.cleaned_data["file"]
        if runs_in_background(upload_file.size):  # masking would keep the request waiting: a task does it
            job = post_import_queue(data=upload_file.read(), filename=upload_file.name,
                                    with_labels=form.cleaned_data["with_labels"],
                                    batch_name=form.cleaned_data["batch"] or None, as_work=form.cleaned_data["as_work"],
                                    user=request.user)
            return redirect("annotation:upload-job", job_id=job.pk)
        try:
            result = import_posts(upload_file.read(), filename=upload_file.name,
                                  with_labels=form.cleaned_data["with_labels"],
                                  batch_name=form.cleaned_data["batch"] or None,
                                  as_work=form.cleaned_data["as_work"])
        except ImportFailed as exc:
            problems = exc.problems
            messages.error(request, ngettext("Nothing was imported: %(n)s problem to fix first.",
                                             "Nothing was imported: %(n)s problems to fix first.", len(problems))
                           % {"n": len(problems)})
        else:
            messages.success(request, _("Imported %(created)s posts (%(encoding)s); %(labelled)s with final labels.")
                             % {"created": result.created, "encoding": result.encoding, "labelled": result.labelled})
            messages.info(request, result.personal_data_line())
            for row in result.skipped[:PROBLEMS_SHOWN]:
                messages.warning(request, str(row))
            return redirect("annotation:upload")
    return render(request, "annotation/upload.html", {"form": form, "problems": problems[:PROBLEMS_SHOWN],
                                                      "more_problems": max(0, len(problems) - PROBLEMS_SHOWN)})


@login_required
def upload_job(request, job_id: int):
    """A background import: its progress bar while it runs, then what it reported."""
    require_role(request, Role.RESEARCHER)
    job = get_object_or_404(PostImport.objects.defer("data"), pk=job_id)
    result = job.result or {}
    summary = None
    if job.status == PostImport.Status.SUCCEEDED:
        summary = ImportResult(created=result.get("created", 0), labelled=result.get("labelled", 0),
                               batch=result.get("batch"), encoding=result.get("encoding", ""),
                               personal_data=result.get("personal_data", {}),
                               posts_with_personal_data=result.get("posts_with_personal_data", 0))
    return render(request, "annotation/upload_job.html", {
        "job": job, "summary": summary, "problems": result.get("problems", []),
        "more_problems": max(0, result.get("problem_count", 0) - len(result.get("problems", []))),
        "skipped": result.get("skipped", [])})


@login_required
def upload_job_status(request, job_id: int):
    require_role(request, Role.RESEARCHER)
    job = get_object_or_404(PostImport.objects.defer("data"), pk=job_id)
    return JsonResponse({"status": job.status, "status_display": job.get_status_display(),
                         "stage_display": job.stage_display, "percent": job.percent,
                         "progress_current": job.progress_current, "progress_total": job.progress_total,
                         "finished": job.is_finished})
