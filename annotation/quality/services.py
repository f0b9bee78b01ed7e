"""Writes for annotator quality: marking gold items (from a release, from adjudicated labels, or by
upload with labels), a batch's gold rate and qualification set, qualification attempts and their
reset, model-based aggregation runs, and mixing gold items into an annotator's queue."""
from __future__ import annotations

import hashlib
import hmac
import math
import random
from datetime import timedelta
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.services import LogEntry, audit_record
from core.errors import Conflict, DomainError, NotFound, QueueUnavailable
from core.jobs import JobDone, job_fail, job_run
from core.predictions import pseudo_raters_for_aggregation

from ..importing.parsers import ImportFailed, ImportProblem
from ..models import (
    DIMENSIONS,
    AggregateLabel,
    AggregationRun,
    Assignment,
    AssignmentStatus,
    Batch,
    BatchQuality,
    FinalLabel,
    GoldItem,
    GoldSource,
    Post,
    Provenance,
    QualificationAnswer,
    QualificationAttempt,
)
from ..scores import scores_validate
from ..assignment.selectors import gold_counts
from . import selectors

MAX_GOLD_RATE = 0.5


class NotQualified(DomainError):
    """The batch requires qualification and this annotator has not passed it."""

    status_code = 403


# --- Gold items -----------------------------------------------------------------------------------

def _ensure_not_in_open_batch(posts: list[Post]) -> None:
    """A gold post must not also be waiting for real judgments: its batch is locked, or it has none.
    So a gold claim can never take one of a post's k slots in an open batch."""
    open_posts = [p for p in posts if p.batch_id is not None and p.batch.locked_at is None]
    if open_posts:
        names = ", ".join(f"#{p.pk} ({p.batch.name})" for p in open_posts[:10])
        raise DomainError(_("These posts are still in an open batch: %(posts)s. Mark them as gold once their batch "
                            "is locked.") % {"posts": names})


def _gold_create(posts_and_labels: list[tuple[Post, dict[str, int]]], *, source: str, created_by,
                 release=None) -> list[GoldItem]:
    posts = [p for p, _labels in posts_and_labels]
    _ensure_not_in_open_batch(posts)
    already = set(GoldItem.objects.filter(post__in=posts).values_list("post_id", flat=True))
    if already:
        raise Conflict(_("Already gold: %(posts)s.") % {"posts": ", ".join(f"#{pk}" for pk in sorted(already)[:10])})
    created = GoldItem.objects.bulk_create([
        GoldItem(post=post, source=source, release=release, created_by=created_by, **scores_validate(labels))
        for post, labels in posts_and_labels])
    audit_record(actor=created_by, instances=created, event="gold", action=LogEntry.Action.CREATE,
                 changes={"source": (None, source)})  # (bulk_create sends no signal for the audit log)
    return created


@transaction.atomic
def gold_mark_from_adjudicated(*, post_ids: list[int], created_by=None) -> list[GoldItem]:
    """The posts' adjudicated final labels become their gold labels."""
    labels = {fl.post_id: fl for fl in FinalLabel.objects.select_related("post__batch")
              .filter(post_id__in=post_ids, provenance=Provenance.ADJUDICATED)}
    missing = [pk for pk in post_ids if pk not in labels]
    if missing:
        raise DomainError(_("No adjudicated label for: %(posts)s.") % {"posts": ", ".join(f"#{pk}" for pk in missing[:10])})
    return _gold_create([(labels[pk].post, labels[pk].scores()) for pk in dict.fromkeys(post_ids)],
                        source=GoldSource.ADJUDICATED, created_by=created_by)


