"""Reads for assignment and scoring: an annotator's batches, their progress, their own judgments, and
the queue item the annotator page shows. Everything here is filtered to the annotator asking."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from datetime import datetime
from datetime import timezone as dt_timezone

from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from core.errors import NotFound

from ..models import (
    DIMENSIONS,
    Assignment,
    AssignmentStatus,
    Batch,
    BatchProgress,
    BatchQuality,
    FinalLabel,
    Guideline,
    Judgment,
    Post,
)
from ..quality.selectors import gold_quota
from ..visibility.withdrawn import withdrawn_sql


def batches_for_annotator(annotator) -> QuerySet[Batch]:
    return Batch.objects.filter(Q(annotators=annotator) | Q(annotators__isnull=True)).distinct().order_by("id")


def progress_counted(*, batch_id: int, annotator_id: int) -> dict[str, int]:
    """The annotator's submitted and skipped posts of the batch, counted from their claims."""
    return Assignment.objects.filter(annotator_id=annotator_id, post__batch_id=batch_id,
                                     gold_batch__isnull=True).aggregate(
        submitted=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
        skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)))


def batch_progress(*, annotator, batch: Batch) -> dict[str, int]:
    """How far this annotator is through the batch: done / (done + what is still available)."""
    return _progress_and_guideline(annotator=annotator, batch=batch)[0]


def _progress_and_guideline(*, annotator, batch: Batch) -> tuple[dict[str, int], int | None]:
    """The annotator's progress in the batch and the version of the guideline in force, in one
    statement of indexed reads: their progress counters (BatchProgress, kept by the services; counted
    once when the row is not there yet), the batch's post count and gold rate, their gold items served
    in it (issue 12: gold moves the bar like any post), and the guideline.

    Issue 20: no number here depends on which items were gold. The total is the batch's posts plus
    the annotator's gold quota (fixed from the start; the queue serves exactly that many, never
    more), less every skip: one less for any skipped item, gold or real. A withdrawn (taken-down)
    post is no work: the batch's posts are those the queue can still serve them, and the withdrawn
    ones they answered before (annotation/visibility/withdrawn.py `queue_posts`)."""
    with claim_cursor() as cursor:
        cursor.execute(_progress_sql(), [batch.pk, batch.pk, annotator.pk, batch.pk, annotator.pk, batch.pk,
                                         annotator.pk, batch.pk, batch.pk, annotator.pk])
        row = cursor.fetchone()
    submitted, skipped, total_posts, rate, served, gold_submitted, gold_skipped, guideline_version = row[:8]
    set_aside = (row[8] or 0) + (row[9] or 0)  # items set aside as too distressing, gold or real
    if submitted is None:
        counted = progress_counted(batch_id=batch.pk, annotator_id=annotator.pk)
        submitted, skipped = counted["submitted"], counted["skipped"]
    quota = gold_quota(annotator=annotator, rate=rate or 0.0, posts=total_posts, served=served)
    done, skipped = submitted + (gold_submitted or 0), skipped + (gold_skipped or 0)
    # An annotator can do each item at most once; skipped and set-aside items leave their total (a
    # set-aside one is no skip: not in `skipped`). (`done` passes the total only if a researcher
    # lowered the quota under what was served: retired gold, a lower rate.)
    total = max(total_posts + quota - skipped - set_aside, done)
    return {"done": done, "skipped": skipped, "total": total, "posts": total_posts}, guideline_version


def judgments_of(annotator) -> QuerySet[Judgment]:
    """The annotator's judgments, newest first, each with `item`: the id of their claim on the post
    (what the API shows instead of the post id)."""
    claim = Assignment.objects.filter(post_id=OuterRef("post_id"), annotator_id=OuterRef("annotator_id")).values("pk")
    return (Judgment.objects.filter(annotator=annotator).annotate(item=Subquery(claim[:1]))
            .select_related("post", "post__batch").order_by("-updated_at", "-id"))


