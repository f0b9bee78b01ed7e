"""Wellbeing writes: accepting a batch's content notice, and setting a post aside as too distressing
to score (its claim goes back to the pool; neither a skip nor a judgment; never served to this
annotator again)."""
from __future__ import annotations

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from annotation.assignment.selectors import claim_cursor
from annotation.models import Assignment, AssignmentStatus, Batch, Post
from core.errors import DomainError, NotFound

from .models import BatchWellbeing, NoticeAcceptance

_A, _P, _B = Assignment._meta.db_table, Post._meta.db_table, Batch._meta.db_table
_ASSIGNED, _SET_ASIDE = AssignmentStatus.ASSIGNED.value, AssignmentStatus.SET_ASIDE.value

# The claim is the annotator's, still open (assigned: live or lapsed), and its batch (the one a gold
# item was served in) is not locked.
_CLAIM_OPEN = f"""a.id = %s AND a.annotator_id = %s AND a.status = '{_ASSIGNED}'
  AND NOT EXISTS (SELECT 1 FROM {_P} p INNER JOIN {_B} b ON b.id = COALESCE(a.gold_batch_id, p.batch_id)
                  WHERE p.id = a.post_id AND b.locked_at IS NOT NULL)"""

# PostgreSQL: one statement. The post's row lock is taken first (an InitPlan, before the claim's row
# is touched), as every change to who holds a post's slots does (annotation/assignment/services.py,
# post then claim); the claim becomes set_aside; the post's live-claim counter, exact under that lock,
# loses the slot the claim held (a lapsed claim or a gold item held none).
_SET_ASIDE_PG = f"""
WITH post_lock AS (
  SELECT p.id FROM {_P} p WHERE p.id = (SELECT a.post_id FROM {_A} a WHERE a.id = %s AND a.annotator_id = %s)
  FOR NO KEY UPDATE),
released AS (
  UPDATE {_A} a SET status = '{_SET_ASIDE}', completed_at = %s
  WHERE {_CLAIM_OPEN} AND EXISTS (SELECT 1 FROM post_lock)
  RETURNING a.post_id, a.lapsed, a.gold_batch_id),
counter AS (
  UPDATE {_P} p SET live_claims = p.live_claims - 1 FROM released r
  WHERE p.id = r.post_id AND NOT r.lapsed AND r.gold_batch_id IS NULL AND p.live_claims > 0
  RETURNING p.id)
SELECT (SELECT COUNT(*) FROM released), (SELECT COUNT(*) FROM counter)"""

# Elsewhere (SQLite, whose writers are serialised by the IMMEDIATE transaction): two statements.
_SET_ASIDE_CLAIM = f"""UPDATE {_A} AS a SET status = '{_SET_ASIDE}', completed_at = %s WHERE {_CLAIM_OPEN}
RETURNING post_id, lapsed, gold_batch_id"""
_COUNTER_DOWN = f"UPDATE {_P} SET live_claims = live_claims - 1 WHERE id = %s AND live_claims > 0"


@transaction.atomic
def claim_set_aside(*, annotator, claim_id: int) -> None:
    """"Too distressing to score": the annotator's open claim (the queue item `claim_id`) is set
    aside. Its slot goes back to the pool at once, so another annotator is served the post; this
    annotator is never served it again (one claim per post and annotator, ever); it is neither a skip
    (BatchProgress, the skip counts) nor a judgment, so no quality figure or alert sees it."""
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with claim_cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_SET_ASIDE_PG, [claim_id, annotator.pk, now, claim_id, annotator.pk])
            released = cursor.fetchone()[0]
        else:
            cursor.execute(_SET_ASIDE_CLAIM, [now, claim_id, annotator.pk])
            row = cursor.fetchone()
            released = int(row is not None)
            if row is not None and not row[1] and row[2] is None:
                cursor.execute(_COUNTER_DOWN, [row[0]])
    if not released:
        _refusal(annotator=annotator, claim_id=claim_id)


def _refusal(*, annotator, claim_id: int):
    """Why nothing was set aside (the rare path: read only then)."""
    claim = Assignment.objects.select_related("post__batch", "gold_batch").filter(
        pk=claim_id, annotator=annotator).first()
    if claim is None:
        raise NotFound(_("This post is not in your queue."))
    batch = claim.gold_batch or claim.post.batch
    if batch is not None and batch.is_locked:
        raise DomainError(_("This batch is locked; judgments can no longer change."))
    if claim.status == AssignmentStatus.SET_ASIDE:
        return  # already set aside: a retry
    if claim.status == AssignmentStatus.SUBMITTED:
        raise DomainError(_("You already judged this post; it cannot be set aside any more."))
    raise DomainError(_("You skipped this post; it is no longer in your queue."))


@transaction.atomic
def notice_accept(*, annotator, batch_id: int) -> NoticeAcceptance:
    """The annotator accepts the batch's content notice (once; again is a no-op). Keeps the text they
    were shown, in the language they read it in."""
    settings_row = BatchWellbeing.objects.filter(batch_id=batch_id).first()
    if settings_row is None:
        raise NotFound(_("This batch has no content notice."))
    existing = NoticeAcceptance.objects.filter(batch_id=batch_id, annotator=annotator).first()
    if existing is not None:
        return existing
    language = get_language() or "en"
    try:
        with transaction.atomic():
            return NoticeAcceptance.objects.create(batch_id=batch_id, annotator=annotator, language=language,
                                                   notice_text=settings_row.notice(language))
    except IntegrityError:  # accepted in another tab meanwhile
        return NoticeAcceptance.objects.get(batch_id=batch_id, annotator=annotator)


@transaction.atomic
def batch_wellbeing_set(*, batch_id: int, **values) -> BatchWellbeing:
    """Create or change a batch's wellbeing settings (fields of BatchWellbeing)."""
    row, _created = BatchWellbeing.objects.select_for_update().get_or_create(batch_id=batch_id)
    for field, value in values.items():
        setattr(row, field, value)
    row.full_clean()
    row.save()
    return row
