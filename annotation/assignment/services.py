"""Assignment and scoring: handing an annotator the next post of a batch (k annotators per post,
spread evenly, nobody twice), submitting, revising and skipping judgments, and locking a batch.
The annotator page, the REST API and the load tools all call these."""
from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone

from core.errors import Conflict, DomainError, NotFound

from ..models import Assignment, AssignmentStatus, Batch, Judgment, JudgmentRevision, Post
from ..scores import scores_validate
from ..selectors import guideline_current
from .selectors import batch_for_annotator

__all__ = ["Conflict", "DomainError", "NotFound", "PostTaken", "assignment_next", "assignment_skip", "batch_lock",
           "judgment_revise", "judgment_submit"]


class PostTaken(Conflict):
    """A late submission (on a skipped or expired claim) for a post that already has k annotators."""


def _live_claims(post_id: int, *, cutoff, exclude_annotator) -> int:
    """Submitted judgments and unexpired claims hold a slot; skipped and expired claims do not."""
    return Assignment.objects.filter(post_id=post_id).filter(
        Q(status=AssignmentStatus.SUBMITTED) | Q(status=AssignmentStatus.ASSIGNED, assigned_at__gte=cutoff)
    ).exclude(annotator=exclude_annotator).count()


@transaction.atomic
def assignment_next(*, annotator, batch_id: int) -> Assignment | None:
    """The annotator's open item in the batch, or a newly claimed one.

    A post takes k annotators; live assignments (not expired) and finished ones count toward k.
    Posts with the fewest claims go first, so coverage stays even. One assignment row per
    (post, annotator) ever, so nobody gets a post twice; an expired claim frees its slot for
    others and is resumed by its owner only if the slot is still free.
    """
    batch = batch_for_annotator(annotator, batch_id)
    if batch.is_locked:
        return None
    now = timezone.now()
    cutoff = now - timedelta(minutes=batch.assignment_timeout_minutes)
    open_item = (
        Assignment.objects.select_related("post")
        .filter(annotator=annotator, post__batch=batch, status=AssignmentStatus.ASSIGNED, assigned_at__gte=cutoff)
        .order_by("assigned_at", "id")
        .first()
    )
    if open_item:
        return open_item
    # Submitted judgments and fresh claims hold a slot; skipped and expired claims give it back.
    live = Q(assignments__status=AssignmentStatus.SUBMITTED) | Q(
        assignments__status=AssignmentStatus.ASSIGNED, assignments__assigned_at__gte=cutoff
    )
    mine = Assignment.objects.filter(annotator=annotator, post__batch=batch)
    # Resume my own expired claim first if its post still has room.
    expired_mine = list(mine.filter(status=AssignmentStatus.ASSIGNED, assigned_at__lt=cutoff).values_list("post_id", flat=True))
    candidates = (
        Post.objects.filter(batch=batch)
        .exclude(pk__in=mine.exclude(post_id__in=expired_mine).values("post_id"))
        .annotate(claims=Count("assignments", filter=live))
        .filter(claims__lt=batch.annotators_per_post)
        .order_by("claims", "id")
        .values_list("pk", flat=True)[:20]
    )
    for post_id in list(candidates):
        # Lock the post row so two annotators cannot both take its last slot.
        # NO KEY UPDATE: does not block concurrent judgment inserts (their FK check takes KEY SHARE).
        locked = Post.objects.select_for_update(skip_locked=True, no_key=True).filter(pk=post_id).first()
        if locked is None:
            continue
        if _live_claims(post_id, cutoff=cutoff, exclude_annotator=annotator.pk) >= batch.annotators_per_post:
            continue
        assignment, created = Assignment.objects.get_or_create(
            post_id=post_id, annotator=annotator, defaults={"assigned_at": now}
        )
        if not created:
            assignment.assigned_at = now
            assignment.save(update_fields=["assigned_at"])
        assignment.post = locked
        return assignment
    return None


def _ensure_room_for_late_submission(assignment: Assignment) -> None:
    """A claim that was skipped or has expired no longer holds a slot: the submission is accepted
    only while the post still has room, so a post never gets more than k judgments."""
    batch = assignment.post.batch
    if batch is None or assignment.status == AssignmentStatus.SUBMITTED:
        return
    # The same row lock assignment_next takes before handing out a slot, taken before the claim's
    # liveness is read: a claim expiring between this check and the commit cannot have its slot
    # handed to someone else meanwhile.
    Post.objects.select_for_update(no_key=True).filter(pk=assignment.post_id).first()
    cutoff = timezone.now() - timedelta(minutes=batch.assignment_timeout_minutes)
    if assignment.status == AssignmentStatus.ASSIGNED and assignment.assigned_at >= cutoff:
        return  # a live claim: its slot is reserved
    if _live_claims(assignment.post_id, cutoff=cutoff, exclude_annotator=assignment.annotator_id) \
            >= batch.annotators_per_post:
        raise PostTaken("This post went to another annotator while it was open here (your claim had expired "
                        "or you skipped it), and it already has all the judgments it needs. "
                        "Your judgment was not saved.")


