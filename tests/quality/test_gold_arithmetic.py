"""Issue 20, finding 4: gold items are invisible in the queue's arithmetic. The progress an annotator
is shown counts their gold quota from the first item (never "one more" when a gold item beyond a
plan is served), every submit moves `done` by one and every skip lowers `total` by one, gold or real,
and the queue serves exactly the quota."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Assignment
from annotation.quality import services

from .test_gold import upload_gold

pytestmark = pytest.mark.django_db
SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


def is_gold(item: int) -> bool:
    return Assignment.objects.get(pk=item).gold_batch_id is not None


def walk(api, batch, skip) -> list[tuple[str, bool, dict]]:
    """Work through the queue by the API: (action, was it gold, the progress answered) per step;
    `skip(step, gold)` says which items to skip."""
    steps, item = [], api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    steps.append(("start", False, item["progress"]))
    while item["item"] is not None:
        gold = is_gold(item["item"])
        if skip(len(steps), gold):
            item = api.post(reverse("api:api-queue-skip", args=[batch.pk]), {"item": item["item"]},
                            format="json").json()
            steps.append(("skip", gold, item["progress"]))
        else:
            item = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": item["item"], **SCORES},
                            format="json").json()["next"]
            steps.append(("submit", gold, item["progress"]))
        assert len(steps) < 200
    return steps


def test_the_total_moves_only_on_skips_by_one_gold_or_real_and_the_quota_is_served_exactly(
        make_annotators, make_batch, api_for):
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=24, k=1, annotators=[alice])
    upload_gold(30)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.25)  # quota: 24 x 0.25 / 0.75 = 8
    skipped_kinds: set[bool] = set()

    def skip(step: int, gold: bool) -> bool:  # the first gold and the first real item, then every 5th
        wanted = gold not in skipped_kinds or step % 5 == 0
        skipped_kinds.add(gold)
        return wanted

    steps = walk(api_for(alice), batch, skip)
    start = steps[0][2]
    assert start == {"done": 0, "skipped": 0, "total": 24 + 8}
    done = skipped = 0
    for action, _gold, progress in steps[1:]:
        done += action == "submit"
        skipped += action == "skip"
        assert progress == {"done": done, "skipped": skipped, "total": start["total"] - skipped}, (action, _gold)
    assert {gold for action, gold, _ in steps if action == "skip"} == {True, False}  # both kinds were skipped
    # Exactly the quota was served, and the bar ends full: the queue ends where the bar does.
    assert Assignment.objects.filter(annotator=alice, gold_batch=batch).count() == 8
    assert done + skipped == start["total"]


def test_never_more_gold_than_the_quota_even_when_every_draw_says_gold(make_annotators, make_batch, api_for,
                                                                       monkeypatch):
    """Before issue 20 the total was max(planned, served): each gold item past the plan raised it by
    one, exactly when it was served."""
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=9, k=1, annotators=[alice])
    upload_gold(20)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.25)  # quota: 9 x 0.25 / 0.75 = 3
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)
    steps = walk(api_for(alice), batch, lambda step, gold: False)
    assert {progress["total"] for _, _, progress in steps} == {12}
    assert [gold for _, gold, _ in steps[1:]] == [True] * 3 + [False] * 9


def test_a_skip_lowers_the_total_by_one_whether_the_item_was_gold_or_real(make_annotators, make_batch, api_for,
                                                                         monkeypatch):
    """Before issue 20 a real skip also lowered the planned gold (it was planned on the posts left),
    so the total fell by 2 for a real post and by 1 for a gold one."""
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=10, k=1, annotators=[alice])
    upload_gold(20)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)  # quota 10
    draws = iter([0.0, 0.99] * 20)  # gold, real, gold, real, ... while the quota lasts
    monkeypatch.setattr(services, "_keyed_draw", lambda message: next(draws))
    steps = walk(api_for(alice), batch, lambda step, gold: step <= 4)
    assert [(action, gold) for action, gold, _ in steps[1:5]] == [("skip", True), ("skip", False)] * 2
    totals = [progress["total"] for _, _, progress in steps[:5]]
    assert totals == [20, 19, 18, 17, 16]


def test_the_gold_draw_is_keyed_on_the_installation_secret(settings):
    """Finding 5 (helper 20c makes the embedded default's SECRET_KEY per installation): the draw is an
    HMAC under settings.SECRET_KEY of what anyone may know (batch, annotator, claim count), so it is
    reproducible for the installation and different under another key."""
    message = "gold:1:2:3"
    settings.SECRET_KEY = "k" * 50
    first = services._keyed_draw(message)
    assert services._keyed_draw(message) == first
    settings.SECRET_KEY = "another installation " * 3
    assert services._keyed_draw(message) != first
