"""Browser pages. The annotator page is a thin shell over the same API the REST clients use."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render

from core.errors import NotFound
from core.permissions import Role, require_role, user_has_role

from . import selectors, services
from .forms import PostUploadForm
from .importers import ImportFailed, import_posts


@login_required
def home(request):
    if user_has_role(request.user, Role.RESEARCHER):
        return redirect("review:agreement")
    if user_has_role(request.user, Role.ADJUDICATOR):
        return redirect("review:adjudication")
    if user_has_role(request.user, Role.ANNOTATOR):
        return redirect("annotation:queue")
    return render(request, "annotation/home.html")


@login_required
def queue(request):
    require_role(request, Role.ANNOTATOR)
    batches = [
        {"batch": b, "progress": selectors.batch_progress(annotator=request.user, batch=b)}
        for b in selectors.batches_for_annotator(request.user)
    ]
    return render(request, "annotation/queue.html", {"batches": batches})


@login_required
def annotate(request, batch_id: int):
    require_role(request, Role.ANNOTATOR)
    try:
        batch = services.batch_for_annotator(request.user, batch_id)
    except NotFound:
        raise Http404("No such batch in your queue.")
    guideline = services.guideline_current()
    return render(request, "annotation/annotate.html", {"batch": batch, "guideline": guideline})


@login_required
def upload(request):
    require_role(request, Role.RESEARCHER)
    problems = []
    form = PostUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload_file = form.cleaned_data["file"]
        try:
            result = import_posts(upload_file.read(), filename=upload_file.name,
                                  with_labels=form.cleaned_data["with_labels"],
                                  batch_name=form.cleaned_data["batch"] or None)
        except ImportFailed as exc:
            problems = exc.problems
            messages.error(request, f"Nothing was imported: {len(problems)} problem(s) to fix first.")
        else:
            messages.success(request, f"Imported {result.created} posts ({result.encoding}); "
                                      f"{result.labelled} with final labels.")
            return redirect("annotation:upload")
    return render(request, "annotation/upload.html", {"form": form, "problems": problems[:500],
                                                      "more_problems": max(0, len(problems) - 500)})
