"""Post.withdrawn, the takedown rule as the claim path reads it (issue 27): set in the takedown's
transaction, for exactly the posts a takedown names, and what every queue selection goes through."""
from __future__ import annotations

import pytest

from annotation.assignment import services
from annotation.models import Post
from annotation.visibility.withdrawn import in_queues, withdrawn_posts
from publication.takedowns import takedown_record

pytestmark = pytest.mark.django_db


def test_a_takedown_sets_the_flag_of_its_post_and_of_no_other(make_annotators, make_batch):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=4, k=1, annotators=[a])
    first, second = batch.posts.order_by("id")[:2]
    takedown_record(post=second, reason="asked by the author")
    assert set(Post.objects.filter(withdrawn=True).values_list("pk", flat=True)) == {second.pk}
    assert set(withdrawn_posts().values_list("pk", flat=True)) == {second.pk}
    assert set(in_queues(batch.posts.all(), post_field="pk").values_list("pk", flat=True)) == (
        set(batch.posts.values_list("pk", flat=True)) - {second.pk})
    served = set()
    while (item := services.assignment_next(annotator=a, batch_id=batch.id)) is not None:
        served.add(item.post_id)
        services.judgment_submit(annotator=a, post_id=item.post_id, scores={"explicit": 1, "implicit": 1,
                                                                           "emotional": 1})
    assert second.pk not in served and first.pk in served and len(served) == 3


def test_a_refused_takedown_leaves_the_flag_unset(make_batch):
    from core.errors import DomainError

    batch = make_batch(n_posts=1)
    post = batch.posts.get()
    with pytest.raises(DomainError):
        takedown_record(post=post, reason="  ")
    post.refresh_from_db()
    assert post.withdrawn is False
