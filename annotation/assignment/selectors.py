"""Reads for assignment and scoring: an annotator's batches, their progress, their own judgments, and
the queue item the annotator page shows. Everything here is filtered to the annotator asking."""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from core.errors import NotFound

from ..models import Assignment, AssignmentStatus, Batch, FinalLabel, Judgment
from ..selectors import guideline_current


def batches_for_annotator(annotator) -> QuerySet[Batch]:
    return Batch.objects.filter(Q(annotators=annotator) | Q(annotators__isnull=True)).distinct().order_by("id")


def batch_progress(*, annotator, batch: Batch) -> dict[str, int]:
    """How far this annotator is through the batch: done / (done + what is still available)."""
    counts = Assignment.objects.filter(annotator=annotator, post__batch=batch).aggregate(
        done=Count("id", filter=Q(status=AssignmentStatus.SUBMITTED)),
        skipped=Count("id", filter=Q(status=AssignmentStatus.SKIPPED)),
    )
    total_posts = batch.posts.count()
    # An annotator can do each post at most once; skipped posts leave their total.
    total = max(total_posts - counts["skipped"], counts["done"])
    return {"done": counts["done"], "skipped": counts["skipped"], "total": total, "posts": total_posts}


def judgments_of(annotator) -> QuerySet[Judgment]:
    return Judgment.objects.filter(annotator=annotator).select_related("post", "post__batch").order_by("-updated_at", "-id")


def batch_for_annotator(annotator, batch_id: int) -> Batch:
    """The batch, if it is in the annotator's queue (NotFound otherwise, whether or not it exists)."""
    batch = Batch.objects.filter(pk=batch_id).first()
    if batch is None or not (batch.annotators.filter(pk=annotator.pk).exists() or not batch.annotators.exists()):
        raise NotFound("No such batch in your queue.")
    return batch


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
    judgments = list(Judgment.objects.filter(annotator=annotator, post__batch=batch).select_related("post")
                     .order_by("post_id"))
    labels = {fl.post_id: fl for fl in FinalLabel.objects.filter(post__in=[j.post_id for j in judgments])}
    return batch, [{"judgment": j, "label": labels.get(j.post_id)} for j in judgments]
