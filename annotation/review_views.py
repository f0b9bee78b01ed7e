"""Pages for adjudicators: adjudication and consistency checks; annotators' feedback on locked
batches; plotly.js served from the Python package. (Agreement and releases have their own
views in annotation/agreement/ and annotation/releases/.)"""
from __future__ import annotations

from functools import lru_cache

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import cache_control

from core.converters import parse_id
from core.errors import Conflict, DomainError, NotFound
from core.permissions import Role, require_role
from core.predictions import latest_prediction

from . import adjudication
from .models import DIMENSIONS, Batch, FinalLabel, Judgment, WorkbenchSettings
from .selectors import pseudonym_fallback


@lru_cache(maxsize=1)
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


@cache_control(max_age=86400, public=True)
def plotly_js(request):
    """plotly.js as shipped inside the plotly Python package: no CDN."""
    return HttpResponse(_plotly_js(), content_type="application/javascript")


@login_required
def adjudication_queue(request):
    require_role(request, Role.ADJUDICATOR, Role.RESEARCHER)
    posts = list(adjudication.adjudication_queue()[:200])
    return render(request, "annotation/adjudication_queue.html", {"posts": posts, "dims": DIMENSIONS})


@login_required
def adjudicate(request, post_id: int):
    require_role(request, Role.ADJUDICATOR, Role.RESEARCHER)
    try:
        summary = adjudication.post_summary(post_id=post_id)
    except NotFound:
        raise Http404("No such post.")
    conflict = None
    if request.method == "POST":
        try:
            scores = {d: int(request.POST.get(d, "")) for d in DIMENSIONS}
        except ValueError:
            messages.error(request, "Every dimension needs a score from 1 to 5.")
        else:
            try:
                with transaction.atomic():
                    adjudication.post_adjudicate(adjudicator=request.user, post_id=post_id, scores=scores,
                                                 rationale=request.POST.get("rationale", ""),
                                                 expected_version=parse_id(request.POST.get("version")) or 0)
                    adjudication.post_set_context(post_id=post_id, tone=request.POST.get("tone", ""),
                                                  identity=request.POST.get("identity", ""),
                                                  stance=request.POST.get("stance", ""))
            except Conflict as exc:
                conflict = str(exc)
                summary = adjudication.post_summary(post_id=post_id)
            except DomainError as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, f"Post #{post_id} adjudicated.")
                nxt = adjudication.adjudication_queue().exclude(pk=post_id).first()
                return redirect("review:adjudicate", nxt.pk) if nxt else redirect("review:adjudication")
    show_names = WorkbenchSettings.current().show_annotator_names_to_adjudicators
    rows = []
    for j in summary.judgments:
        profile = getattr(j.annotator, "annotator_profile", None)
        name = j.annotator.username if show_names else (profile.pseudonym if profile else pseudonym_fallback(j.annotator_id))
        rows.append({"name": name, "judgment": j})
    label = summary.label
    version = label.version if label and label.provenance != "auto" else 0
    initial = label.scores() if label and label.provenance != "auto" else summary.means
    return render(request, "annotation/adjudicate.html", {
        "post": summary.post, "rows": rows, "means": summary.means, "label": label, "version": version,
        "initial": initial, "dims": DIMENSIONS, "conflict": conflict, "context_choices": _context_choices(summary.post),
        "prediction": latest_prediction(post_id=post_id),
    })


def _context_choices(post) -> list[dict]:
    from .models import Identity, Stance, Tone

    return [{"name": name, "label": label, "choices": choices.values, "value": getattr(post, name)}
            for name, label, choices in (("tone", "Tone (C)", Tone), ("identity", "Identity (I)", Identity),
                                         ("stance", "Stance (S)", Stance))]


@login_required
def consistency(request):
    require_role(request, Role.ADJUDICATOR, Role.RESEARCHER)
    return render(request, "annotation/consistency.html", {"rows": adjudication.consistency_warnings()[:500]})


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
