"""Rule 4 of the visibility policy: withdrawn posts leave the open queues.

A post taken down (publication/takedowns.py: someone asked for it to be removed) is no longer work:
no annotator is served it - neither as a new claim nor as their open claim on it, nor as a gold item
(`gold_items_servable` goes through `in_queues`) - no adjudicator is offered it, and it is no pending
item in any progress figure. Recording the takedown releases the open (unanswered) claims on it in
the same transaction (publication/takedowns.py), gold claims too, so nobody's queue keeps a stale
claim on it. What was given for it stays (its judgments, revisions and final label are kept, and a
judgment already given counts as done), so nothing is lost and the figures of the posts already
judged do not move.

Where it is read: `Post.withdrawn`, set for good in the takedown's transaction (publication/takedowns.py,
beside the Takedown row that records the request), so every test below is a column of the post's own
row - no probe of the takedowns on the scoring step (issue 27, docs/hot_path.md).

- `withdrawn_posts()`: the ids of the posts taken down (a queryset of ids).
- `in_queues(queryset, post_field="post")`: the queryset less its rows about withdrawn posts ("pk"
  for a queryset of posts) - what every queue selection goes through.
- `withdrawn_sql(post_alias)`: the same test as SQL, for the claim path's hand-written statements
  (annotation/assignment/selectors.py): true when the post row `post_alias` was taken down.
- `queue_posts(batch, annotator)`: the batch's posts that count for `annotator`'s queue and progress:
  those not withdrawn, and withdrawn ones they already answered (submitted, skipped or set aside)."""
from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet

from ..models import Assignment, AssignmentStatus, Post


def withdrawn_posts() -> QuerySet:
    """The ids of the posts taken down."""
    return Post.objects.filter(withdrawn=True).values("pk")


def in_queues(queryset: QuerySet, *, post_field: str = "post") -> QuerySet:
    """`queryset` less its rows about withdrawn posts."""
    return queryset.filter(**{"withdrawn" if post_field == "pk" else f"{post_field}__withdrawn": False})


def withdrawn_sql(post_alias: str) -> str:
    """SQL that is true when the post row `post_alias` (an alias of the posts' table) was taken down."""
    return f"{post_alias}.withdrawn"


def queue_posts(*, batch, annotator) -> QuerySet[Post]:
    """The batch's posts that count for `annotator`: not withdrawn, or withdrawn after they answered
    it (a judgment given, a skip, a set-aside: done, or already out of their total)."""
    answered = Assignment.objects.filter(post_id=OuterRef("pk"), annotator=annotator, gold_batch__isnull=True
                                         ).exclude(status=AssignmentStatus.ASSIGNED)
    return Post.objects.filter(batch=batch).filter(Q(withdrawn=False) | Q(Exists(answered)))
