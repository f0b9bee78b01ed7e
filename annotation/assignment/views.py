"""Annotators' pages: their queue of batches, the annotator page (a thin shell over the API), and
feedback once a batch is locked."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import NotFound
from core.permissions import Role, require_role
from wellbeing import selectors as wellbeing

from ..models import DIMENSIONS
from ..quality.selectors import qualification_state
from ..selectors import guideline_current
from . import selectors


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
        batch = selectors.batch_for_annotator(request.user, batch_id)
    except NotFound:
        raise Http404(_("No such batch in your queue."))
    if wellbeing.notice_pending(annotator=request.user, batch_id=batch.pk):
        return redirect("wellbeing:notice", batch.pk)  # the batch's content notice, accepted once, first
    if not qualification_state(annotator=request.user, batch=batch).queue_open:
        return redirect("annotation:qualification", batch.pk)  # the batch starts with a qualification round
    return render(request, "annotation/annotate.html", {"batch": batch, "guideline": guideline_current(),
                                                        "pacing": wellbeing.pacing(batch.pk)})


@login_required
def feedback(request, batch_id: int):
    """After a batch locks, annotators see the final labels of their own items beside their judgments."""
    require_role(request, Role.ANNOTATOR)
    found = selectors.locked_batch_feedback(annotator=request.user, batch_id=batch_id)
    if found is None:
        raise Http404(_("Feedback is available once the batch is locked."))
    batch, rows = found
    return render(request, "annotation/feedback.html", {"batch": batch, "rows": rows, "dims": DIMENSIONS})
