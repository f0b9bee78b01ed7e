"""Reads for annotator quality: the judgment log and gold set from the database (handed to the
Django-free core in metrics.py and aggregation.py), the researchers' panel report (cached while
nothing changes), one annotator's judgments, gold items, batches' quality settings, qualification
state, and the model-based aggregate beside the rounded mean."""
from __future__ import annotations

import dataclasses
import hashlib
import math
from dataclasses import dataclass
from datetime import datetime
from datetime import timezone as dt_timezone

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Avg, Count, Exists, F, FloatField, Func, Max, OuterRef, Q, QuerySet
from django.db.models.functions import Floor

from core.jobs import JobStatus
from core.permissions import Role, user_has_role

from ..models import (
    DIMENSIONS,
    AggregateLabel,
    AggregationRun,
    Assignment,
    AssignmentStatus,
    Batch,
    BatchQuality,
    GoldItem,
    Judgment,
    Post,
    QualificationAttempt,
)
from ..selectors import annotator_pseudonyms, pseudonym_fallback
from .metrics import AlertThresholds, GoldSet, JudgmentLog, QualityReport, Series, annotator_quality

def alert_thresholds() -> AlertThresholds:
    """The alert thresholds in force: AlertThresholds' defaults, overridden by the setting
    QUALITY_ALERT_THRESHOLDS (filled from QUALITY_* environment variables, README)."""
    overrides = getattr(settings, "QUALITY_ALERT_THRESHOLDS", None) or {}
    return dataclasses.replace(AlertThresholds(), **overrides)


# --- Batches: gold rate and qualification ------------------------------------------------------

def batch_quality(batch: Batch) -> BatchQuality:
    """The batch's quality settings, or the defaults (no gold, no qualification; unsaved: reading
    writes nothing)."""
    return BatchQuality.objects.filter(batch=batch).first() or BatchQuality(batch=batch)


@dataclass(frozen=True)
class QualificationState:
    required: bool
    passed: bool
    can_attempt: bool  # required, not passed, and no attempt waiting for a researcher's reset
    attempts: list[QualificationAttempt]
    quality: BatchQuality

    @property
    def queue_open(self) -> bool:
        return not self.required or self.passed

    @property
    def awaiting_reset(self) -> bool:
        return self.required and not self.passed and not self.can_attempt


def qualification_state(*, annotator, batch: Batch) -> QualificationState:
    quality = batch_quality(batch)
    attempts = list(QualificationAttempt.objects.filter(batch=batch, annotator=annotator).order_by("number"))
    required = bool(quality.pk and quality.qualification_required)
    passed = any(a.passed for a in attempts)
    latest = attempts[-1] if attempts else None
    can_attempt = required and not passed and (latest is None or latest.reset_at is not None)
    return QualificationState(required, passed, can_attempt, attempts, quality)


def reads_settled_labels(user) -> bool:
    """Whether the user can see final labels and other annotators' judgments in the workbench (an
    adjudicator or a researcher): such a person is never served gold items (see gold_plan)."""
    return user_has_role(user, Role.ADJUDICATOR) or user_has_role(user, Role.RESEARCHER)


def gold_drawable(annotator) -> QuerySet[GoldItem]:
    """The active gold items that may be mixed into this annotator's queues: never in a qualification
    set, also after leaving it (issue 20 and its review: a gold item serves qualification or queues,
    never both, so nobody meets a qualification post again as gold; visibility.gold_items_servable), not answered by them in a qualification attempt, never judged
    by them as a real post nor adjudicated by them, and not waiting in an open batch. Items already
    served to them as gold stay in (gold_plan's pick leaves those out), so a count of these does not
    move when they are served one."""
    from ..visibility import gold_items_servable
    from ..visibility.withdrawn import withdrawn_posts

    judged = Assignment.objects.filter(post_id=OuterRef("post_id"), annotator=annotator, gold_batch__isnull=True)
    # A gold item served to them and since taken down keeps counting (the pick never serves it again:
    # it leaves out whatever they were given), so a takedown does not shrink the quota they were shown.
    served = Assignment.objects.filter(annotator=annotator, gold_batch__isnull=False).values("post_id")
    served_then_withdrawn = (GoldItem.objects.filter(active=True, qualification_used=False, post_id__in=served)
                             .filter(post_id__in=withdrawn_posts()))
    # (The two sets OR-ed on the item's own row, not as `pk IN (...)`: a subquery of the whole pool,
    # hashed, joined every post of the database to the pool on every claim - issue 27 review.)
    base = gold_items_servable() | served_then_withdrawn
    return (base.filter(~Exists(judged))
            .exclude(qualification_answers__attempt__annotator=annotator)
            .exclude(post__final_label__adjudicator=annotator))


