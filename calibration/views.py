"""Calibration pages: prior heatmaps and diffs, token weights, fusion strategies, reliability,
dataset overview and the case study. Every figure can be downloaded as PNG/SVG, its data as CSV."""
from __future__ import annotations

import io
import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation.blindness import ensure_visible, without_hidden
from annotation.models import DIMENSIONS, FinalLabel, Post
from core import csv_safe
from core.converters import parse_id
from core.permissions import Role, require_role
from modeling.models import Prediction, TrainingRun
from modeling.services import lexicon_current

from . import figures, services
from .forms import RebuildForm
from .models import PriorSnapshot, state_source_display
from .warm import myopia_for

MAX_TRY_CHARS = 500


def _fig_json(fig) -> dict:
    return json.loads(fig.to_json())


def _csv_response(rows: list[list], header: list[str], filename: str) -> HttpResponse:
    buffer = io.StringIO()
    writer = csv_safe.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _snapshot(pk) -> PriorSnapshot:
    snap = PriorSnapshot.objects.filter(pk=parse_id(pk)).first() if pk else PriorSnapshot.objects.first()
    if snap is None:
        raise Http404(_("No prior snapshot yet: rebuild priors first."))
    return snap


@login_required
def index(request):
    """/calibration/: what each calibration page shows, the newest prior snapshot and the latest
    finished runs (their fusion and reliability pages), and a post's case study by id."""
    require_role(request, Role.RESEARCHER)
    if "post" in request.GET:
        post_id = parse_id(request.GET["post"])
        if post_id is not None:
            return redirect("calibration:case", post_id=post_id)
        messages.error(request, _("A post id is a whole number."))
    runs = TrainingRun.objects.filter(status="succeeded").order_by("-finished_at", "-id")[:10]
    return render(request, "calibration/index.html", {"snapshot": PriorSnapshot.objects.select_related("release").first(),
                                                      "runs": runs})


@login_required
def priors(request):
    require_role(request, Role.RESEARCHER)
    snapshots = list(PriorSnapshot.objects.select_related("release")[:50])
    if not snapshots:
        return render(request, "calibration/priors.html", {"snapshots": [], "figures": {}})
    snap = _snapshot(request.GET.get("snapshot"))
    figs = {"priors": _fig_json(figures.prior_heatmaps(snap.priors, snap.counts, _("Priors #%(id)s — %(source)s") % {"id": snap.pk, "source": snap.source_display}))}
    other = request.GET.get("compare")
    if other:
        base = _snapshot(other)
        figs["diff"] = _fig_json(figures.prior_diff(base.priors, snap.priors, f"#{snap.pk} − #{base.pk}"))
    if request.GET.get("format") == "csv":
        rows = [[d, axis, state, k, snap.priors[d][axis][state][k - 1], snap.counts[d][axis][state][k - 1]]
                for d in DIMENSIONS for axis, state in figures.state_rows() for k in figures.SCORES]
        return _csv_response(rows, ["dimension", "axis", "state", "score", "probability", "count"],
                             f"priors-{snap.pk}.csv")
    return render(request, "calibration/priors.html", {"snapshots": snapshots, "snapshot": snap, "figures": figs,
                                                       "compare": other})


@login_required
@require_POST
def rebuild(request):
    require_role(request, Role.RESEARCHER)
    form = RebuildForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a published release, or the current final labels."))
        return redirect("calibration:priors")
    release = form.cleaned_data["release"]
    services.rebuild_request(release_id=release.pk if release else None, created_by=request.user)
    messages.success(request, _("Priors are being rebuilt; the new snapshot appears when it is done."))
    return redirect("calibration:priors")


@login_required
def token_weights(request):
    require_role(request, Role.RESEARCHER)
    post = None
    text = request.GET.get("text", "").strip()[:MAX_TRY_CHARS]
    if request.GET.get("post"):
        post_id = parse_id(request.GET["post"])
        post = Post.objects.filter(pk=post_id).first() if post_id else None
        if post is None:
            raise Http404(_("No such post."))
        text = post.text
    text = text or "月半，骗婚的同性恋谈诚信挺有趣的！"
    myopia = myopia_for(lexicon_current())
    results = myopia.weigh_all(text)
    tables = {d: r.to_dict() for d, r in results.items()}
    if request.GET.get("format") == "csv":
        rows = [[d, i, t["text"], t["subcategory"], t["level_orig"], t["keyword"], t["level"], t["w_base"], t["w_adj"],
                 t["weight"], t["kept"]] for d, r in tables.items() for i, t in enumerate(r["tokens"])]
        return _csv_response(rows, ["dimension", "index", "token", "subcategory", "level_orig", "keyword", "level",
                                    "w_base", "w_adj", "weight", "kept"], "token-weights.csv")
    figs = {d: _fig_json(figures.token_weights(tables[d]["tokens"], d)) for d in DIMENSIONS}
    return render(request, "calibration/weights.html", {"text": text, "post": post, "tables": tables, "figures": figs})


