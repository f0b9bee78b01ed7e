"""A world for the visibility policy's tests (issue 20): an open batch with a post *hidden* from a
person who annotates it and holds every other role, surrounded by everything made from its
judgments - notes, a flag, an adjudicated final label with a rationale, a model-based aggregate, a
prediction, a published release with gold.csv - each carrying a distinctive value to search for;
and a locked batch with a gold item that person must not be able to tell apart."""
from __future__ import annotations

import pytest
from django.test import Client

HIDDEN_EXTERNAL_ID = "hp-7c2e91"  # the hidden post's release key
HIDDEN_TEXT = "隐藏帖子 Q9-HIDDEN-TEXT"
NOTES = ("NOTE-ALICE-5d1f", "NOTE-BOB-8e3a")
RATIONALE = "RATIONALE-SECRET-4b7c"
AGGREGATE_CONFIDENCE = 0.271828
PREDICTION_PROBABILITY = 0.314159
GOLD_TEXT = "金标帖子 G7-GOLD-TEXT"
LLM_ANSWER = "LLM-ANSWER-SECRET-6f2a"  # an LLM run's raw answer about the hidden post (kept as a rater)


def secrets() -> tuple[str, ...]:
    """Strings that must appear in nothing the hidden post's blind viewer receives."""
    return (HIDDEN_EXTERNAL_ID, *NOTES, RATIONALE, str(AGGREGATE_CONFIDENCE)[:6], str(PREDICTION_PROBABILITY)[:6],
            LLM_ANSWER)


@pytest.fixture
def world(make_annotators, make_batch, make_user, roles, settings, tmp_path):
    from django.utils import timezone

    from annotation.assignment import services
    from annotation.models import (
        AggregateLabel,
        AggregationRun,
        Assignment,
        AssignmentStatus,
        FinalLabel,
        GoldItem,
        GoldSource,
        Judgment,
        Post,
        Provenance,
    )
    from annotation.releases.services import release_publish
    from core.jobs import JobStatus
    from core.permissions import Role
    from modeling.models import Prediction, TrainingRun

    settings.MEDIA_ROOT = str(tmp_path / "media")
    alice, bob, multi = make_annotators(3)
    multi.groups.add(roles[Role.ADJUDICATOR], roles[Role.RESEARCHER])
    multi.is_staff = True
    multi.save(update_fields=["is_staff"])
    adjudicator = make_user("plain-adjudicator", role=Role.ADJUDICATOR)

    # A locked batch: judged by alice and bob, one of its posts marked gold afterwards.
    old = make_batch(n_posts=3, k=2, name="old", annotators=[alice, bob])
    gold_post, *others = old.posts.order_by("id")
    for post in others:
        for who in (alice, bob):
            Judgment.objects.create(post=post, annotator=who, explicit=2, implicit=2, emotional=2)
    Judgment.objects.create(post=gold_post, annotator=bob, explicit=4, implicit=3, emotional=2)
    services.batch_lock(batch_id=old.pk)
    Post.objects.filter(pk=gold_post.pk).update(text=GOLD_TEXT)
    gold = GoldItem.objects.create(post=gold_post, explicit=4, implicit=3, emotional=2, source=GoldSource.UPLOAD)

    # The open batch: alice and bob judged the hidden post, multi has not; alice was also served the
    # gold item in its queue and answered it (a gold judgment, as the queue records one).
    batch = make_batch(n_posts=2, k=3, name="open", annotators=[alice, bob, multi])
    now = timezone.now()
    Assignment.objects.create(post=gold_post, annotator=alice, gold_batch=batch, status=AssignmentStatus.SUBMITTED,
                              assigned_at=now, completed_at=now)
    Judgment.objects.create(post=gold_post, annotator=alice, explicit=4, implicit=3, emotional=1, gold=True)
    hidden = batch.posts.order_by("id").first()
    Post.objects.filter(pk=hidden.pk).update(external_id=HIDDEN_EXTERNAL_ID, text=HIDDEN_TEXT)
    hidden.refresh_from_db()
    judgments = [Judgment.objects.create(post=hidden, annotator=who, explicit=5, implicit=4, emotional=5, note=note,
                                         flagged=True) for who, note in zip((alice, bob), NOTES)]
    FinalLabel.objects.create(post=hidden, explicit=5, implicit=4, emotional=5, provenance=Provenance.ADJUDICATED,
                              adjudicator=adjudicator, rationale=RATIONALE)
    release = release_publish(bootstrap=0, include_gold=True)
    # After publishing (which fits its own aggregate): a distinctive aggregate and a prediction.
    run = AggregationRun.objects.create(status=JobStatus.SUCCEEDED)
    AggregateLabel.objects.update_or_create(post=hidden, defaults=dict(
        run=run, explicit=5, implicit=4, emotional=5, explicit_confidence=AGGREGATE_CONFIDENCE,
        implicit_confidence=AGGREGATE_CONFIDENCE, emotional_confidence=AGGREGATE_CONFIDENCE))
    training = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"])
    Prediction.objects.create(post=hidden, run=training, explicit=5,
                              probabilities={"explicit": {"before": [PREDICTION_PROBABILITY] * 5,
                                                          "after": [PREDICTION_PROBABILITY] * 5}})
    # An LLM run kept as a rater and in the aggregation, with a raw answer about the hidden post (issue 28).
    from llm.models import LLMAnswer, LLMRun, PromptTemplate

    template = PromptTemplate.objects.order_by("id").first()
    llm_run = LLMRun.objects.create(release=release, template=template, template_text=template.text,
                                    endpoint="http://127.0.0.1:9/v1", model_name="fake-llm", runs=1,
                                    status=JobStatus.SUCCEEDED, rater_enabled=True, rater_in_aggregation=True)
    LLMAnswer.objects.create(run=llm_run, run_index=0, post=hidden, post_key=HIDDEN_EXTERNAL_ID,
                             gold={"explicit": 5, "implicit": 4, "emotional": 5}, answer=LLM_ANSWER, parsed=True,
                             explicit=5, implicit=4, emotional=5, cache_key="k" * 64)
    return {"alice": alice, "bob": bob, "multi": multi, "adjudicator": adjudicator, "batch": batch, "old": old,
            "hidden": hidden, "judgments": judgments, "gold": gold, "release": release, "run": training,
            "llm_run": llm_run}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def body_of(response) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content