def gold_quota(*, annotator, rate: float, posts: int, served: int) -> int:
    """How many gold items the annotator meets in a batch of `posts` posts at gold rate `rate` (the
    share of their items that are gold): fixed from their first item, so no count they are shown
    moves when an item turns out to be gold (issue 20). The queue serves exactly this many
    (gold_plan: a keyed draw without replacement over posts + quota positions), never more; the
    progress bar counts them from the start. At most the gold items drawable for them, at least the
    `served` ones (a rate lowered or items retired later). Nobody who reads settled labels is
    served new gold. Reads the database only for a batch with gold."""
    if rate <= 0 or reads_settled_labels(annotator):
        return served
    target = math.floor(posts * rate / (1 - rate) + 0.5)  # (halves up, as everywhere in the project)
    return max(min(target, gold_drawable(annotator).count()), served)


def qualification_items(quality: BatchQuality) -> QuerySet[GoldItem]:
    """The batch's fixed qualification set, in a stable order."""
    if not quality.pk:
        return GoldItem.objects.none()
    return quality.qualification_items.select_related("post").order_by("id")


def qualification_attempts(*, batch_id: int | None = None, annotator_id: int | None = None
                           ) -> QuerySet[QualificationAttempt]:
    qs = QualificationAttempt.objects.select_related("batch", "annotator", "reset_by")
    if batch_id is not None:
        qs = qs.filter(batch_id=batch_id)
    if annotator_id is not None:
        qs = qs.filter(annotator_id=annotator_id)
    return qs.order_by("batch_id", "annotator_id", "number")


def gold_items(*, active: bool | None = None) -> QuerySet[GoldItem]:
    qs = GoldItem.objects.select_related("post", "release").annotate(n_judgments=Count("post__judgments"))
    if active is not None:
        qs = qs.filter(active=active)
    return qs.order_by("id")


# --- The judgment log ---------------------------------------------------------------------------

def judgment_log() -> tuple[JudgmentLog, GoldSet]:
    """Every judgment as the quality core's JudgmentLog, and the gold set.

    Answers to gold items enter under the item id -post_id, and the gold set is keyed the same way:
    a post marked gold after the crowd judged it keeps its real judgments (they count toward
    agreement and its label as before), while the answers given to it as a gold item count only
    toward gold error. Seconds per post are measured on the server, from the claim to the first
    submission; the client's `seconds_spent` is used only where there is no claim (imports), and
    0 means "not measured". Time is the first submission, in epoch seconds."""
    rows = list(Judgment.objects.annotate(time=EpochSeconds("created_at")).values_list(
        "annotator_id", "post_id", "gold", *DIMENSIONS, "seconds_spent", "time"))
    claims = dict(((post, annotator), seconds) for post, annotator, seconds in Assignment.objects.filter(
        status=AssignmentStatus.SUBMITTED, completed_at__isnull=False).annotate(
        seconds=EpochSeconds("completed_at") - EpochSeconds("assigned_at")).values_list(
        "post_id", "annotator_id", "seconds"))
    n = len(rows)
    annotator = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
    post = np.fromiter((r[1] for r in rows), dtype=np.int64, count=n)
    gold = np.fromiter((r[2] for r in rows), dtype=bool, count=n)
    scores = np.array([[math.nan if v is None else v for v in r[3:6]] for r in rows], dtype=float).reshape(n, 3)
    seconds = np.fromiter((_seconds(claims.get((r[1], r[0])), r[6]) for r in rows), dtype=float, count=n)
    time = np.fromiter((r[7] for r in rows), dtype=float, count=n)
    log = JudgmentLog(annotator=annotator, item=np.where(gold, -post, post), scores=scores, seconds=seconds,
                      time=time, dimensions=DIMENSIONS)
    gold_rows = list(GoldItem.objects.values_list("post_id", *DIMENSIONS))
    gold_set = GoldSet(item=np.array([-r[0] for r in gold_rows], dtype=np.int64),
                       scores=np.array([r[1:] for r in gold_rows], dtype=float).reshape(len(gold_rows), 3))
    return log, gold_set


