"""Annotators' feedback on locked batches, and plotly.js served from the Python package.
(Adjudication, agreement and releases have their own views in their packages.)"""
from __future__ import annotations

from functools import lru_cache

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control

from core.permissions import Role, require_role

from .models import DIMENSIONS, Batch, FinalLabel, Judgment


@lru_cache(maxsize=1)
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


@cache_control(max_age=86400, public=True)
def plotly_js(request):
    """plotly.js as shipped inside the plotly Python package: no CDN."""
    return HttpResponse(_plotly_js(), content_type="application/javascript")


@login_required
def feedback(request, batch_id: int):
    """After a batch locks, annotators see the final labels of their own items beside their judgments."""
    require_role(request, Role.ANNOTATOR)
    batch = Batch.objects.filter(pk=batch_id, locked_at__isnull=False).first()
    if batch is None:
        raise Http404("Feedback is available once the batch is locked.")
    judgments = Judgment.objects.filter(annotator=request.user, post__batch=batch).select_related("post").order_by("post_id")
    labels = {fl.post_id: fl for fl in FinalLabel.objects.filter(post__in=[j.post_id for j in judgments])}
    rows = [{"judgment": j, "label": labels.get(j.post_id)} for j in judgments]
    return render(request, "annotation/feedback.html", {"batch": batch, "rows": rows, "dims": DIMENSIONS})
