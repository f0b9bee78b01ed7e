"""An LLM as a rater (issue 28 §3): a finished run's per-post scores (the majority over its run
indexes, selectors.llm_run_scores) kept as a pseudo-annotator.

- Shown to adjudicators beside the model's prediction (`for_post`, through core.predictions, so
  annotation never imports llm); never to annotators: the adjudication page is for adjudicators and
  researchers and refuses a post hidden from the viewer (annotation.visibility), and every page here
  leaves hidden posts out.
- Never in the crowd's alpha, final labels or releases by default: a run joins the model-based
  aggregation (`for_aggregation`) only when a researcher switches it in (`rater_in_aggregation`).
- `rater_report`: its agreement with the final labels and with each annotator, alpha with it as an
  extra rater, and whether it would pass each batch's qualification round, by that round's own rule
  (annotation.quality.services.qualification_outcome).

Its rater id in rating matrices is the negative run id, so it never meets an annotator's user id.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

import numpy as np
from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import DomainError, NotFound
from core.jobs import JobStatus

from .models import LLMRun

DIMENSIONS = ("explicit", "implicit", "emotional")


@dataclass(frozen=True)
class RaterRow:
    """One LLM rater's scores for a post, as the adjudication page shows them."""

    run_id: int
    label: str
    explicit: int | None
    implicit: int | None
    emotional: int | None


def rater_label(run: LLMRun) -> str:
    return _("LLM %(model)s (run %(id)s, %(shots)s-shot)") % {"model": run.model_name, "id": run.pk, "shots": run.shots}


def rater_id(run: LLMRun | int) -> int:
    return -(run if isinstance(run, int) else run.pk)


def post_scores(run: LLMRun) -> dict[int, dict[str, int | None]]:
    """post id -> the run's scores (majority over its run indexes); posts deleted since are left out."""
    from .selectors import llm_run_scores

    return {row["post_id"]: {d: row[d] for d in DIMENSIONS}
            for row in llm_run_scores(run).values() if row.get("post_id") is not None}


# --- Writes ---------------------------------------------------------------------------------------------

@transaction.atomic
def llm_rater_set(*, run_id: int, by, shown: bool | None = None, in_aggregation: bool | None = None) -> LLMRun:
    """Keep (or stop keeping) a finished run as a rater shown to adjudicators, and let it into the
    model-based aggregation (or not). Joining the aggregation implies being shown; stopping being
    shown takes it out of the aggregation too. Recorded in the audit log (a settings change)."""
    from audit.services import audit_record

    run = LLMRun.objects.select_for_update().filter(pk=run_id).first()
    if run is None:
        raise NotFound(_("No such LLM run."))
    shown_now = run.rater_enabled if shown is None else shown
    aggregated_now = run.rater_in_aggregation if in_aggregation is None else in_aggregation
    if shown is False:
        aggregated_now = False
    elif aggregated_now:
        shown_now = True
    if (shown_now or aggregated_now) and run.status != JobStatus.SUCCEEDED:
        raise DomainError(_("Only a finished run's scores can be kept as a rater; LLM run %(id)s is %(status)s.")
                          % {"id": run.pk, "status": run.get_status_display().lower()})
    changes = {}
    if shown_now != run.rater_enabled:
        changes["rater_enabled"] = (run.rater_enabled, shown_now)
    if aggregated_now != run.rater_in_aggregation:
        changes["rater_in_aggregation"] = (run.rater_in_aggregation, aggregated_now)
    if changes:
        run.rater_enabled, run.rater_in_aggregation = shown_now, aggregated_now
        run.save(update_fields=["rater_enabled", "rater_in_aggregation", "updated_at"])
        audit_record(actor=by, instances=[run], event="settings", changes=changes)
    return run


def switch_message(run: LLMRun) -> str:
    if run.rater_in_aggregation:
        return _("LLM run %(id)s is shown to adjudicators and is an extra rater in the model-based aggregation "
                 "(from its next run).") % {"id": run.pk}
    if run.rater_enabled:
        return _("LLM run %(id)s is shown to adjudicators as a rater; it is not in the aggregation.") % {"id": run.pk}
    return _("LLM run %(id)s is no longer kept as a rater.") % {"id": run.pk}


# --- The provider registered in core.predictions ------------------------------------------------------------

def _shown_runs():
    return LLMRun.objects.filter(rater_enabled=True, status=JobStatus.SUCCEEDED).order_by("id")


def for_post(*, post_id: int) -> list[RaterRow]:
    """The raters' scores for one post (the adjudication page; its caller has checked the post is visible)."""
    from .models import LLMAnswer

    rows = []
    runs = _shown_runs().filter(pk__in=LLMAnswer.objects.filter(post_id=post_id).values("run_id"))
    for run in runs:
        answers = list(LLMAnswer.objects.filter(run=run, post_id=post_id).order_by("run_index"))
        scores = {}
        for d in DIMENSIONS:
            values = [getattr(a, d) for a in answers if getattr(a, d) is not None]
            counts = Counter(values)
            # the majority over run indexes, ties to the lowest index: selectors.llm_run_scores' rule
            scores[d] = next((v for v in values if counts[v] == max(counts.values())), None)
        rows.append(RaterRow(run.pk, rater_label(run), **scores))
    return rows


def for_aggregation() -> list[tuple]:
    """(rater id, post id, explicit, implicit, emotional) of every run a researcher let into the aggregation."""
    rows = []
    for run in LLMRun.objects.filter(rater_in_aggregation=True, status=JobStatus.SUCCEEDED).order_by("id"):
        rows += [(rater_id(run), post_id, *[s[d] for d in DIMENSIONS]) for post_id, s in post_scores(run).items()]
    return rows