class EpochSeconds(Func):
    """A timestamp as seconds since 1970, computed by the database: reading 100,000 datetimes
    through Django's converters costs more than all the quality figures together. (SQLite's
    julianday is exact to ~50 microseconds, plenty for seconds per post.)"""

    output_field = FloatField()

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="((julianday(%(expressions)s) - 2440587.5) * 86400.0)",
                           **extra)

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="EXTRACT(EPOCH FROM %(expressions)s)::float8", **extra)


def _seconds(server: float | None, client: float) -> float:
    if server is not None and server > 0:
        return server
    return client if client and client > 0 else 0.0


# --- The panel ------------------------------------------------------------------------------------

def report_fingerprint() -> str:
    """Changes whenever anything the panel's report reads changes: a judgment (gold answers too), a
    gold item, the thresholds."""
    judgments = Judgment.objects.aggregate(n=Count("id"), top=Max("id"), last=Max("updated_at"))
    gold = GoldItem.objects.aggregate(n=Count("id"), top=Max("id"))
    last = judgments["last"].isoformat() if judgments["last"] else ""
    raw = f"{judgments['n']}:{judgments['top']}:{last}:{gold['n']}:{gold['top']}:{dataclasses.astuple(alert_thresholds())}"
    return hashlib.sha256(raw.encode()).hexdigest()


@dataclass(frozen=True)
class StoredReport:
    """The panel's report as the newest quality run stored it (pages never compute it)."""

    report: dict
    run: AggregationRun
    current: bool  # nothing it reads has changed since


def report_latest() -> StoredReport | None:
    run = aggregation_latest()
    report = (run.summary or {}).get("report") if run is not None else None
    if report is None:
        return None
    return StoredReport(report, run, run.summary.get("report_fingerprint") == report_fingerprint())


def quality_report(*, reliability: dict | None = None) -> dict:
    """Every annotator's figures (best first), the alerts and the plotted series, as plain data for
    the panel, the API and the data card. Names: usernames (the panel is for researchers) and
    pseudonyms (what exports show). `reliability`: the model's per-annotator figures (a quality
    run passes its own; by default the newest run's). A quality run computes this in the
    background (services.aggregation_compute); pages read what it stored (`report_latest`)."""
    thresholds = alert_thresholds()
    log, gold = judgment_log()
    if reliability is None:
        latest = aggregation_latest()
        reliability = (latest.summary or {}).get("annotators", {}) if latest else {}
    model_bias = {int(a): {d: (v.get("bias"), v.get("n") or 0) for d, v in dims.items()}
                  for a, dims in reliability.items()}
    report = annotator_quality(log, gold, thresholds=thresholds, model_bias=model_bias)
    ids = [int(a) for a in report.annotators]
    users = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    pseudonyms = annotator_pseudonyms(ids)
    index = {a: i for i, a in enumerate(ids)}
    order = _ranking(report, reliability)
    alerts_by = {}
    alerts = []
    for alert in report.alerts:
        entry = {"annotator": alert.annotator, "username": users.get(alert.annotator, ""),
                 "kind": str(alert.kind), "dimension": alert.dimension, "value": _num(alert.value),
                 "threshold": _num(alert.threshold), "since": alert.since, "until": alert.until}
        alerts.append(entry)
        alerts_by.setdefault(alert.annotator, []).append(entry)
    annotators = []
    for rank, annotator in enumerate(order, start=1):
        i = index[annotator]
        is_gold = log.item < 0
        mine = log.annotator == annotator
        annotators.append({
            "id": annotator, "username": users.get(annotator, ""),
            "pseudonym": pseudonyms.get(annotator) or pseudonym_fallback(annotator), "rank": rank,
            "n_judgments": int((mine & ~is_gold).sum()), "n_gold": int((mine & is_gold).sum()),
            "gold": {d: {"n": int(report.gold.n[i, j]), "mae": _num(report.gold.mae[i, j]),
                         "within_one": _num(report.gold.within_one[i, j])} for j, d in enumerate(DIMENSIONS)},
            "recent_alpha": {d: _num(report.recent_alpha[i, j]) for j, d in enumerate(DIMENSIONS)},
            "median_seconds": _num(report.recent_median_seconds[i]),
            "reliability": reliability.get(str(annotator)),
            "alerts": alerts_by.get(annotator, []),
        })
    return {"thresholds": dataclasses.asdict(thresholds), "dimensions": list(DIMENSIONS),
            "n_judgments": int((log.item >= 0).sum()), "n_gold_judgments": int((log.item < 0).sum()),
            "n_gold_items": len(gold.item), "annotators": annotators, "alerts": alerts,
            "series": _series(report)}


