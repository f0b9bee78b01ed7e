"""Browser pages. The annotator page is a thin shell over the same API the REST clients use."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render

from core.errors import NotFound
from core.permissions import Role, require_role, user_has_role

from . import selectors, services


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