def batch_for_annotator(annotator, batch_id: int) -> Batch:
    """The batch, if it is in the annotator's queue (NotFound otherwise, whether or not it exists)."""
    members = Batch.annotators.through.objects.filter(batch_id=OuterRef("pk"))
    batch = Batch.objects.filter(pk=batch_id).annotate(  # one query: the batch and whether it is mine
        mine=Exists(members.filter(user_id=annotator.pk)), open_to_all=~Exists(members)).first()
    if batch is None or not (batch.mine or batch.open_to_all):
        raise NotFound(_("No such batch in your queue."))
    return batch


_Prepared = None  # psycopg's server-side binding cursor, asking to prepare every statement (made once)


def claim_cursor():
    """The cursor the claim path's statements run on. On PostgreSQL each statement is prepared once
    per connection (server-side binding) and then only executed: the server plans the context read,
    a dozen joins and subqueries, in about the time it takes to run it, on every call otherwise.
    Elsewhere (SQLite), and wherever queries are being captured (DEBUG, tests that read the
    statements), Django's own cursor, so the log holds each statement's text."""
    global _Prepared
    if connection.vendor != "postgresql" or connection.queries_logged:
        return connection.cursor()
    from django.db.backends.postgresql.base import TIMESTAMPTZ_OID
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg.pq import Format

    if _Prepared is None:
        from psycopg import Cursor
        from psycopg.errors import FeatureNotSupported

        class Prepared(Cursor):
            def execute(self, query, params=None, *, prepare=None, binary=None):
                try:
                    return super().execute(query, params, prepare=True, binary=binary)
                except FeatureNotSupported:
                    # "cached plan must not change result type": a migration changed a column under
                    # a prepared statement, and the server refuses it on this connection from now
                    # on. This call fails; the connection is closed when the request ends.
                    connection.close_at = 0
                    raise

        _Prepared = Prepared
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    with connection.wrap_database_errors:
        cursor = _Prepared(connection.connection)
        if connection.timezone != connection.connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT).timezone:
            register_tzloader(connection.timezone, cursor)  # as Django's own cursors do
        return connection._prepare_cursor(cursor)


# --- The claim path's reads, as SQL -----------------------------------------------------------------
# "next" runs on every scoring step. The ORM spends 0.5-2 ms of CPU building each statement; the few
# statements below are written out once (plain SQL that SQLite and PostgreSQL both run; the row lock
# is PostgreSQL's) and cost a round trip each. Table names come from the models. Boolean tests are
# written as constants (NOT a.lapsed), never parameters, so a prepared statement's generic plan can
# still use the partial index of open claims (WHERE status = 'assigned' AND NOT lapsed).
_A, _P, _B = Assignment._meta.db_table, Post._meta.db_table, Batch._meta.db_table
_M, _Q = Batch.annotators.through._meta.db_table, BatchQuality._meta.db_table
_BP, _G = BatchProgress._meta.db_table, Guideline._meta.db_table
_ASSIGNED = AssignmentStatus.ASSIGNED.value
_SET_ASIDE = AssignmentStatus.SET_ASIDE.value  # "too distressing" (wellbeing/): by the (annotator, status) index
_BATCH_FIELDS = ["id", "name", "annotators_per_post", "assignment_timeout_minutes", "locked_at", "created_at"]