def _ranking(report: QualityReport, reliability: dict) -> list[int]:
    """Best first: by gold error (metrics.rank_annotators); annotators without gold judgments after
    them, by the model's expected absolute error when an aggregation has run, else by id."""
    with_gold = [a for a, n in zip(report.annotators, report.gold.n.sum(axis=1)) if n > 0]
    ranked = [a for a in report.ranking if a in set(int(x) for x in with_gold)]

    def model_error(annotator: int) -> float:
        entry = reliability.get(str(annotator)) or {}
        errors = [v["expected_abs_error"] for v in entry.values() if v.get("expected_abs_error") is not None]
        return sum(errors) / len(errors) if errors else math.inf

    rest = sorted((int(a) for a in report.annotators if int(a) not in set(ranked)), key=lambda a: (model_error(a), a))
    return [int(a) for a in ranked] + rest


def _series(report: QualityReport) -> dict:
    """{annotator id (str): {"alpha": {dim: [times, values]}, "gold_error": {...}, "seconds": [times, values]}}."""
    out: dict[str, dict] = {}

    def put(series: list[Series], key: str) -> None:
        for s in series:
            entry = out.setdefault(str(s.annotator), {"alpha": {}, "gold_error": {}, "seconds": [[], []]})
            pair = [[float(t) for t in s.time], [_num(v) for v in s.value]]
            if s.dimension is None:
                entry[key] = pair
            else:
                entry[key][s.dimension] = pair

    put(report.alpha_series, "alpha")
    put(report.gold_error_series, "gold_error")
    put(report.seconds_series, "seconds")
    return out


def _num(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else round(value, 4)


def annotator_row(report: dict, annotator_id: int) -> dict | None:
    return next((row for row in report["annotators"] if row["id"] == annotator_id), None)


def annotator_judgments(*, viewer, annotator_id: int, since: float | None = None, until: float | None = None,
                        limit: int = 200) -> list[dict]:
    """The annotator's judgments (gold ones marked, with their gold label) between two epoch times,
    newest first: what an alert links to. As the visibility policy lets `viewer` see them: none of a
    post hidden from them, and no answer to a gold item when gold is hidden from them - except in the
    list of their own judgments, which holds the same set /api/judgments/ lists them, gold answers
    unmarked (a list less the gold answers, beside that one, would mark them: docs/decisions.md,
    "No subtractable listings")."""
    from ..visibility import gold_hidden_from, judgments_visible_to

    hides_gold = gold_hidden_from(viewer)
    mine = Judgment.objects.filter(annotator_id=annotator_id)
    qs = (mine if hides_gold and viewer.pk == annotator_id else judgments_visible_to(viewer, mine)).select_related(
        "post", "post__gold_item")
    # An alert's `since` and `until` are its first and last judgments' own times, read by the
    # database to ~50 microseconds (EpochSeconds): a millisecond either side includes them.
    if since is not None:
        qs = qs.filter(created_at__gte=datetime.fromtimestamp(since - 1e-3, tz=dt_timezone.utc))
    if until is not None:
        qs = qs.filter(created_at__lte=datetime.fromtimestamp(until + 1e-3, tz=dt_timezone.utc))
    judgments = list(qs.order_by("-created_at", "-id")[:limit])
    claims = {p: (c - a).total_seconds() for p, a, c in Assignment.objects.filter(
        annotator_id=annotator_id, post_id__in=[j.post_id for j in judgments], completed_at__isnull=False)
        .values_list("post_id", "assigned_at", "completed_at")}
    out = []
    for j in judgments:
        gold_item = getattr(j.post, "gold_item", None) if j.gold and not hides_gold else None
        out.append({"judgment": j, "seconds": _seconds(claims.get(j.post_id), j.seconds_spent),
                    "gold": gold_item.scores() if gold_item else None})
    return out


# --- Aggregation ------------------------------------------------------------------------------------

def aggregation_latest() -> AggregationRun | None:
    """The newest successful aggregation run. A run with no finish time comes last on every database
    (PostgreSQL puts NULL first in a descending order, SQLite last)."""
    return AggregationRun.objects.filter(status=JobStatus.SUCCEEDED).order_by(
        F("finished_at").desc(nulls_last=True), "-id").first()


def aggregation_pending() -> AggregationRun | None:
    return AggregationRun.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).order_by("-id").first()