@transaction.atomic
def gold_mark_from_release(*, release_number: int, keys: list[str] | None = None, sample: int | None = None,
                           seed: int = 0, created_by=None) -> list[GoldItem]:
    """Posts of a release, with the labels it published, become gold: those named by `keys`, or a
    seeded random `sample` of the release's posts that are in this database, not gold yet and not
    in an open batch."""
    from ..releases.files import post_key
    from ..releases.selectors import release_get, release_rows

    release = release_get(number=release_number)
    rows = {row["id"]: row for row in release_rows(release)}
    # A release names a post by its external id, else by a prefix of its text hash (post_key).
    candidates = Post.objects.select_related("batch").filter(
        Q(external_id__in=list(rows)) | Q(external_id__isnull=True) | Q(external_id=""))
    posts = {k: p for p in candidates if (k := post_key(p.external_id, p.text_sha256)) in rows}
    if keys is not None:
        unknown = [k for k in keys if k not in rows or k not in posts]
        if unknown:
            raise DomainError(_("Not posts of release %(number)s in this database: %(ids)s.")
                              % {"number": release_number, "ids": ", ".join(unknown[:10])})
        chosen = list(dict.fromkeys(keys))
    elif sample:
        gold = set(GoldItem.objects.values_list("post_id", flat=True))
        eligible = sorted(k for k, p in posts.items() if p.pk not in gold
                          and (p.batch_id is None or p.batch.locked_at is not None))
        if not eligible:
            raise DomainError(_("Release %(number)s has no posts left that can become gold.") % {"number": release_number})
        chosen = random.Random(seed).sample(eligible, min(sample, len(eligible)))
    else:
        raise DomainError(_("Name the posts (their release ids) or ask for a sample."))
    return _gold_create([(posts[k], {d: rows[k][d] for d in DIMENSIONS}) for k in chosen],
                        source=GoldSource.RELEASE, created_by=created_by, release=release)


def gold_upload(*, data: bytes, filename: str = "", created_by=None) -> list[GoldItem]:
    """A posts file with labels (ChLGBT CSV or JSONL, as the importer reads them) becomes gold. Posts
    already in the database are matched by their cleaned text; the others are created outside any
    batch, so they never receive real judgments, final labels or release rows. All-or-nothing."""
    from publication.personal_data.services import personal_data_record

    from ..importing.services import read_posts_file

    parsed, problems, _encoding, seen, _skipped = read_posts_file(data, filename=filename)
    problems += [ImportProblem(p.line, _("gold items need labels on every row")) for p in parsed if p.labels is None]
    if not parsed and not problems:
        problems.append(ImportProblem(0, _("the file has no posts")))
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: p.line))
    with transaction.atomic():
        existing = {p.text_sha256: p for p in Post.objects.select_related("batch").filter(text_sha256__in=list(seen))}
        pairs = []
        for p in parsed:
            post = existing.get(p.digest)
            if post is None:
                post = Post.objects.create(external_id=p.external_id or None, text=p.text, raw_text=p.raw_text,
                                           text_sha256=p.digest)
                personal_data_record(scans=[(post.pk, p.personal_data or {}, p.findings)])
            pairs.append((post, p.labels))
        return _gold_create(pairs, source=GoldSource.UPLOAD, created_by=created_by)


def gold_set_active(*, post_ids: list[int], active: bool, by=None) -> int:
    """Retire gold items (no longer mixed into queues; their answers stay gold) or bring them back."""
    items = list(GoldItem.objects.filter(post_id__in=post_ids).exclude(active=active))
    audit_record(actor=by, instances=items, event="gold", changes={"active": (not active, active)})
    return GoldItem.objects.filter(post_id__in=post_ids).update(active=active)


# --- Batches --------------------------------------------------------------------------------------

