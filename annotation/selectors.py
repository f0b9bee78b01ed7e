"""Reads for the annotation workflow. Everything an annotator can reach is filtered to themselves."""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from .models import AnnotatorProfile, Assignment, AssignmentStatus, Batch, Judgment


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


def pseudonym_fallback(user_id: int) -> str:
    """The name shown for an annotator who has no profile: never the username."""
    return f"A-{user_id}"


def annotator_pseudonyms(user_ids=None) -> dict[int, str]:
    """Pseudonym per annotator id (all profiles, or those of `user_ids`); look up with
    `.get(uid) or pseudonym_fallback(uid)`."""
    qs = AnnotatorProfile.objects.all() if user_ids is None else AnnotatorProfile.objects.filter(user_id__in=user_ids)
    return dict(qs.values_list("user_id", "pseudonym"))
