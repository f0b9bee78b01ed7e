"""The qualification round: a batch that requires it keeps its queue closed until the annotator
passes a fixed set scored against gold (threshold per dimension); a failed attempt shows the
annotator their scores beside gold and the rubric and waits for a researcher's reset; every
attempt is kept."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import DIMENSIONS, GoldItem, GoldSource, Post, QualificationAnswer, QualificationAttempt
from annotation.importing.parsers import sha256_text
from annotation.quality import selectors, services
from core.errors import Conflict, DomainError

pytestmark = pytest.mark.django_db
GOLD = [{"explicit": 1, "implicit": 2, "emotional": 3}, {"explicit": 4, "implicit": 4, "emotional": 5},
        {"explicit": 2, "implicit": 1, "emotional": 2}]


def gold_posts(n_or_labels=GOLD, prefix: str = "资格测试帖子") -> list[GoldItem]:
    items = []
    for i, labels in enumerate(n_or_labels):
        text = f"{prefix} {i}"
        post = Post.objects.create(text=text, raw_text=text, text_sha256=sha256_text(text))
        items.append(GoldItem.objects.create(post=post, source=GoldSource.UPLOAD, **labels))
    return items


@pytest.fixture
def qualifying(make_annotators, make_batch, make_user):
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=3, annotators=[annotator])
    items = gold_posts()
    services.batch_quality_set(batch_id=batch.pk, qualification_required=True,
                               qualification_post_ids=[g.post_id for g in items],
                               pass_max_mae={"explicit": 0.5, "implicit": 0.5, "emotional": 0.5})
    return annotator, batch, items, make_user("res", role="researcher")


def answers(items, shift: int = 0) -> dict[int, dict[str, int]]:
    return {g.post_id: {d: min(5, getattr(g, d) + shift) for d in DIMENSIONS} for g in items}


def test_fail_then_reset_then_pass_keeps_every_attempt(qualifying):
    annotator, batch, items, researcher = qualifying
    assert not selectors.qualification_state(annotator=annotator, batch=batch).queue_open
    with pytest.raises(services.NotQualified):
        services.qualification_gate(annotator=annotator, batch=batch)

    first = services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=answers(items, shift=1))
    # Every explicit and implicit score one too high; emotional 5 stays 5, so two of three are off.
    assert not first.passed and first.mae["explicit"] == 1 and first.mae["emotional"] == pytest.approx(2 / 3, abs=1e-4)
    state = selectors.qualification_state(annotator=annotator, batch=batch)
    assert state.awaiting_reset and not state.can_attempt
    with pytest.raises(Conflict):  # no retry before a researcher resets it
        services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=answers(items))

    # The set whose gold they saw cannot be retried (issue 31): the reset names it; a new set, then the reset.
    with pytest.raises(Conflict, match="3 of this batch's qualification items were shown"):
        services.qualification_reset(batch_id=batch.pk, annotator_id=annotator.pk, reset_by=researcher)
    fresh = gold_posts([{"explicit": 3, "implicit": 3, "emotional": 3}] * 2, prefix="新资格帖子")
    services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[g.post_id for g in fresh])
    services.qualification_reset(batch_id=batch.pk, annotator_id=annotator.pk, reset_by=researcher)
    items = fresh
    second = services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=answers(items))
    assert second.passed and second.number == 2
    services.qualification_gate(annotator=annotator, batch=batch)  # open now
    attempts = list(QualificationAttempt.objects.filter(annotator=annotator).order_by("number"))
    assert [(a.number, a.passed, a.reset_by_id) for a in attempts] == [(1, False, researcher.pk), (2, True, None)]
    assert QualificationAnswer.objects.filter(attempt=attempts[0]).count() == len(GOLD)
    with pytest.raises(Conflict):
        services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=answers(items))


def test_the_threshold_is_per_dimension(qualifying):
    annotator, batch, items, _ = qualifying
    off_on_emotional = answers(items)
    for g in items:
        off_on_emotional[g.post_id]["emotional"] = 5 if g.emotional < 4 else 1
    attempt = services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=off_on_emotional)
    assert not attempt.passed
    assert attempt.mae["explicit"] == 0 and attempt.mae["implicit"] == 0 and attempt.mae["emotional"] > 0.5


def test_every_post_of_the_set_must_be_scored_with_valid_scores(qualifying):
    annotator, batch, items, _ = qualifying
    partial = answers(items[:2])
    with pytest.raises(DomainError):
        services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=partial)
    bad = answers(items)
    bad[items[0].post_id]["explicit"] = 6
    with pytest.raises(DomainError):
        services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=bad)
    assert not QualificationAttempt.objects.exists()


def test_a_batch_without_qualification_is_open_and_refuses_attempts(make_annotators, make_batch):
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[annotator])
    assert selectors.qualification_state(annotator=annotator, batch=batch).queue_open
    with pytest.raises(DomainError):
        services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers={})


def test_requiring_qualification_needs_a_set(make_batch):
    batch = make_batch(n_posts=1)
    with pytest.raises(DomainError):
        services.batch_quality_set(batch_id=batch.pk, qualification_required=True)


def test_pages_redirect_fail_show_gold_and_the_rubric_then_reset_opens_a_retry(qualifying):
    annotator, batch, items, researcher = qualifying
    client = Client()
    client.force_login(annotator)
    annotate = reverse("annotation:annotate", args=[batch.pk])
    page = reverse("annotation:qualification", args=[batch.pk])
    assert client.get(annotate)["Location"] == page
    form = {f"score_{g.post_id}_{d}": 5 for g in items for d in DIMENSIONS}
    assert client.post(page, form).status_code == 302
    body = client.get(page).content.decode()
    assert 'id="review-items"' in body and 'id="awaiting-reset"' in body and 'id="qualification-form"' not in body
    for g in items:
        assert g.post.text in body and f"5 / {g.explicit}" in body  # mine beside gold
    assert "Rubric" in body and "<dt>5</dt>" in body  # the rubric beside them
    # the API says the same and never lists items while no attempt is allowed
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(annotator)
    state = api.get(reverse("api:api-qualification", args=[batch.pk])).json()
    assert state["awaiting_reset"] and state["items"] == [] and len(state["review"]) == len(items)

    researcher_client = Client()
    researcher_client.force_login(researcher)
    refused = researcher_client.post(reverse("review:quality-qualification-reset"),
                                     {"batch": batch.pk, "annotator": annotator.pk}, follow=True)
    assert any("were shown to this annotator" in str(m) for m in refused.context["messages"])  # the seen set
    assert QualificationAttempt.objects.get().reset_at is None
    items = gold_posts([{"explicit": 3, "implicit": 2, "emotional": 4}] * 2, prefix="新资格帖子")
    services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[g.post_id for g in items])
    reset = researcher_client.post(reverse("review:quality-qualification-reset"),
                                   {"batch": batch.pk, "annotator": annotator.pk})
    assert reset.status_code == 302
    good = {f"score_{g.post_id}_{d}": getattr(g, d) for g in items for d in DIMENSIONS}
    assert client.post(page, good)["Location"] == annotate
    assert client.get(annotate).status_code == 200
    assert [a.passed for a in QualificationAttempt.objects.order_by("number")] == [False, True]


def test_the_qualification_api_round_trip(qualifying, api_for):
    annotator, batch, items, researcher = qualifying
    api = api_for(annotator)
    url = reverse("api:api-qualification", args=[batch.pk])
    state = api.get(url).json()
    assert state["required"] and state["can_attempt"] and {i["post"] for i in state["items"]} == {g.post_id for g in items}
    assert all(set(i) == {"post", "text"} for i in state["items"])  # no gold label before an attempt
    body = {"answers": [{"post": pk, **scores} for pk, scores in answers(items).items()]}
    response = api.post(url, body, format="json")
    assert response.status_code == 201 and response.json()["passed"] is True
    assert api.post(url, body, format="json").status_code == 409
    listed = api_for(researcher).get(reverse("api:api-quality-qualifications"), {"batch": batch.pk}).json()
    assert [(a["username"], a["number"], a["passed"]) for a in listed] == [(annotator.username, 1, True)]


def test_an_emptied_qualification_set_refuses_attempts_instead_of_crashing(qualifying):
    """The admin can still empty a required set (or a later edit can): an attempt is refused with a
    reason, nothing is stored, and the page says so instead of failing."""
    annotator, batch, items, _ = qualifying
    batch.quality.qualification_items.clear()
    with pytest.raises(DomainError, match="empty"):
        services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers={})
    assert not QualificationAttempt.objects.exists()
    client = Client()
    client.force_login(annotator)
    page = reverse("annotation:qualification", args=[batch.pk])
    response = client.post(page, {}, follow=True)
    assert response.status_code == 200 and not QualificationAttempt.objects.exists()
    assert 'id="qualification-empty"' in response.content.decode()


def test_the_admin_refuses_a_required_round_without_a_set(qualifying, make_user):
    """Batch quality settings in the admin follow the service's rules: a required round needs its set,
    pass thresholds are MAEs from 0 to 4."""
    from annotation.models import BatchQuality

    annotator, batch, items, _ = qualifying
    admin = make_user("boss", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    url = reverse("admin:annotation_batchquality_change", args=[batch.quality.pk])
    form = {"batch": batch.pk, "gold_rate": "0.1", "qualification_required": "on", "pass_max_mae_explicit": "0.5",
            "pass_max_mae_implicit": "0.5", "pass_max_mae_emotional": "0.5"}
    response = client.post(url, form)  # no qualification_items
    assert response.status_code == 200 and "errornote" in response.content.decode()
    assert BatchQuality.objects.get(pk=batch.quality.pk).qualification_items.count() == len(items)
    response = client.post(url, {**form, "qualification_items": [g.pk for g in items], "pass_max_mae_implicit": "9"})
    assert response.status_code == 200 and BatchQuality.objects.get(pk=batch.quality.pk).pass_max_mae_implicit == 0.5
    response = client.post(url, {**form, "qualification_items": [g.pk for g in items[:1]]})
    assert response.status_code == 302
    quality = BatchQuality.objects.get(pk=batch.quality.pk)
    assert quality.gold_rate == 0.1 and list(quality.qualification_items.all()) == items[:1]


def test_a_retry_never_reuses_an_item_whose_gold_was_shown(qualifying):
    """Issue 31, item 9: after a failed attempt the annotator reads the set's gold; a reset is refused
    while the set still holds any of those items, even one of them, and a submission on them too."""
    annotator, batch, items, researcher = qualifying
    services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=answers(items, shift=1))
    fresh = gold_posts([{"explicit": 2, "implicit": 2, "emotional": 2}] * 2, prefix="另一组资格帖子")
    services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[items[0].post_id, *[g.post_id for g in fresh]])
    with pytest.raises(Conflict, match="1 of this batch's qualification items"):
        services.qualification_reset(batch_id=batch.pk, annotator_id=annotator.pk, reset_by=researcher)
    assert QualificationAttempt.objects.get().reset_at is None  # nothing changed
    services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[g.post_id for g in fresh])
    services.qualification_reset(batch_id=batch.pk, annotator_id=annotator.pk, reset_by=researcher)
    # the set changed back after the reset: the submission is refused as well
    services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[g.post_id for g in items])
    with pytest.raises(Conflict, match="gold labels you were shown"):
        services.qualification_submit(annotator=annotator, batch_id=batch.pk, answers=answers(items))
    assert QualificationAttempt.objects.count() == 1
