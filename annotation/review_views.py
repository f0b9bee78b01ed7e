"""Pages for adjudicators and researchers: adjudication, consistency checks, agreement, releases,
and annotators' feedback on locked batches."""
from __future__ import annotations

import copy
import json
from functools import lru_cache

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_POST

from core.converters import parse_id
from core.errors import Conflict, DomainError, NotFound
from core.permissions import Role, require_role
from core.predictions import latest_prediction

from . import adjudication
from .agreement import agreement_report_cached
from .models import DIMENSIONS, AgreementReport, Batch, FinalLabel, Judgment, WorkbenchSettings
from .tasks import agreement_bootstrap_task


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
        name = j.annotator.username if show_names else (profile.pseudonym if profile else f"A-{j.annotator_id}")
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


def _figures(report: dict) -> dict:
    """Plotly figure specs (JSON) for the agreement dashboard."""
    import plotly.graph_objects as go

    dims = list(report["dimensions"])
    figs = {}
    bar = go.Figure()
    for level in ("ordinal", "interval", "nominal"):
        values = [report["dimensions"][d]["alpha"][level] for d in dims]
        error = None
        if level == "ordinal" and all("interval" in report["dimensions"][d] for d in dims):
            intervals = [report["dimensions"][d]["interval"][level] for d in dims]
            if all(intervals) and all(v is not None for v in values):
                error = dict(type="data", symmetric=False, array=[hi - v for (lo, hi), v in zip(intervals, values)],
                             arrayminus=[v - lo for (lo, hi), v in zip(intervals, values)])
        bar.add_bar(name=level, x=dims, y=values, error_y=error)
    bar.update_layout(title="Krippendorff's alpha per dimension", yaxis_range=[0, 1], barmode="group", height=360)
    figs["alpha"] = bar
    names = report["raters"]
    for d in dims:
        pairs = report["dimensions"][d]["pairs"]
        figs[f"pairs_{d}"] = go.Figure(go.Heatmap(z=pairs, x=names, y=names, zmin=0, zmax=1, colorscale="Viridis",
                                                  hovertemplate="%{y} × %{x}: α=%{z:.3f}<extra></extra>"))
        figs[f"pairs_{d}"].update_layout(title=f"Pairwise ordinal α — {d}", height=360)
    sev = go.Figure()
    for d in dims:
        s = report["dimensions"][d]["severity"]
        sev.add_bar(name=d, x=list(s), y=list(s.values()))
    sev.update_layout(title="Rater severity (mean offset from the others)", barmode="group", height=360)
    figs["severity"] = sev
    dist = go.Figure()
    for d in dims:
        dist.add_bar(name=d, x=[1, 2, 3, 4, 5], y=report["dimensions"][d]["distribution"])
    dist.update_layout(title="Score distribution (all judgments)", barmode="group", height=360)
    figs["distribution"] = dist
    if report.get("trend"):
        trend = go.Figure()
        for d in dims:
            trend.add_scatter(name=d, x=[t["batch"] for t in report["trend"]], y=[t[d] for t in report["trend"]],
                              mode="lines+markers")
        trend.update_layout(title="Ordinal α as batches complete (cumulative)", height=360, yaxis_range=[0, 1])
        figs["trend"] = trend
    return {k: json.loads(f.to_json()) for k, f in figs.items()}


@login_required
def agreement_dashboard(request):
    require_role(request, Role.RESEARCHER)
    cached = AgreementReport.objects.filter(status=AgreementReport.Status.SUCCEEDED).first()
    pending = AgreementReport.objects.filter(status__in=[AgreementReport.Status.QUEUED, AgreementReport.Status.RUNNING]).first()
    report = copy.deepcopy(agreement_report_cached())
    if cached and cached.payload:
        for d in DIMENSIONS:
            if "interval" in cached.payload["dimensions"].get(d, {}):
                report["dimensions"][d]["interval"] = cached.payload["dimensions"][d]["interval"]
    return render(request, "annotation/agreement.html", {
        "report": report, "figures": _figures(report), "cached": cached, "pending": pending, "dims": DIMENSIONS})


@login_required
@require_POST
def agreement_bootstrap(request):
    require_role(request, Role.RESEARCHER)
    resamples = min(max(parse_id(request.POST.get("bootstrap")) or 1000, 20), 5000)
    report = AgreementReport.objects.create(bootstrap=resamples)
    try:
        transaction.on_commit(lambda: agreement_bootstrap_task.delay(report.pk))
    except Exception as exc:  # broker down
        report.status = AgreementReport.Status.FAILED
        report.error = f"The task queue is unavailable: {exc}"
        report.save(update_fields=["status", "error"])
        messages.error(request, "The task queue is unavailable; try again when Redis is back.")
    else:
        messages.success(request, "Bootstrap intervals are being computed; reload in a moment.")
    return redirect("review:agreement")


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