@transaction.atomic
def batch_quality_set(*, batch_id: int, gold_rate: float | None = None, qualification_required: bool | None = None,
                      qualification_post_ids: list[int] | None = None,
                      pass_max_mae: dict[str, float] | None = None) -> BatchQuality:
    """Set what is given (the rest stays). The qualification set is a fixed list of gold items."""
    batch = Batch.objects.filter(pk=batch_id).first()
    if batch is None:
        raise NotFound(_("No such batch."))
    quality, _created = BatchQuality.objects.get_or_create(batch=batch)
    if gold_rate is not None:
        if not (isinstance(gold_rate, (int, float)) and 0 <= gold_rate <= MAX_GOLD_RATE):
            raise DomainError(_("The gold rate is a share from 0 to %(max)s (got %(value)r).")
                              % {"max": MAX_GOLD_RATE, "value": gold_rate})
        quality.gold_rate = float(gold_rate)
    for d, value in (pass_max_mae or {}).items():
        if d not in DIMENSIONS or not isinstance(value, (int, float)) or not 0 <= value <= 4:
            raise DomainError(_("A pass threshold is a mean absolute error from 0 to 4 per dimension (got %(dimension)s=%(value)r).")
                              % {"dimension": d, "value": value})
        setattr(quality, f"pass_max_mae_{d}", float(value))
    if qualification_post_ids is not None:
        items = list(GoldItem.objects.filter(post_id__in=qualification_post_ids))
        missing = set(qualification_post_ids) - {g.post_id for g in items}
        if missing:
            raise DomainError(_("Not gold items: %(posts)s.") % {"posts": ", ".join(f"#{pk}" for pk in sorted(missing)[:10])})
        qualification_items_check(quality=quality, items=items)
        quality.qualification_items.set(items)
    if qualification_required is not None:
        quality.qualification_required = qualification_required
    if quality.qualification_required and not quality.qualification_items.exists():
        raise DomainError(_("A qualification round needs a qualification set: choose its gold items first."))
    quality.save()
    return quality


# --- Qualification --------------------------------------------------------------------------------

def qualification_items_check(*, quality: BatchQuality, items) -> None:
    """Issue 20: a gold item serves qualification or queues, never both. Items in a qualification set
    are never drawn into queues (selectors.gold_drawable); this refuses, for a set, an item already
    served in someone's queue, who would meet it again in the round and learn it had been gold.
    Items already in the set stay allowed (they were never served after joining it)."""
    current = set(quality.qualification_items.values_list("pk", flat=True)) if quality.pk else set()
    added = [g.post_id for g in items if g.pk not in current]
    served = sorted(set(Assignment.objects.filter(gold_batch__isnull=False, post_id__in=added)
                        .values_list("post_id", flat=True)))
    if served:
        raise DomainError(_("Already served as gold in annotators' queues, so they cannot join a qualification set "
                            "(those annotators would recognise them): %(posts)s.")
                          % {"posts": ", ".join(f"#{pk}" for pk in served[:10])})


def qualification_outcome(*, answers: dict[int, dict[str, int]], items, thresholds: dict[str, float]
                          ) -> tuple[dict[str, float], bool]:
    """The qualification round's rule (an annotator's attempt, and llm/rater.py asking whether an LLM
    would pass): the mean absolute error against gold per dimension over every item of the set
    (`answers`: each item's post id -> three scores), passed when each is at or under its threshold."""
    errors = {d: [abs(answers[g.post_id][d] - getattr(g, d)) for g in items] for d in DIMENSIONS}
    mae = {d: sum(v) / len(v) for d, v in errors.items()}
    return mae, all(mae[d] <= thresholds[d] + 1e-9 for d in DIMENSIONS)


def qualification_items_seen(*, annotator_id: int, items) -> list[GoldItem]:
    """The items of `items` whose gold labels the annotator was shown: answered in a failed attempt
    (any batch's round), whose review puts their scores beside gold."""
    seen = set(QualificationAnswer.objects.filter(attempt__annotator_id=annotator_id, attempt__passed=False)
               .values_list("gold_item_id", flat=True))
    return [g for g in items if g.pk in seen]


SEEN_SET_MESSAGE = gettext_lazy(
    "%(n)s of this batch's qualification items were shown to this annotator with their gold labels after a failed "
    "attempt, so a retry on them would measure memory, not judgment. Replace them in the batch's qualification set "
    "(admin: Batch quality settings) with gold items they have not seen, then reset.")


