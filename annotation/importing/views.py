"""The researchers' upload page for post files."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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