_CLAIM_CONTEXT_SQL = f"""
SELECT b.id, b.name, b.annotators_per_post, b.assignment_timeout_minutes, b.locked_at, b.created_at,
  EXISTS (SELECT 1 FROM {_M} m WHERE m.batch_id = b.id AND m.user_id = %s),
  EXISTS (SELECT 1 FROM {_M} m WHERE m.batch_id = b.id),
  q.gold_rate, q.qualification_required,
  (SELECT MAX(a.assigned_at) FROM {_A} a INNER JOIN {_P} p ON p.id = a.post_id
    WHERE a.annotator_id = %s AND a.status = '{_ASSIGNED}' AND NOT a.lapsed AND a.gold_batch_id IS NULL
      AND p.batch_id = b.id),
  (SELECT a.assigned_at FROM {_A} a INNER JOIN {_P} p ON p.id = a.post_id
    WHERE a.status = '{_ASSIGNED}' AND NOT a.lapsed AND a.gold_batch_id IS NULL AND p.batch_id = b.id
    ORDER BY a.assigned_at LIMIT 1),
  (SELECT a.id FROM {_A} a WHERE a.annotator_id = %s AND a.gold_batch_id = b.id AND a.status = '{_ASSIGNED}'
    ORDER BY a.assigned_at, a.id LIMIT 1)
FROM {_B} b LEFT OUTER JOIN {_Q} q ON q.batch_id = b.id
WHERE b.id = %s"""


# The guideline in force (annotation/selectors.py guideline_current), as a scalar subquery.
_GUIDELINE_SQL = f"(SELECT g.{{column}} FROM {_G} g WHERE g.is_active ORDER BY g.version DESC LIMIT 1)"

# The batch's posts that count for the annotator (visibility/withdrawn.py `queue_posts`, without reading
# the batch): its post count less the withdrawn posts they have not answered. Parameters: the batch,
# the batch, the annotator. `{{withdrawn}}` is the visibility policy's test (_progress_sql).
_QUEUE_POSTS_SQL = f"""(SELECT pb.post_count FROM {_B} pb WHERE pb.id = %s) - (SELECT COUNT(*) FROM {_P} p
    WHERE p.batch_id = %s AND {{withdrawn}} AND NOT EXISTS (
      SELECT 1 FROM {_A} w WHERE w.post_id = p.id AND w.annotator_id = %s AND COALESCE(w.gold_batch_id, 0) = 0
        AND w.status <> '{_ASSIGNED}'))"""

_PROGRESS_SQL = f"""
SELECT bp.submitted, bp.skipped,
  {_QUEUE_POSTS_SQL},
  (SELECT q.gold_rate FROM {_Q} q WHERE q.batch_id = %s),
  COUNT(a.id),
  SUM(CASE WHEN a.status = '{AssignmentStatus.SUBMITTED.value}' THEN 1 ELSE 0 END),
  SUM(CASE WHEN a.status = '{AssignmentStatus.SKIPPED.value}' THEN 1 ELSE 0 END),
  {_GUIDELINE_SQL.format(column="version")},
  SUM(CASE WHEN a.status = '{_SET_ASIDE}' THEN 1 ELSE 0 END),
  (SELECT COUNT(*) FROM {_A} s INNER JOIN {_P} sp ON sp.id = s.post_id
    WHERE s.annotator_id = %s AND s.status = '{_SET_ASIDE}' AND s.gold_batch_id IS NULL AND sp.batch_id = %s)
FROM (SELECT 1 AS one) x
  LEFT OUTER JOIN {_BP} bp ON bp.annotator_id = %s AND bp.batch_id = %s
  LEFT OUTER JOIN {_A} a ON a.gold_batch_id = %s AND a.annotator_id = %s
GROUP BY bp.submitted, bp.skipped"""


@cache
def _progress_sql() -> str:
    """The progress statement, with the visibility policy's test for withdrawn posts (made once,
    after the apps are loaded). The batch's posts are its count (Batch.post_count, kept by the
    database: annotation/counters.py) less the withdrawn ones the annotator has not answered: those
    few are found through their own partial index (post_withdrawn), so the rule costs nothing while a
    batch has none."""
    return _PROGRESS_SQL.format(withdrawn=withdrawn_sql("p"))