@transaction.atomic
def qualification_submit(*, annotator, batch_id: int, answers: dict[int, dict[str, int]]) -> QualificationAttempt:
    """Score an attempt at the batch's qualification set: `answers` maps every item's post id to
    three scores. Passing needs the mean absolute error against gold at or under the batch's
    threshold on every dimension. The attempt and its answers are kept whatever the outcome."""
    from ..assignment.selectors import batch_for_annotator

    batch = batch_for_annotator(annotator, batch_id)
    # One attempt at a time per annotator and batch: lock the batch's quality row.
    quality = BatchQuality.objects.select_for_update().filter(batch=batch).first()
    state = selectors.qualification_state(annotator=annotator, batch=batch)
    if not state.required:
        raise DomainError(_("This batch has no qualification round."))
    if state.passed:
        raise Conflict(_("You have already passed this batch's qualification."))
    if not state.can_attempt:
        raise Conflict(_("Your last attempt did not pass; a researcher must reset it before you try again."))
    items = list(selectors.qualification_items(quality))
    if not items:  # the admin, or a later edit, emptied a required set
        raise DomainError(_("This batch's qualification set is empty: a researcher must choose its gold items "
                            "before anyone can qualify."))
    if qualification_items_seen(annotator_id=annotator.pk, items=items):
        raise Conflict(_("This round's set holds posts whose gold labels you were shown after your last attempt; a "
                         "researcher must change the set before you try again."))
    wanted = {g.post_id for g in items}
    if set(answers) != wanted:
        raise DomainError(_("Score every post of the qualification set, and only those."))
    clean = {pk: scores_validate(scores) for pk, scores in answers.items()}
    thresholds = quality.pass_thresholds()
    mae, passed = qualification_outcome(answers=clean, items=items, thresholds=thresholds)
    attempt = QualificationAttempt.objects.create(
        batch=batch, annotator=annotator, number=len(state.attempts) + 1, passed=passed,
        mae={d: round(v, 4) for d, v in mae.items()}, thresholds=thresholds)
    QualificationAnswer.objects.bulk_create([
        QualificationAnswer(attempt=attempt, gold_item=g, gold=g.scores(), **clean[g.post_id]) for g in items])
    return attempt


@transaction.atomic
def qualification_reset(*, batch_id: int, annotator_id: int, reset_by) -> QualificationAttempt:
    """Allow another attempt after a failed one (the failed attempt stays, marked as reset)."""
    latest = (QualificationAttempt.objects.select_for_update().filter(batch_id=batch_id, annotator_id=annotator_id)
              .order_by("-number").first())
    if latest is None:
        raise NotFound(_("This annotator has not attempted this batch's qualification."))
    if latest.passed:
        raise Conflict(_("This annotator passed; there is nothing to reset."))
    if latest.reset_at is not None:
        raise Conflict(_("Already reset: the annotator may try again."))
    # A retry never reuses the items whose gold they saw (issue 31): the researcher changes the set first.
    quality = BatchQuality.objects.filter(batch_id=batch_id).first()
    seen = qualification_items_seen(annotator_id=annotator_id,
                                    items=selectors.qualification_items(quality) if quality else [])
    if seen:
        raise Conflict(SEEN_SET_MESSAGE % {"n": len(seen)})
    latest.reset_at = timezone.now()
    latest.reset_by = reset_by
    latest.save(update_fields=["reset_at", "reset_by"])
    audit_record(actor=reset_by, instances=[latest], event="qualification_reset",
                 changes={"reset_at": (None, latest.reset_at), "reset_by": (None, reset_by)})
    return latest


def qualification_gate(*, annotator, batch: Batch) -> None:
    """NotQualified (403) unless the annotator may work on the batch's real queue."""
    state = selectors.qualification_state(annotator=annotator, batch=batch)
    if not state.queue_open:
        raise NotQualified(_not_qualified_message(batch))


# --- Model-based aggregation ------------------------------------------------------------------------

def aggregation_request(*, requested_by=None) -> AggregationRun:
    """Queue an aggregation run (background). QueueUnavailable when the broker is down."""
    from ..tasks import aggregation_task

    run = AggregationRun.objects.create(requested_by=requested_by)
    try:
        transaction.on_commit(lambda: aggregation_task.delay(run.pk))
    except Exception as exc:  # broker down (eager callbacks run right here outside a transaction)
        job_fail(AggregationRun, run.pk, reason=f"The task queue is unavailable: {exc}")
        raise QueueUnavailable(_("The task queue is unavailable; try again when it is back.")) from exc
    return run