def _assignment_for(annotator, post_id: int) -> Assignment:
    assignment = Assignment.objects.select_related("post__batch").filter(annotator=annotator, post_id=post_id).first()
    if assignment is None:
        raise NotFound("This post is not in your queue.")
    if assignment.post.batch and assignment.post.batch.is_locked:
        raise DomainError("This batch is locked; judgments can no longer change.")
    return assignment


def _record_revision(judgment: Judgment, changed_by, old: dict, new: dict) -> None:
    if old != new:
        JudgmentRevision.objects.create(judgment=judgment, changed_by=changed_by, old=old, new=new,
                                        guideline=judgment.guideline)


def _judgment_state(judgment: Judgment) -> dict:
    return {**judgment.scores(), "note": judgment.note, "flagged": judgment.flagged}


@transaction.atomic
def judgment_submit(*, annotator, post_id: int, scores: dict[str, int], seconds_spent: float = 0.0,
                    note: str = "", flagged: bool = False) -> Judgment:
    """Create the annotator's judgment for a post. Submitting again (a retry, or a change of mind
    before the batch locks) updates it and keeps the old values as a revision."""
    clean = scores_validate(scores)
    assignment = _assignment_for(annotator, post_id)
    if seconds_spent < 0 or seconds_spent > 86400:
        raise DomainError("seconds_spent must be between 0 and 86400.")
    _ensure_room_for_late_submission(assignment)
    guideline = guideline_current()
    try:
        with transaction.atomic():
            judgment = Judgment.objects.create(post_id=post_id, annotator=annotator, seconds_spent=seconds_spent,
                                               note=note, flagged=flagged, guideline=guideline, **clean)
    except IntegrityError:
        judgment = Judgment.objects.select_for_update().get(post_id=post_id, annotator=annotator)
        old = _judgment_state(judgment)
        for dim, value in clean.items():
            setattr(judgment, dim, value)
        judgment.note, judgment.flagged = note, flagged
        judgment.seconds_spent += seconds_spent
        judgment.guideline = guideline
        judgment.save()
        _record_revision(judgment, annotator, old, _judgment_state(judgment))
    if assignment.status != AssignmentStatus.SUBMITTED:
        assignment.status = AssignmentStatus.SUBMITTED
        assignment.completed_at = timezone.now()
        assignment.save(update_fields=["status", "completed_at"])
    return judgment


@transaction.atomic
def judgment_revise(*, annotator, judgment_id: int, scores: dict[str, int] | None = None,
                    note: str | None = None, flagged: bool | None = None, seconds_spent: float = 0.0) -> Judgment:
    judgment = Judgment.objects.select_for_update().filter(pk=judgment_id, annotator=annotator).first()
    if judgment is None:
        raise NotFound("No such judgment of yours.")
    _assignment_for(annotator, judgment.post_id)
    old = _judgment_state(judgment)
    if scores:
        merged = {**judgment.scores(), **scores}
        for dim, value in scores_validate(merged).items():
            setattr(judgment, dim, value)
    if note is not None:
        judgment.note = note
    if flagged is not None:
        judgment.flagged = flagged
    judgment.seconds_spent += max(0.0, seconds_spent)
    judgment.guideline = guideline_current()
    judgment.save()
    _record_revision(judgment, annotator, old, _judgment_state(judgment))
    return judgment


@transaction.atomic
def assignment_skip(*, annotator, post_id: int) -> Assignment:
    """Skipping gives the slot back to the pool and never shows the post to this annotator again."""
    assignment = _assignment_for(annotator, post_id)
    if assignment.status == AssignmentStatus.SUBMITTED:
        raise DomainError("You already judged this post; revise it instead of skipping.")
    assignment.status = AssignmentStatus.SKIPPED
    assignment.completed_at = timezone.now()
    assignment.save(update_fields=["status", "completed_at"])
    return assignment


@transaction.atomic
def batch_lock(*, batch_id: int) -> Batch:
    batch = Batch.objects.select_for_update().get(pk=batch_id)
    if batch.locked_at is None:
        batch.locked_at = timezone.now()
        batch.save(update_fields=["locked_at"])
    return batch
