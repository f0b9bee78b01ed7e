"""Rule 4 of the visibility policy: withdrawn posts leave the open queues.

A post taken down (publication/takedowns.py: someone asked for it to be removed) is no longer work:
no annotator is served it - neither as a new claim nor as their open claim on it, nor as a gold item
(`gold_items_servable` goes through `in_queues`) - no adjudicator is offered it, and it is no pending
item in any progress figure. Recording the takedown releases the open (unanswered) claims on it in
the same transaction (publication/takedowns.py), gold claims too, so nobody's queue keeps a stale
claim on it. What was given for it stays (its judgments, revisions and final label are kept, and a
judgment already given counts as done), so nothing is lost and the figures of the posts already
judged do not move.

- `withdrawn_posts()`: the ids of the posts taken down (a queryset of ids; empty without the
  publication app).
- `in_queues(queryset, post_field="post")`: the queryset less its rows about withdrawn posts ("pk"
  for a queryset of posts) - what every queue selection goes through.
- `withdrawn_sql(post_column)`: the same test as SQL, for the claim path's hand-written statements
  (annotation/assignment/selectors.py): true when the post in `post_column` was taken down.
- `queue_posts(batch, annotator)`: the batch's posts that count for `annotator`'s queue and progress:
  those not withdrawn, and withdrawn ones they already answered (submitted, skipped or set aside)."""
from __future__ import annotations

from django.apps import apps
from django.db.models import Exists, OuterRef, Q, QuerySet

from ..models import Assignment, AssignmentStatus, Post


def _takedown_model():
    if not apps.is_installed("publication"):
        return None
    return apps.get_model("publication", "Takedown")


def withdrawn_posts() -> QuerySet:
    """The ids of the posts taken down."""
    model = _takedown_model()
    if model is None:
        return Post.objects.none().values("pk")
    return model.objects.filter(post__isnull=False).values("post_id")


def in_queues(queryset: QuerySet, *, post_field: str = "post") -> QuerySet:
    """`queryset` less its rows about withdrawn posts."""
    model = _takedown_model()
    if model is None:
        return queryset
    return queryset.filter(~Exists(model.objects.filter(post_id=OuterRef(post_field))))


def withdrawn_sql(post_column: str) -> str:
    """SQL that is true when the post `post_column` names was taken down (FALSE without the
    publication app). An indexed probe of the takedown table (its post foreign key)."""
    model = _takedown_model()
    if model is None:
        return "(1 = 0)"
    return f"EXISTS (SELECT 1 FROM {model._meta.db_table} td WHERE td.post_id = {post_column})"


def queue_posts(*, batch, annotator) -> QuerySet[Post]:
    """The batch's posts that count for `annotator`: not withdrawn, or withdrawn after they answered
    it (a judgment given, a skip, a set-aside: done, or already out of their total)."""
    answered = Assignment.objects.filter(post_id=OuterRef("pk"), annotator=annotator, gold_batch__isnull=True
                                         ).exclude(status=AssignmentStatus.ASSIGNED)
    model = _takedown_model()
    posts = Post.objects.filter(batch=batch)
    if model is None:
        return posts
    return posts.filter(Q(~Exists(model.objects.filter(post_id=OuterRef("pk")))) | Q(Exists(answered)))