def aggregation_compute(*, run_id: int) -> AggregationRun:
    """Fit the ordinal model to every counted judgment (answers to gold excluded) and, on success,
    replace the aggregate labels in the same transaction. A redelivered task does nothing."""
    return job_run(AggregationRun, run_id, _aggregation_work)


def aggregation_run_now(*, requested_by=None) -> AggregationRun:
    """Aggregate synchronously (release publishing, the command line, tests)."""
    run = AggregationRun.objects.create(requested_by=requested_by)
    return aggregation_compute(run_id=run.pk)


def aggregation_ensure_current() -> AggregationRun | None:
    """The latest aggregation if it was fitted on the current judgments, else a fresh one (None
    when there are no judgments)."""
    from ..models import Judgment

    latest = selectors.aggregation_latest()
    if selectors.aggregation_is_current(latest):
        return latest
    if not Judgment.objects.counted().exists():
        return None
    return aggregation_run_now()


def _aggregation_work(run: AggregationRun) -> JobDone:
    """The model-based labels and reliabilities, then the panel's report with those reliabilities
    (figures, series, alerts): what the pages and the API show until the next run."""
    from ..agreement.selectors import load_ratings
    from .aggregation import aggregate_dimensions, rounded_mean_labels

    fingerprint = selectors.counted_fingerprint()
    report_fingerprint = selectors.report_fingerprint()
    # Pseudo-raters (LLM runs a researcher let in, off by default; llm/rater.py): rater ids < 0.
    ratings = load_ratings(extra_rows=pseudo_raters_for_aggregation())
    fits = aggregate_dimensions(ratings.matrices)
    posts = list(ratings.unit_ids)
    raters = [str(r) for r in ratings.rater_ids]
    per_dim, annotators = {}, {r: {} for r in raters}
    columns: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for d in DIMENSIONS:
        fit, matrix = fits[d], ratings.matrices[d]
        scored = fit.n_judgments > 0
        means = rounded_mean_labels(matrix)
        per_dim[d] = {"iterations": fit.iterations, "converged": fit.converged, "posts": int(scored.sum()),
                      "agrees_with_rounded_mean": _share(fit.label[scored] == means[scored]),
                      "mean_confidence": _share(fit.confidence[scored])}
        rel = fit.annotators
        for j, r in enumerate(raters):
            annotators[r][d] = {"bias": _round(rel.bias[j]), "scale": _round(rel.scale[j]),
                                "spam_rate": _round(rel.spam_rate[j]), "accuracy": _round(rel.accuracy[j]),
                                "expected_abs_error": _round(rel.expected_abs_error[j]), "n": int(rel.n_judgments[j])}
        columns[d] = (scored, fit.label, fit.confidence)
    labels = [(post, run.pk, *[int(columns[d][1][i]) if columns[d][0][i] else None for d in DIMENSIONS],
               *[float(columns[d][2][i]) if columns[d][0][i] else None for d in DIMENSIONS])
              for i, post in enumerate(posts)]

    def commit() -> None:
        AggregateLabel.objects.all().delete()
        _insert_rows(AggregateLabel, ["post_id", "run_id", *DIMENSIONS, *[f"{d}_confidence" for d in DIMENSIONS]],
                     labels)

    # The pseudo-raters' reliabilities apart from the annotators' (the panel ranks annotators only).
    extra_raters = {r: annotators.pop(r) for r in raters if int(r) < 0}
    report = selectors.quality_report(reliability=annotators)
    return JobDone(fields={"judgments_fingerprint": fingerprint,
                           "summary": {"posts": len(posts), "judgments": ratings.n_judgments, "dimensions": per_dim,
                                       "annotators": annotators, "extra_raters": extra_raters, "report": report,
                                       "report_fingerprint": report_fingerprint}},
                   commit=commit)