# The gold plan's numbers (quality/services.py gold_plan), one statement: the batch's posts as the
# progress bar counts them (the same fragment as _PROGRESS_SQL, so the gold quota is the one the bar
# shows), the annotator's claims in the batch (real ones on its posts and gold ones served in it) and
# the gold ones. The claims are found through the annotator's index and each one's post by its key (a
# scalar subquery, which the planner cannot turn into a join that reads the batch's posts, whatever
# the statistics): they grow with the annotator's own work, never with the batch (no index holds
# (annotator, batch); docs/hot_path.md).
_GOLD_COUNTS_SQL = f"""
SELECT {_QUEUE_POSTS_SQL},
  (SELECT COUNT(*) FROM {_A} a WHERE a.annotator_id = %s AND COALESCE(a.gold_batch_id, 0) = 0
    AND (SELECT p.batch_id FROM {_P} p WHERE p.id = a.post_id) = %s),
  (SELECT COUNT(*) FROM {_A} a WHERE a.annotator_id = %s AND a.gold_batch_id = %s)"""


@cache
def _gold_counts_sql() -> str:
    return _GOLD_COUNTS_SQL.format(withdrawn=withdrawn_sql("p"))


def gold_counts(*, annotator, batch: Batch) -> tuple[int, int, int]:
    """(posts, claims, served) for the gold plan: the batch's posts that count for the annotator
    (as the progress bar counts them: `queue_posts`, from the batch's post count), every claim they
    made in the batch (real and gold), and the gold items served to them in it."""
    with claim_cursor() as cursor:
        cursor.execute(_gold_counts_sql(), [batch.pk, batch.pk, annotator.pk, annotator.pk, batch.pk,
                                            annotator.pk, batch.pk])
        posts, real, served = cursor.fetchone()
    return posts or 0, real + served, served


@dataclass(frozen=True)
class ClaimContext:
    """Everything "next" decides from before it looks for a post, read in one statement."""

    batch: Batch
    gold_rate: float  # 0 without a BatchQuality row
    qualification_required: bool
    newest_open_at: datetime | None  # when the annotator's newest open real claim in the batch was made
    oldest_open_at: datetime | None  # the batch's oldest open real claim, anyone's: are there expired ones?
    open_gold_id: int | None  # the annotator's unanswered gold item served in this batch

    @property
    def needs_gold_plan(self) -> bool:
        return self.gold_rate > 0 or self.qualification_required or self.open_gold_id is not None


def _datetime(value) -> datetime | None:
    """A timestamp as the backend returned it (SQLite: naive UTC, as text or datetime) as an aware datetime."""
    if value is None:
        return None
    parsed = value if isinstance(value, datetime) else parse_datetime(value)
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, dt_timezone.utc)


def claim_context(*, annotator, batch_id: int) -> ClaimContext:
    """The batch (NotFound unless it is in the annotator's queue), its quality settings, the
    annotator's open claims in it and whether any claim in it may have expired: one statement."""
    with claim_cursor() as cursor:
        cursor.execute(_CLAIM_CONTEXT_SQL, [annotator.pk, annotator.pk, annotator.pk, batch_id])
        row = cursor.fetchone()
    if row is None or not (row[6] or not row[7]):
        raise NotFound(_("No such batch in your queue."))
    values = list(row[:6])
    values[4], values[5] = _datetime(values[4]), _datetime(values[5])
    batch = Batch.from_db(connection.alias, _BATCH_FIELDS, values)
    return ClaimContext(batch=batch, gold_rate=row[8] or 0.0, qualification_required=bool(row[9]),
                        newest_open_at=_datetime(row[10]), oldest_open_at=_datetime(row[11]), open_gold_id=row[12])


# The pick: the next post of the batch with room, fewest live claims first. Its conditions, written
# once for both forms below (`{batch}` ... are the parameters' SQL: placeholders, or the function's
# arguments). Left out: withdrawn posts (rule 4, the post's own flag: the pick's index holds only the
# posts that can be served), posts the annotator holds or held, except their own lapsed claims
# (resumable while the post has room), and `exclude` (posts this call already looked at).
_PICK_SQL = f"""
SELECT p.id, p.text, p.live_claims FROM {_P} p
WHERE p.batch_id = {{batch}} AND NOT {{withdrawn}} AND p.live_claims < {{k}} {{not_tried}}
  AND NOT EXISTS (SELECT 1 FROM {_A} a WHERE a.post_id = p.id AND a.annotator_id = {{annotator}}
                  AND NOT (a.status = '{_ASSIGNED}' AND a.lapsed AND a.gold_batch_id IS NULL))
ORDER BY p.live_claims, p.id LIMIT 1{{lock}}"""

