"""The researchers' upload page for post files."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from core.permissions import Role, require_role

from .forms import PostUploadForm
from .services import ImportFailed, import_posts

PROBLEMS_SHOWN = 500


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
    return render(request, "annotation/upload.html", {"form": form, "problems": problems[:PROBLEMS_SHOWN],
                                                      "more_problems": max(0, len(problems) - PROBLEMS_SHOWN)})