def counted_fingerprint() -> str:
    """Changes whenever a judgment that counts (not an answer to gold) is added, removed or revised,
    or the pseudo-raters let into the aggregation change: an aggregation computed at another
    fingerprint is out of date."""
    from core.predictions import pseudo_raters_fingerprint

    from ..agreement.selectors import judgments_fingerprint

    return judgments_fingerprint() + pseudo_raters_fingerprint()


def aggregation_is_current(run: AggregationRun | None) -> bool:
    return run is not None and run.judgments_fingerprint == counted_fingerprint()


@dataclass(frozen=True)
class AggregateView:
    """What an adjudicator sees beside the rounded mean."""

    labels: dict[str, int | None]
    confidence: dict[str, float | None]
    disagrees: dict[str, bool]  # the aggregate differs from the rounded mean on this dimension
    run: AggregationRun
    current: bool


def aggregate_for_post(*, post_id: int, means: dict[str, int | None]) -> AggregateView | None:
    label = AggregateLabel.objects.filter(post_id=post_id).select_related("run").first()
    if label is None:
        return None
    scores = label.scores()
    disagrees = {d: scores[d] is not None and means.get(d) is not None and scores[d] != means[d] for d in DIMENSIONS}
    return AggregateView(scores, label.confidences(), disagrees, label.run, aggregation_is_current(label.run))


def aggregate_annotations() -> dict:
    """For counted judgments grouped by post (`.values("post_id").annotate(...)`): each dimension's
    mean (`{d}_mean`) and the post's aggregate label (`{d}_aggregate`, one per post, so its Max),
    which `aggregate_disagreement()` compares."""
    out = {}
    for d in DIMENSIONS:
        out[f"{d}_mean"] = Avg(d)
        out[f"{d}_aggregate"] = Max(f"post__aggregate__{d}")
    return out


def aggregate_disagreement(*, label: str = "{d}_aggregate", mean: str = "{d}_mean") -> Q:
    """Posts whose model-based label differs from the rounded mean (halves up) of their counted
    judgments on some dimension: on a queryset annotated with each dimension's aggregate label
    (`label`) and mean (`mean`); a post without an aggregate never disagrees."""
    q = Q()
    for d in DIMENSIONS:
        name = label.format(d=d)
        q |= Q(**{f"{name}__isnull": False}) & ~Q(**{name: Floor(F(mean.format(d=d)) + 0.5)})
    return q


def aggregate_rows(*, viewer, disagreeing_only: bool = False) -> QuerySet[AggregateLabel]:
    """Aggregate labels with the current mean of each post's counted judgments (`{d}_mean`), of the
    posts the visibility policy lets `viewer` see."""
    from ..visibility import visible_to

    counted = Q(post__judgments__gold=False)
    qs = visible_to(viewer, AggregateLabel.objects).annotate(
        **{f"{d}_mean": Avg(f"post__judgments__{d}", filter=counted) for d in DIMENSIONS})
    if disagreeing_only:
        qs = qs.filter(aggregate_disagreement(label="{d}"))
    return qs.order_by("post_id")


# --- Releases ----------------------------------------------------------------------------------------

def release_label_fields(rows: list[dict]) -> list[dict]:
    """A release's label rows (`releases.selectors.current_label_rows`) with both automatic labels of
    each post beside the final one: `rounded_mean_<d>` (of the counted judgments, halves up) and
    `aggregate_<d>` with `aggregate_<d>_confidence` (the latest aggregation; empty when none). The
    row's `provenance` says which one the final label used (auto = rounded mean, aggregate), or
    that a person set it (adjudicated, imported)."""
    from ..adjudication.rounding import round_half_up
    from ..releases.files import post_key

    means = {row["post_id"]: row for row in Judgment.objects.counted().order_by().values("post_id").annotate(
        **{d: Avg(d) for d in DIMENSIONS})}
    aggregates = {row[0]: row[1:] for row in AggregateLabel.objects.values_list(
        "post_id", *DIMENSIONS, *[f"{d}_confidence" for d in DIMENSIONS])}
    keys = {post_key(ext, sha): pk for pk, ext, sha in Post.objects.filter(final_label__isnull=False)
            .values_list("pk", "external_id", "text_sha256")}
    out = []
    for row in rows:
        pk = keys.get(row["id"])
        mean = means.get(pk, {})
        aggregate = aggregates.get(pk)
        extra = {}
        for k, d in enumerate(DIMENSIONS):
            extra[f"rounded_mean_{d}"] = round_half_up(mean[d]) if mean.get(d) is not None else None
            extra[f"aggregate_{d}"] = aggregate[k] if aggregate else None
            confidence = aggregate[len(DIMENSIONS) + k] if aggregate else None
            extra[f"aggregate_{d}_confidence"] = round(confidence, 4) if confidence is not None else None
        out.append({**row, **extra})
    return out