def _run(run_id: int) -> TrainingRun:
    run = TrainingRun.objects.filter(pk=run_id, status="succeeded").first()
    if run is None or not run.metrics:
        raise Http404(_("No finished run with that id."))
    return run


@login_required
def fusion(request, run_id: int):
    require_role(request, Role.RESEARCHER)
    run = _run(run_id)
    table = run.metrics.get("fusion_table") or {}
    used = run.metrics.get("fusion") or {}
    if not any(table.values()):
        return render(request, "calibration/fusion.html", {"run": run, "tables": {}, "figures": {}})
    if request.GET.get("format") == "csv":
        rows = [[d, "→".join(r["order"]), json.dumps(r["alphas"]), r["dev_macro_f1"], r["baseline_dev_f1"]]
                for d, rs in table.items() for r in rs]
        return _csv_response(rows, ["dimension", "order", "alphas", "dev_macro_f1", "baseline_dev_f1"], f"fusion-{run.pk}.csv")
    figs = {d: _fig_json(figures.fusion_table(rs, (used.get(d) or {}).get("order"), d)) for d, rs in table.items()}
    return render(request, "calibration/fusion.html", {"run": run, "tables": table, "used": used, "figures": figs})


@login_required
def reliability(request, run_id: int):
    require_role(request, Role.RESEARCHER)
    run = _run(run_id)
    figs = {}
    rows = []
    for d, m in run.metrics["test"].items():
        rel = m.get("reliability")
        if not rel:
            continue
        figs[d] = _fig_json(figures.reliability(rel["before"], rel["after"], d, m["before"]["ece"], m["after"]["ece"]))
        for stage in ("before", "after"):
            rows += [[d, stage, b["lower"], b["upper"], b["count"], b["confidence"], b["accuracy"]] for b in rel[stage]]
    if request.GET.get("format") == "csv":
        return _csv_response(rows, ["dimension", "stage", "lower", "upper", "count", "confidence", "accuracy"],
                             f"reliability-{run.pk}.csv")
    return render(request, "calibration/reliability.html", {"run": run, "figures": figs,
                                                            "metrics": run.metrics["test"]})


@login_required
def overview(request):
    require_role(request, Role.RESEARCHER)
    rows = list(without_hidden(request.user, FinalLabel.objects.order_by("post_id")).values_list(*DIMENSIONS))
    labels = {d: [r[i] for r in rows] for i, d in enumerate(DIMENSIONS)}
    if request.GET.get("format") == "csv":
        return _csv_response([list(r) for r in rows], list(DIMENSIONS), "labels.csv")
    figs = {"overview": _fig_json(figures.dataset_overview(labels))} if rows else {}
    return render(request, "calibration/overview.html", {"figures": figs, "n": len(rows)})


@login_required
def case_study(request, post_id: int):
    """A post through the fusion cascade, read from what the run stored when it scored the post
    (modeling.services.fusion_traces): the page never loads or runs a model."""
    require_role(request, Role.RESEARCHER)
    ensure_visible(request.user, post_id)  # a researcher who also annotates: blind to their open posts
    post = Post.objects.filter(pk=post_id).first()
    if post is None:
        raise Http404(_("No such post."))
    predictions = Prediction.objects.filter(post=post).select_related("run").order_by("-created_at")
    wanted = parse_id(request.GET.get("run")) if request.GET.get("run") else None
    if wanted is not None:
        run = _run(wanted)
        prediction = predictions.filter(run=run).first()
    else:
        prediction = predictions.first()
        run = prediction.run if prediction else None
    if prediction is None:
        return render(request, "calibration/case.html", {"post": post, "run": run, "dims": {}})
    per_dim, figs = {}, {}
    for d in DIMENSIONS:
        probs = prediction.probabilities.get(d)
        if not probs:
            continue
        trace = probs.get("fusion") or {}
        steps = [{"name": _("model"), "p": [round(v, 4) for v in probs["before"]]}]
        for step in trace.get("steps", []):
            state = step["state"]
            steps.append({"name": _("after %(axis)s (%(state)s)") % {"axis": step["axis"], "state": _(state) if state else "—"},
                          "p": [round(v, 4) for v in step["p"]]})
        priors_used = [{"axis": s["axis"], "state": s["state"], "q": [round(v, 4) for v in s["q"]]}
                       for s in trace.get("steps", [])]
        per_dim[d] = {"steps": steps, "priors": priors_used, "state": prediction.cis_state if trace else None,
                      "source": state_source_display(trace.get("source")), "alphas": trace.get("alphas"),
                      "traced": bool(trace) or not prediction.cis_state}
        figs[d] = _fig_json(figures.case_steps(steps, d))
    return render(request, "calibration/case.html", {"post": post, "run": run, "dims": per_dim, "figures": figs,
                                                     "prediction": prediction})
