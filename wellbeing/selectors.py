"""Wellbeing reads: the queue gate (content notice accepted? daily cap left?) read in one statement
on every queue request, the pacing the scoring page applies, and researchers' exposure figures."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from datetime import timezone as dt_timezone

from django.db import connection
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.utils import timezone

from annotation.assignment.selectors import claim_cursor
from annotation.models import DIMENSIONS, Assignment, AssignmentStatus, FinalLabel, Judgment

from .models import DEFAULT_BREAK_AFTER_MINUTES, DEFAULT_BREAK_AFTER_POSTS, BatchWellbeing, NoticeAcceptance

# A post is high intensity when its final label, or else the mean of its judgments, reaches this on
# any dimension (issue 22).
HIGH_INTENSITY = 4

_W, _N, _J = BatchWellbeing._meta.db_table, NoticeAcceptance._meta.db_table, Judgment._meta.db_table

# One statement, indexed reads only: the batch's wellbeing row, whether this annotator accepted its
# notice, its daily cap and (only when there is one) how many posts they scored since midnight UTC,
# in any batch (a cap protects a person, whatever batch the posts came from). The count walks the
# (annotator, updated_at) index over today's rows.
_GATE_SQL = f"""
SELECT w.id, EXISTS (SELECT 1 FROM {_N} n WHERE n.batch_id = w.batch_id AND n.annotator_id = %s), w.daily_cap,
  CASE WHEN w.daily_cap IS NULL THEN NULL ELSE
    (SELECT COUNT(*) FROM {_J} j WHERE j.annotator_id = %s AND j.updated_at >= %s AND j.created_at >= %s) END
FROM (SELECT 1 AS one) x LEFT OUTER JOIN {_W} w ON w.batch_id = %s"""


@dataclass(frozen=True)
class Gate:
    notice_pending: bool  # the batch has a content notice this annotator has not accepted
    daily_cap: int | None
    scored_today: int | None

    @property
    def cap_left(self) -> int | None:
        """Posts the annotator may still score today (None: no cap)."""
        if self.daily_cap is None:
            return None
        return max(0, self.daily_cap - (self.scored_today or 0))


def day_start(now: datetime | None = None) -> datetime:
    now = now or timezone.now()
    return datetime.combine(now.astimezone(dt_timezone.utc).date(), time.min, tzinfo=dt_timezone.utc)


def queue_gate(*, annotator, batch_id: int) -> Gate:
    start = connection.ops.adapt_datetimefield_value(day_start())
    with claim_cursor() as cursor:
        cursor.execute(_GATE_SQL, [annotator.pk, annotator.pk, start, start, batch_id])
        row_id, accepted, cap, today = cursor.fetchone()
    return Gate(notice_pending=row_id is not None and not accepted, daily_cap=cap,
                scored_today=None if today is None else int(today))


def notice_pending(*, annotator, batch_id: int) -> bool:
    return queue_gate(annotator=annotator, batch_id=batch_id).notice_pending


def batch_wellbeing(batch_id: int) -> BatchWellbeing:
    """The batch's settings, or the defaults (unsaved) for a batch without a row."""
    return BatchWellbeing.objects.filter(batch_id=batch_id).first() or BatchWellbeing(batch_id=batch_id)


def pacing(batch_id: int) -> dict:
    """What the scoring page needs to offer breaks (in the page's language)."""
    row = batch_wellbeing(batch_id)
    return {"posts": row.break_after_posts or DEFAULT_BREAK_AFTER_POSTS,
            "minutes": row.break_after_minutes or DEFAULT_BREAK_AFTER_MINUTES,
            "message": row.break_message(), "resources": row.resources_url, "daily_cap": row.daily_cap}


# --- Exposure, for researchers ----------------------------------------------------------------------

def high_intensity_posts(post_ids) -> set[int]:
    """Of these posts, those whose final label (or, without one, the mean of its counted judgments)
    is at least HIGH_INTENSITY on any dimension."""
    post_ids = set(post_ids)
    labelled, high = set(), set()
    for label in FinalLabel.objects.filter(post_id__in=post_ids).only("post_id", *DIMENSIONS):
        labelled.add(label.post_id)
        if any((getattr(label, d) or 0) >= HIGH_INTENSITY for d in DIMENSIONS):
            high.add(label.post_id)
    sums: dict[int, dict[str, list[int]]] = {}
    for row in Judgment.objects.filter(post_id__in=post_ids - labelled).values("post_id", *DIMENSIONS):
        per = sums.setdefault(row["post_id"], {d: [] for d in DIMENSIONS})
        for d in DIMENSIONS:
            if row[d] is not None:
                per[d].append(row[d])
    for post_id, per in sums.items():
        if any(values and sum(values) / len(values) >= HIGH_INTENSITY for values in per.values()):
            high.add(post_id)
    return high


@dataclass(frozen=True)
class ExposureDay:
    annotator_id: int
    username: str
    day: date
    posts: int
    high_intensity: int
    set_aside: int


def exposure(*, days: int = 30, annotator_id: int | None = None, now: datetime | None = None) -> list[ExposureDay]:
    """Per annotator and day (UTC): posts they scored (gold items included: they read them), how many
    of those were high intensity, and how many posts they set aside as too distressing."""
    since = day_start(now) - timedelta(days=days - 1)
    judgments = Judgment.objects.filter(created_at__gte=since)
    claims = Assignment.objects.filter(status=AssignmentStatus.SET_ASIDE, completed_at__gte=since)
    if annotator_id is not None:
        judgments, claims = judgments.filter(annotator_id=annotator_id), claims.filter(annotator_id=annotator_id)
    rows = list(judgments.annotate(day=TruncDate("created_at", tzinfo=dt_timezone.utc))
                .values_list("annotator_id", "annotator__username", "day", "post_id"))
    high = high_intensity_posts(post for *_rest, post in rows)
    table: dict[tuple[int, date], list] = {}
    for who, username, day, post_id in rows:
        entry = table.setdefault((who, day), [username, 0, 0, 0])
        entry[1] += 1
        entry[2] += post_id in high
    for row in (claims.annotate(day=TruncDate("completed_at", tzinfo=dt_timezone.utc))
                .values("annotator_id", "annotator__username", "day").annotate(n=Count("id"))):
        entry = table.setdefault((row["annotator_id"], row["day"]), [row["annotator__username"], 0, 0, 0])
        entry[3] += row["n"]
    return [ExposureDay(who, entry[0], day, entry[1], entry[2], entry[3])
            for (who, day), entry in sorted(table.items(), key=lambda item: (item[1][0], item[0][1]))]


def batches_without_notice():
    from annotation.models import Batch

    return Batch.objects.filter(locked_at__isnull=True, wellbeing__isnull=True).order_by("id")