def quality_refresh() -> AggregationRun | None:
    """The periodic check (beat, every few minutes): a new quality run when the stored report or
    aggregate is out of date and none is under way; None when nothing was needed."""
    stored = selectors.report_latest()
    latest = selectors.aggregation_latest()
    if stored is not None and stored.current and selectors.aggregation_is_current(latest):
        return None
    pending = selectors.aggregation_pending()
    if pending is not None and pending.created_at > timezone.now() - timedelta(minutes=30):
        return None  # one is under way (an older one was lost with its worker)
    from ..models import Judgment

    if not Judgment.objects.exists():
        return None
    return aggregation_run_now()


def _insert_rows(model, columns: list[str], rows: list[tuple]) -> None:
    """One prepared INSERT run for every row (executemany): building model instances and SQL for
    8,120 labels took longer on SQLite than fitting them."""
    quote = connection.ops.quote_name
    sql = (f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(c) for c in columns)}) "
           f"VALUES ({', '.join(['%s'] * len(columns))})")
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _share(values: np.ndarray) -> float | None:
    return round(float(np.mean(values)), 4) if len(values) else None


def _round(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else round(value, 4)


# --- Gold items in the queue ----------------------------------------------------------------------
# assignment/services.py calls `gold_plan` on every claim of a batch with quality settings, and serves
# the plan's gold post *instead of* the next real post with room, after the same search, lock and
# recount, and with the same writes (timing): the queue answers a gold claim with the same work, the
# same payload and the same statements as a real one.

@dataclass(frozen=True)
class GoldPlan:
    open: Assignment | None  # the annotator's unanswered gold item in this batch: resume it
    post: Post | None  # the gold post to serve instead of the next real post, or None
    # Every post of the batch has had its turn with this annotator, so only gold is left: `post` is
    # served although no real post has room (their queue ends after their whole quota, as a batch of
    # as many real posts would).
    tail: bool = False


def gold_plan(*, annotator, batch: Batch) -> GoldPlan:
    """For a claim in `batch`: NotQualified unless the annotator may work on its queue; their open
    gold item if any; else whether this claim is a gold one (at the batch's gold rate) and which.

    Whether a claim is gold is a keyed draw (HMAC of the batch, the annotator and how many claims they
    have made in it, under SECRET_KEY): reproducible, and unpredictable to annotators - no "every
    20th item" pattern. Issue 20: the draw is without replacement, so the annotator meets exactly
    their gold quota (selectors.gold_quota) among their posts + quota items, each placement equally
    likely - never one more, which the progress bar would have to count. The gold item: a drawable
    one (selectors.gold_drawable: never in a qualification set) the annotator has never been given
    (nobody sees a post twice), at random.

    Nobody who can read settled labels (adjudicators, researchers) is served new gold items: a gold
    post is a settled post, so they could look its label up on the adjudication pages or in a
    release (one already open when they got the role is finished as served). Nobody is served a
    gold post whose label they adjudicated themselves."""
    quality = BatchQuality.objects.filter(batch=batch).only("gold_rate", "qualification_required").first()
    if quality is not None and quality.qualification_required:
        passed = QualificationAttempt.objects.filter(batch=batch, annotator=annotator, passed=True).exists()
        if not passed:
            raise NotQualified(_not_qualified_message(batch))
    open_gold = (Assignment.objects.select_related("post")
                 .filter(annotator=annotator, gold_batch=batch, status=AssignmentStatus.ASSIGNED)
                 .order_by("assigned_at", "id").first())
    if open_gold is not None:  # (served before the annotator was given a role that reads labels)
        return GoldPlan(open_gold, None)
    if selectors.reads_settled_labels(annotator):
        return GoldPlan(None, None)
    rate = quality.gold_rate if quality is not None else 0.0
    if rate <= 0:
        return GoldPlan(None, None)
    # (Issue 27 review: the batch's posts from its counter, as the progress bar counts them, not by
    # reading them; the claims and gold served in the same statement.)
    posts, claims, served = gold_counts(annotator=annotator, batch=batch)
    quota = selectors.gold_quota(annotator=annotator, rate=rate, posts=posts, served=served)
    # The pick runs whether or not this claim is gold, so the two cost the same. Its row lock (held to
    # the end of the claim; others skip it) keeps two tabs of one annotator from taking one gold post.
    pick = _gold_pick(annotator, start=_keyed_point(f"gold-pick:{batch.pk}:{annotator.pk}:{claims}"))
    due = _gold_due(_keyed_draw(f"gold:{batch.pk}:{annotator.pk}:{claims}"), left=quota - served,
                    remaining=posts + quota - claims)
    return GoldPlan(None, pick if due and pick is not None else None, tail=claims - served >= posts)


# The pick's random start: a point of the gold items' id range, MIN(id) + draw * (MAX - MIN + 1),
# found through the primary key's two ends (no row of the pool is read). Integer arithmetic, the same
# on both databases; the draw is a 31-bit integer parameter.
_GOLD_START_SQL = (f"(SELECT MIN(x.id) + (CAST(%s AS BIGINT) * (MAX(x.id) - MIN(x.id) + 1)) / 2147483648 "
                   f"FROM {GoldItem._meta.db_table} x)")


def _gold_pick(annotator, *, start: float) -> Post | None:
    """A drawable gold item the annotator has never been given (gold_drawable, less every post they
    hold or held), at random, row-locked (FOR UPDATE OF the gold item, SKIP LOCKED); its post, or None.

    One statement that sorts nothing (issue 27 review; `ORDER BY random()` read and sorted the whole
    pool on every claim): the first such item at or after a random point of the id range in id order,
    else - nothing there - the first from the start (wrapping around). Two branches of a UNION ALL
    under LIMIT 1, each a walk of the primary key that stops at its first row: the second runs only when
    the first found nothing, so exactly one row is locked, as before. Each item is drawn with
    probability proportional to the gap in ids before it (since the previous eligible item), not
    exactly 1/n: uniform while eligible ids are evenly spread, and never predictable to the annotator
    (the point is a keyed draw, `start`, under SECRET_KEY)."""
    drawable = (selectors.gold_drawable(annotator).exclude(post__assignments__annotator=annotator)
                .select_for_update(skip_locked=True, of=("self",))
                .values_list("post_id", "post__text", "post__batch_id", "post__live_claims"))  # (the model's order)
    point = RawSQL(_GOLD_START_SQL, [int(start * 2**31)])
    after, params_after = drawable.filter(pk__gte=point).order_by("pk")[:1].query.sql_with_params()
    before, params_before = drawable.filter(pk__lt=point).order_by("pk")[:1].query.sql_with_params()
    sql = f"SELECT * FROM ({after}) AS after_start UNION ALL SELECT * FROM ({before}) AS before_start LIMIT 1"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params_after, *params_before])
        row = cursor.fetchone()
    if row is None:
        return None
    return Post.from_db(connection.alias, ["id", "text", "batch_id", "live_claims"], list(row))


def _gold_due(draw: float, *, left: int, remaining: int) -> bool:
    """Whether this claim is gold: sequential sampling without replacement, `left` gold items among
    the `remaining` positions of the annotator's posts + quota (each placement of the quota equally
    likely; all of it served once they reach the end; never more)."""
    if left <= 0:
        return False
    return remaining <= left or draw < left / remaining


def _keyed_point(message: str) -> float:
    """Where the gold pick starts: a keyed number in [0, 1), as _keyed_draw (kept apart from the
    draw that decides whether a claim is gold, which tests replace)."""
    digest = hmac.new(settings.SECRET_KEY.encode(), message.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _keyed_draw(message: str) -> float:
    digest = hmac.new(settings.SECRET_KEY.encode(), message.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _not_qualified_message(batch: Batch) -> str:
    return _("This batch starts with a qualification round: score its qualification set first (%(url)s).") % {
        "url": f"/annotate/{batch.pk}/qualification/"}
