"""Researchers' pages for LLM baselines: the run list with live progress, a run's page (settings,
progress, heartbeat, cancel, re-run, scores, the rater switches), its raw answers for audit, the
results in the paper's Table 3 and few-shot layouts beside MAAM, and a run's agreement as a rater."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation.models import Release
from annotation.visibility import visible_to
from core.converters import parse_id
from core.errors import DomainError
from core.permissions import Role, require_role

from . import rater, results
from .models import LLMAnswer, LLMRun, LLMRunScore

ANSWERS_PAGE = 100


def _run_or_404(run_id: int) -> LLMRun:
    run = LLMRun.objects.filter(pk=run_id).select_related("release", "template", "created_by").first()
    if run is None:
        raise Http404(_("No such LLM run."))
    return run


@login_required
def runs(request):
    require_role(request, Role.RESEARCHER)
    qs = LLMRun.objects.select_related("release", "template")[:200]
    return render(request, "llm/runs.html", {"runs": qs})


@login_required
def run_status(request, llm_run_id: int):
    """What the progress bars poll: status, stage, progress, heartbeat and the counters (no post, no answer)."""
    require_role(request, Role.RESEARCHER)
    run = _run_or_404(llm_run_id)
    return JsonResponse({
        "id": run.pk, "status": run.status, "status_display": run.get_status_display(), "stage": run.stage,
        "stage_display": run.stage_display, "percent": run.percent, "progress_current": run.progress_current,
        "progress_total": run.progress_total, "heartbeat_at": run.heartbeat_at.isoformat() if run.heartbeat_at else None,
        "requests_sent": run.requests_sent, "cache_hits": run.cache_hits, "retries": run.retries,
        "unparsed": run.unparsed})


@login_required
def run_detail(request, llm_run_id: int):
    require_role(request, Role.RESEARCHER)
    run = _run_or_404(llm_run_id)
    per_run: dict[int, dict] = {}
    for score in LLMRunScore.objects.filter(run=run).order_by("run_index", "dimension"):
        per_run.setdefault(score.run_index, {})[score.dimension] = score
    dims = [d for d in results.DIMENSIONS if any(d in row for row in per_run.values())]
    return render(request, "llm/run.html", {
        "run": run, "summary": run.summary or {}, "dims": dims,
        "per_run": [{"index": i, "cells": [row.get(d) for d in dims]} for i, row in sorted(per_run.items())],
        "leaves_machine": (run.estimate or {}).get("leaves_machine"),
    })


@login_required
@require_POST
def run_action(request, llm_run_id: int, action: str):
    require_role(request, Role.RESEARCHER)
    from . import services

    switches = {"rater-on": {"shown": True}, "rater-off": {"shown": False, "in_aggregation": False},
                "aggregation-on": {"shown": True, "in_aggregation": True}, "aggregation-off": {"in_aggregation": False}}
    try:
        if action == "cancel":
            services.llm_run_cancel(run_id=llm_run_id)
            messages.success(request, _("LLM run %(id)s cancelled.") % {"id": llm_run_id})
        elif action == "rerun":
            new = services.llm_run_rerun(run_id=llm_run_id, created_by=request.user)
            messages.success(request, _("LLM run %(id)s launched.") % {"id": new.pk})
            return redirect("llm:run", new.pk)
        elif action in switches:
            run = rater.llm_rater_set(run_id=llm_run_id, by=request.user, **switches[action])
            messages.success(request, rater.switch_message(run))
        else:
            raise Http404(_("Unknown action."))
    except DomainError as exc:
        messages.error(request, str(exc))
    return redirect("llm:run", llm_run_id)


@login_required
def answers(request, llm_run_id: int):
    """Every raw answer of a run, for audit (researchers; never one about a post hidden from the viewer)."""
    require_role(request, Role.RESEARCHER)
    run = _run_or_404(llm_run_id)
    qs = visible_to(request.user, LLMAnswer.objects.filter(run=run)).order_by("id")
    unparsed_only = request.GET.get("unparsed") == "1"
    if unparsed_only:
        qs = qs.filter(parsed=False)
    after = parse_id(request.GET.get("after")) or 0
    rows = list(qs.filter(id__gt=after)[:ANSWERS_PAGE + 1])
    more = len(rows) > ANSWERS_PAGE
    rows = rows[:ANSWERS_PAGE]
    return render(request, "llm/answers.html", {
        "run": run, "rows": rows, "unparsed_only": unparsed_only, "next_after": rows[-1].pk if more else None,
        "unparsed_count": qs.filter(parsed=False).count() if not unparsed_only else qs.count()})


@login_required
def results_page(request):
    """The paper's Table 3 and few-shot table for one release, LLM runs beside MAAM's (?release=N&maam=group)."""
    require_role(request, Role.RESEARCHER)
    number = parse_id(request.GET.get("release"))
    releases = list(Release.objects.filter(llm_runs__isnull=False).distinct().order_by("-number"))
    release = (Release.objects.filter(number=number).first() if number else None) or (releases[0] if releases else None)
    table = results.comparison(release=release, maam_group=request.GET.get("maam") or None) if release else None
    return render(request, "llm/results.html", {"release": release, "releases": releases, "table": table})


@login_required
def rater_page(request, llm_run_id: int):
    """A run as a seventh annotator: agreement with the final labels and with each annotator, alpha with it
    as an extra rater, and whether it would pass each batch's qualification round."""
    require_role(request, Role.RESEARCHER)
    run = _run_or_404(llm_run_id)
    report = rater.rater_report(run=run, viewer=request.user) if run.status == "succeeded" else None
    return render(request, "llm/rater.html", {"run": run, "report": report})