def fingerprint() -> str:
    """Changes when the set of runs in the aggregation changes: its fit is then out of date."""
    ids = list(LLMRun.objects.filter(rater_in_aggregation=True, status=JobStatus.SUCCEEDED)
               .order_by("id").values_list("id", flat=True))
    # Short (8 hex digits): it is appended to the judgments' fingerprint in a 64-character column.
    return "+" + hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:8] if ids else ""


# --- The rater page -------------------------------------------------------------------------------------

def _alpha(matrix: np.ndarray) -> float | None:
    from annotation.agreement.mathematics import alpha

    return alpha(matrix, "ordinal") if matrix.shape[0] >= 2 and matrix.shape[1] else None


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(float(value), digits)


def rater_report(*, run: LLMRun, viewer) -> dict:
    """The run as a rater, over the posts the visibility policy lets `viewer` see: agreement with the
    final labels, with each annotator (pairwise ordinal alpha on the posts both scored), the crowd's
    alpha without and with it on the posts it scored, and the qualification rounds it would pass."""
    from annotation.agreement.mathematics import ratings_from_rows
    from annotation.models import FinalLabel, Judgment, Post
    from annotation.selectors import pseudonym_fallback
    from annotation.visibility import gold_hidden_from, judgments_visible_to, visible_to

    scores = post_scores(run)
    visible = set(visible_to(viewer, Post.objects.filter(pk__in=list(scores)), post_field="pk")
                  .values_list("pk", flat=True)) if scores else set()
    scores = {pk: s for pk, s in scores.items() if pk in visible}
    me = rater_id(run)

    # Against the final labels.
    finals = {f.post_id: f for f in visible_to(viewer, FinalLabel.objects.filter(post_id__in=list(scores)))}
    versus_final = {}
    for d in DIMENSIONS:
        pairs = [(scores[p][d], getattr(f, d)) for p, f in finals.items() if scores[p][d] is not None]
        llm_scores = np.array([a for a, _b in pairs], float)
        final_scores = np.array([b for _a, b in pairs], float)
        versus_final[d] = {
            "n": len(pairs), "exact": _round(np.mean(llm_scores == final_scores)) if pairs else None,
            "mae": _round(np.mean(np.abs(llm_scores - final_scores))) if pairs else None,
            "alpha": _round(_alpha(np.vstack([llm_scores, final_scores]))) if pairs else None}

    # Against the crowd: counted judgments (never answers to gold) on the posts the run scored.
    judgments = list(judgments_visible_to(viewer, Judgment.objects.counted().filter(post_id__in=list(scores)))
                     .values_list("annotator_id", "post_id", *DIMENSIONS))
    llm_rows = [(me, p, *[s[d] for d in DIMENSIONS]) for p, s in scores.items()]
    crowd_alpha, with_llm, annotators = {}, {}, []
    if judgments:
        judged = {p for _a, p, *_s in judgments}
        crowd = ratings_from_rows(judgments, DIMENSIONS)
        both = ratings_from_rows(judgments + [r for r in llm_rows if r[1] in judged], DIMENSIONS)
        llm_index = both.rater_ids.index(me) if me in both.rater_ids else None
        for d in DIMENSIONS:
            crowd_alpha[d] = _round(_alpha(crowd.matrices[d]))
            with_llm[d] = _round(_alpha(both.matrices[d]))
        from annotation.models import AnnotatorProfile

        profiles = dict(AnnotatorProfile.objects.filter(user_id__in=crowd.rater_ids).values_list("user_id", "pseudonym"))
        for i, annotator in enumerate(both.rater_ids):
            if annotator == me or llm_index is None:
                continue
            entry = {"annotator": annotator, "name": profiles.get(annotator) or pseudonym_fallback(annotator),
                     "dimensions": {}}
            for d in DIMENSIONS:
                pair = both.matrices[d][[i, llm_index]]
                shared = int((~np.isnan(pair)).all(axis=0).sum())
                entry["dimensions"][d] = {"n": shared, "alpha": _round(_alpha(pair)) if shared else None}
            entry["n"] = max(v["n"] for v in entry["dimensions"].values())
            annotators.append(entry)
        annotators.sort(key=lambda e: e["name"])

    return {"n_posts": len(scores), "n_final": len(finals), "versus_final": versus_final, "crowd_alpha": crowd_alpha,
            "with_llm_alpha": with_llm, "annotators": annotators,
            "qualification": None if gold_hidden_from(viewer) else qualification_check(scores)}


def qualification_check(scores: dict[int, dict[str, int | None]]) -> list[dict]:
    """For each batch with a qualification round: would these scores pass it? By the round's own rule
    (every item of the set answered; mean absolute error per dimension at or under the batch's
    thresholds). Where the run did not score every item (it scores its release's test split only), the
    rule cannot be applied: the answer is None, with the error on the items it did score."""
    from annotation.models import BatchQuality
    from annotation.quality.services import qualification_outcome

    out = []
    for quality in (BatchQuality.objects.filter(qualification_required=True).select_related("batch")
                    .prefetch_related("qualification_items").order_by("batch_id")):
        items = list(quality.qualification_items.all())
        if not items:
            continue
        thresholds = quality.pass_thresholds()
        answered = [g for g in items if g.post_id in scores and all(scores[g.post_id][d] is not None for d in DIMENSIONS)]
        mae, passed = (qualification_outcome(answers=scores, items=answered, thresholds=thresholds)
                       if answered else ({}, None))
        out.append({"batch": quality.batch, "items": len(items), "answered": len(answered),
                    "passed": passed if len(answered) == len(items) else None,
                    "mae": {d: _round(v) for d, v in mae.items()}, "thresholds": thresholds})
    return out