PICK_FUNCTION = "annotation_claim_pick"
# The plan the pick must have whatever the tables' statistics say (issue 27): a range scan of the
# (batch, live_claims, id) index that stops at the first post passing the checks, each check an
# index probe. Without statistics (a database never analysed, or a generic plan made while the
# tables were small) the planner may instead read and sort the whole batch, or hash every claim the
# annotator ever made, on every step; these settings, in force inside the function only, leave it
# no other plan. (PostgreSQL has no per-statement hints; a function's SET clause is the scoped way.)
PICK_PLANNER_SETTINGS = {"enable_sort": "off", "enable_incremental_sort": "off", "enable_seqscan": "off",
                         "enable_bitmapscan": "off", "enable_hashjoin": "off", "enable_mergejoin": "off",
                         "enable_material": "off"}


def pick_function_sql() -> str:
    """CREATE OR REPLACE of the pick as a PL/pgSQL function (PostgreSQL): the same statement as the
    SQLite form, run under PICK_PLANNER_SETTINGS; PL/pgSQL keeps its plan per connection. Installed
    after every `migrate` (annotation/apps.py), so it always matches this code."""
    body = _PICK_SQL.format(batch="p_batch", k="p_k", annotator="p_annotator", withdrawn=withdrawn_sql("p"),
                            not_tried="AND p.id <> ALL (p_exclude)", lock=" FOR NO KEY UPDATE OF p SKIP LOCKED")
    settings = " ".join(f"SET {name} = {value}" for name, value in PICK_PLANNER_SETTINGS.items())
    return (f"CREATE OR REPLACE FUNCTION {PICK_FUNCTION}(p_batch bigint, p_k integer, p_annotator integer, "
            f"p_exclude bigint[]) RETURNS TABLE (out_id bigint, out_text text, out_live_claims integer) "
            f"LANGUAGE plpgsql VOLATILE {settings} AS $pick$\nBEGIN\n  RETURN QUERY{body};\nEND\n$pick$")


def claim_candidates_sql(*, annotator, batch: Batch, exclude: tuple[int, ...] = ()) -> tuple[str, list]:
    """The pick (see _PICK_SQL), locked on PostgreSQL (posts locked by others are skipped): there, a
    call of the pick function (pick_function_sql); elsewhere (SQLite) the statement itself. The
    caller rechecks the post under its lock."""
    if connection.vendor == "postgresql":
        return (f"SELECT out_id, out_text, out_live_claims FROM {PICK_FUNCTION}(%s, %s, %s, %s::bigint[])",
                [batch.pk, batch.annotators_per_post, annotator.pk, list(exclude)])
    not_tried = f"AND p.id NOT IN ({', '.join(['%s'] * len(exclude))})" if exclude else ""
    sql = _PICK_SQL.format(batch="%s", k="%s", annotator="%s", withdrawn=withdrawn_sql("p"), not_tried=not_tried,
                           lock="")
    return sql, [batch.pk, batch.annotators_per_post, *exclude, annotator.pk]


_CLAIM_OF_SQL = f"""
SELECT a.id, a.post_id, a.status, a.lapsed, a.gold_batch_id, a.assigned_at, a.completed_at, p.text, p.batch_id,
  b.id, b.name, b.annotators_per_post, b.assignment_timeout_minutes, b.locked_at, b.created_at,
  gb.id, gb.name, gb.annotators_per_post, gb.assignment_timeout_minutes, gb.locked_at, gb.created_at,
  {_GUIDELINE_SQL.format(column="id")}, {_GUIDELINE_SQL.format(column="version")}
FROM {_A} a INNER JOIN {_P} p ON p.id = a.post_id
  LEFT OUTER JOIN {_B} b ON b.id = p.batch_id LEFT OUTER JOIN {_B} gb ON gb.id = a.gold_batch_id
WHERE a.annotator_id = %s AND a.{{column}} = %s"""


