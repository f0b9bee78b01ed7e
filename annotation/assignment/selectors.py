"""Reads for assignment and scoring: an annotator's batches, their progress, their own judgments, and
the queue item the annotator page shows. Everything here is filtered to the annotator asking."""
from __future__ import annotations

from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _

from core.errors import NotFound

from ..models import Assignment, AssignmentStatus, Batch, BatchProgress, FinalLabel, Judgment, Post
from ..quality.selectors import gold_progress
from ..selectors import guideline_current


def batches_for_annotator(annotator) -> QuerySet[Batch]:
    return Batch.objects.filter(Q(annotators=annotator) | Q(annotators__isnull=True)).distinct().order_by("id")


def progress_counted(*, batch_id: int, annotator_id: int) -> dict[str, int]:
    """The annotator's submitted and skipped posts of the batch, counted from their claims."""
    return Assignment.objects.filter(annotator_id=annotator_id, post__batch_id=batch_id,
                                     gold_batch__isnull=True).aggregate(
        submitted=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
        skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)))


def batch_progress(*, annotator, batch: Batch) -> dict[str, int]:
    """How far this annotator is through the batch: done / (done + what is still available).
    Two indexed reads: the annotator's progress counters (BatchProgress, kept by the services; counted
    once when the row is not there yet) and the number of posts in the batch."""
    row = BatchProgress.objects.filter(batch=batch, annotator=annotator).values("submitted", "skipped").first()
    counts = row or progress_counted(batch_id=batch.pk, annotator_id=annotator.pk)
    done, skipped = counts["submitted"], counts["skipped"]
    total_posts = batch.posts.count()
    # Gold items move the bar like any post (issue 12: the queue must not tell them apart).
    gold = gold_progress(annotator=annotator, batch=batch, real_total=total_posts - skipped)
    done, skipped = done + gold["submitted"], skipped + gold["skipped"]
    # An annotator can do each post at most once; skipped posts leave their total.
    total = max(total_posts + gold["planned"] - skipped, done)
    return {"done": done, "skipped": skipped, "total": total, "posts": total_posts}


def judgments_of(annotator) -> QuerySet[Judgment]:
    return Judgment.objects.filter(annotator=annotator).select_related("post", "post__batch").order_by("-updated_at", "-id")


def batch_for_annotator(annotator, batch_id: int) -> Batch:
    """The batch, if it is in the annotator's queue (NotFound otherwise, whether or not it exists)."""
    members = Batch.annotators.through.objects.filter(batch_id=OuterRef("pk"))
    batch = Batch.objects.filter(pk=batch_id).annotate(  # one query: the batch and whether it is mine
        mine=Exists(members.filter(user_id=annotator.pk)), open_to_all=~Exists(members)).first()
    if batch is None or not (batch.mine or batch.open_to_all):
        raise NotFound(_("No such batch in your queue."))
    return batch


def claim_candidates(*, annotator, batch: Batch) -> QuerySet:
    """Ids of the batch's posts with room, fewest live claims first: a range scan of the
    (batch, live_claims, id) index. Left out: posts the annotator holds or held, except their own
    lapsed claims (resumable while the post has room). The caller rechecks each under its lock."""
    mine = Assignment.objects.filter(post_id=OuterRef("pk"), annotator=annotator).exclude(
        status=AssignmentStatus.ASSIGNED, lapsed=True, gold_batch__isnull=True)
    return (Post.objects.filter(batch=batch, live_claims__lt=batch.annotators_per_post).filter(~Exists(mine))
            .order_by("live_claims", "id").values_list("pk", flat=True))


def queue_item(*, annotator, batch: Batch, assignment: Assignment | None) -> dict:
    """What the annotator page shows next: the post (or none left), the batch state, progress."""
    guideline = guideline_current()
    return {
        "post": assignment.post_id if assignment else None,
        "text": assignment.post.text if assignment else None,
        "batch": batch.id,
        "batch_locked": batch.is_locked,
        "progress": batch_progress(annotator=annotator, batch=batch),
        "guideline_version": guideline.version if guideline else None,
    }


def locked_batch_feedback(*, annotator, batch_id: int) -> tuple[Batch, list[dict]] | None:
    """After a batch locks: the annotator's own judgments beside the final labels (None before)."""
    batch = Batch.objects.filter(pk=batch_id, locked_at__isnull=False).first()
    if batch is None:
        return None
    judgments = list(Judgment.objects.counted().filter(annotator=annotator, post__batch=batch).select_related("post")
                     .order_by("post_id"))
    labels = {fl.post_id: fl for fl in FinalLabel.objects.filter(post__in=[j.post_id for j in judgments])}
    return batch, [{"judgment": j, "label": labels.get(j.post_id)} for j in judgments]