GOLD_FILE = "gold.csv"


def gold_csv() -> bytes:
    """A release's optional list of gold items, apart from the data: id (as in release files), text,
    the gold labels, where they came from, whether still in use, and how many answers they got."""
    import io

    from core import csv_safe

    from ..releases.files import post_key

    buffer = io.StringIO(newline="")
    writer = csv_safe.writer(buffer, lineterminator="\r\n")
    writer.writerow(["id", "text", *DIMENSIONS, "source", "active", "answers"])
    # A post taken down on request (publication/takedowns.py) leaves every future release, this file included.
    for g in gold_items().filter(post__takedowns__isnull=True).order_by("post__text_sha256"):
        writer.writerow([post_key(g.post.external_id, g.post.text_sha256), g.post.text, *g.scores().values(),
                         g.source, int(g.active), g.n_judgments])
    return buffer.getvalue().encode("utf-8")


def datacard_section(labels: list[dict]) -> str:
    """The data card's section on label aggregation and annotator quality (pseudonyms only)."""
    from ..models import FinalLabelMethod, WorkbenchSettings

    method = WorkbenchSettings.current().final_label_method
    used = ("the model-based aggregate" if method == FinalLabelMethod.AGGREGATE
            else "the rounded mean of the judgments (halves up), as in the paper")
    lines = ["## Label aggregation and annotator quality", "",
             f"Automatic final labels in this release are {used} (workbench setting `final_label_method`). Beside "
             "every final label `release.jsonl` records both automatic labels: `rounded_mean_<dimension>` and "
             "`aggregate_<dimension>` with `aggregate_<dimension>_confidence`, the posterior probability of an "
             "ordinal Dawid-Skene model with a spammer component fitted on every judgment of this release. "
             "`provenance` says which label was used (`auto` = rounded mean, `aggregate`) or that a person set it "
             "(`adjudicated`, `imported`).", "",
             "| dimension | posts with both | aggregate = rounded mean | mean confidence |", "|---|---|---|---|"]
    for d in DIMENSIONS:
        both = [r for r in labels if r.get(f"aggregate_{d}") is not None and r.get(f"rounded_mean_{d}") is not None]
        same = sum(r[f"aggregate_{d}"] == r[f"rounded_mean_{d}"] for r in both)
        confidence = [r[f"aggregate_{d}_confidence"] for r in both]
        lines.append(f"| {d} | {len(both)} | {same / len(both):.3f} | {sum(confidence) / len(confidence):.3f} |"
                     if both else f"| {d} | 0 | n/a | n/a |")
    stored = report_latest()
    report = stored.report if stored is not None and stored.current else quality_report()
    attempts: dict[int, list[str]] = {}
    for annotator_id, batch, number, passed in QualificationAttempt.objects.order_by(
            "annotator_id", "batch_id", "number").values_list("annotator_id", "batch__name", "number", "passed"):
        attempts.setdefault(annotator_id, []).append(f"{batch} #{number} {'passed' if passed else 'failed'}")
    lines += ["", f"Gold items: {report['n_gold_items']}; their {report['n_gold_judgments']} answers measure the "
              "annotators and count toward nothing else (not in `judgments.csv`, the labels or the agreement).", "",
              "| annotator | judgments | gold answers | gold MAE (e / i / e) | within one of gold | "
              "model expected error | qualification |", "|---|---|---|---|---|---|---|"]

    def trio(values) -> str:
        return " / ".join("n/a" if v is None else f"{v:.2f}" for v in values)

    for row in report["annotators"]:
        reliability = row["reliability"] or {}
        lines.append(" | ".join([
            f"| {row['pseudonym']}", str(row["n_judgments"]), str(row["n_gold"]),
            trio(row["gold"][d]["mae"] for d in DIMENSIONS), trio(row["gold"][d]["within_one"] for d in DIMENSIONS),
            trio((reliability.get(d) or {}).get("expected_abs_error") for d in DIMENSIONS),
            ", ".join(attempts.get(row["id"], [])) or "-"]) + " |")
    return "\n".join(lines) + "\n"