def _batch_from(values) -> Batch | None:
    if values[0] is None:
        return None
    values = list(values)
    values[4], values[5] = _datetime(values[4]), _datetime(values[5])
    return Batch.from_db(connection.alias, _BATCH_FIELDS, values)


def claim_of(annotator, *, post_id: int | None = None, claim_id: int | None = None
             ) -> tuple[Assignment, Guideline | None] | None:
    """The annotator's claim on a post, named by the post or by the claim's own id, with its post
    (id, text, batch), batch and gold batch, and the guideline in force (id and version): one
    statement, on every submit. None when the annotator holds no such claim."""
    column, value = ("post_id", post_id) if claim_id is None else ("id", claim_id)
    with claim_cursor() as cursor:
        cursor.execute(_CLAIM_OF_SQL.format(column=column), [annotator.pk, value])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, post_id, status, lapsed, gold_batch_id, assigned_at, completed_at, text, batch_id = row[:9]
    batch, gold_batch = _batch_from(row[9:15]), _batch_from(row[15:21])
    post = Post.from_db(connection.alias, ["id", "text", "batch_id"], [post_id, text, batch_id])
    post.batch = batch
    assignment = Assignment.from_db(
        connection.alias, ["id", "post_id", "annotator_id", "status", "assigned_at", "completed_at", "gold_batch_id",
                           "lapsed"],
        [pk, post_id, annotator.pk, status, _datetime(assigned_at), _datetime(completed_at), gold_batch_id,
         bool(lapsed)])
    assignment.post, assignment.annotator, assignment.gold_batch = post, annotator, gold_batch
    guideline = None if row[21] is None else Guideline.from_db(connection.alias, ["id", "version"], row[21:23])
    return assignment, guideline


_OPEN_CLAIM_SQL = f"""
SELECT a.id, a.post_id, a.assigned_at, p.text, p.live_claims FROM {_A} a INNER JOIN {_P} p ON p.id = a.post_id
WHERE a.annotator_id = %s AND p.batch_id = %s AND a.status = '{_ASSIGNED}' AND NOT a.lapsed
  AND a.gold_batch_id IS NULL AND a.assigned_at >= %s AND NOT {{withdrawn}}
ORDER BY a.assigned_at, a.id LIMIT 1"""


@cache
def _open_claim_sql() -> str:
    return _OPEN_CLAIM_SQL.format(withdrawn=withdrawn_sql("p"))


def open_claim(*, annotator, batch: Batch, since) -> Assignment | None:
    """The annotator's oldest open (unexpired: made at or after `since`) real claim in the batch,
    with its post, or None. A claim on a post withdrawn since it was made is never served again
    (recording the takedown deletes it: publication/takedowns.py `_open_claims_release`)."""
    with claim_cursor() as cursor:
        cursor.execute(_open_claim_sql(), [annotator.pk, batch.pk, connection.ops.adapt_datetimefield_value(since)])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, post_id, assigned_at, text, live_claims = row
    post = Post.from_db(connection.alias, ["id", "text", "batch_id", "live_claims"], [post_id, text, batch.pk, live_claims])
    post.batch = batch
    assignment = Assignment.from_db(
        connection.alias, ["id", "post_id", "annotator_id", "status", "assigned_at", "gold_batch_id", "lapsed"],
        [pk, post_id, annotator.pk, _ASSIGNED, _datetime(assigned_at), None, False])
    assignment.post, assignment.annotator = post, annotator
    return assignment


def post_claims(post_id: int, *, claim_id: int | None = None) -> list[tuple]:
    """The claims on one post (a handful of rows, by index): (id, annotator_id, status, lapsed,
    gold_batch_id, assigned_at). With `claim_id`: the post's real claims and that claim only, never
    the answers other annotators gave it as a gold item - a gold post served to many people would
    otherwise return many rows, and the time the read takes would count them (issue 20)."""
    # (COALESCE: the test is applied to the post's few rows, never through the gold_batch index, which
    # holds every real claim as NULL - a planner without statistics takes IS NULL for selective.)
    only = "" if claim_id is None else " AND (COALESCE(a.gold_batch_id, 0) = 0 OR a.id = %s)"
    with claim_cursor() as cursor:
        cursor.execute(f"SELECT a.id, a.annotator_id, a.status, a.lapsed, a.gold_batch_id, a.assigned_at "
                       f"FROM {_A} a WHERE a.post_id = %s{only}", [post_id] + ([] if claim_id is None else [claim_id]))
        return [(pk, who, status, bool(lapsed), gold, _datetime(at)) for pk, who, status, lapsed, gold, at in cursor]


def queue_item(*, annotator, batch: Batch, assignment: Assignment | None) -> dict:
    """What the annotator page shows next: the post (or none left), the batch state, progress."""
    progress, guideline_version = _progress_and_guideline(annotator=annotator, batch=batch)
    return {
        "item": assignment.pk if assignment else None,  # the claim, not the post (see serializers.item_field)
        "text": assignment.post.text if assignment else None,
        "batch": batch.id,
        "batch_locked": batch.is_locked,
        "progress": progress,
        "guideline_version": guideline_version,
    }


def locked_batch_feedback(*, annotator, batch_id: int) -> tuple[Batch, list[dict]] | None:
    """After a batch locks: every judgment the annotator made in its queue, in the order they were
    made, each beside its label (None before the batch locks). Answers to gold items served in the
    queue are rows like the others, labelled with the gold label, so this page and the judgments API
    list the same judgments and nothing can be subtracted to find the gold ones (issue 20). A post
    without a final label yet shows what the final-label rule would give: the rounded mean of its
    counted judgments, halves up.

    Through the visibility policy: a row whose post is hidden from the annotator (`hidden_posts`: a
    post of a qualification round they have still to pass, judged here in an older batch - its final
    label may be the gold label the round expects - or one they hold an unanswered claim on) keeps
    their judgment, as the judgments API lists it, but shows no label (None)."""
    from ..adjudication.rounding import rounded_mean
    from ..visibility import hidden_posts

    batch = Batch.objects.filter(pk=batch_id, locked_at__isnull=False).first()
    if batch is None:
        return None
    served_as_gold = Assignment.objects.filter(annotator=annotator, gold_batch=batch).values("post_id")
    judgments = list(Judgment.objects.filter(annotator=annotator).filter(
        Q(gold=False, post__batch=batch) | Q(gold=True, post_id__in=served_as_gold))
        .select_related("post", "post__gold_item").order_by("created_at", "id"))
    hidden = set(hidden_posts(annotator).filter(pk__in={j.post_id for j in judgments}).values_list("pk", flat=True))
    real = [j.post_id for j in judgments if not j.gold and j.post_id not in hidden]
    labels = {fl.post_id: fl.scores() for fl in FinalLabel.objects.filter(post__in=real)}
    counted: dict[int, list[tuple]] = {}
    for row in Judgment.objects.counted().filter(post__in=[p for p in real if p not in labels]).values_list(
            "post_id", *DIMENSIONS):
        counted.setdefault(row[0], []).append(row[1:])
    for post_id, rows in counted.items():
        labels[post_id] = {d: rounded_mean([r[i] for r in rows]) for i, d in enumerate(DIMENSIONS)}
    return batch, [{"judgment": j, "label": None if j.post_id in hidden else
                    j.post.gold_item.scores() if j.gold else labels.get(j.post_id)} for j in judgments]
