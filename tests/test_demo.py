"""`seed_demo` leaves the demo a few weeks in - every researcher page has something to show - and a
second run adds nothing."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.demo import DEMO_POSTS, OPEN_BATCH, WEEK1_BATCH, WEEK1_POSTS
from annotation.models import Batch, FinalLabel, Judgment, Post, Release
from calibration.models import PriorSnapshot
from modeling.models import Prediction, TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)
SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "chlgbt" / "chlgbt_sample.csv"


def state() -> dict:
    return {"posts": Post.objects.count(), "judgments": Judgment.objects.count(), "labels": FinalLabel.objects.count(),
            "releases": Release.objects.count(), "snapshots": PriorSnapshot.objects.count(),
            "runs": TrainingRun.objects.count(), "predictions": Prediction.objects.count()}


def test_seed_demo_is_a_group_a_few_weeks_in_and_idempotent(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    call_command("seed_demo", verbosity=0)

    week1, open_batch = Batch.objects.get(name=WEEK1_BATCH), Batch.objects.get(name=OPEN_BATCH)
    assert week1.is_locked and not open_batch.is_locked
    per_post = [Judgment.objects.filter(post=p).count() for p in Post.objects.filter(batch=week1)]
    assert per_post == [6] * len(WEEK1_POSTS)  # six annotators' judgments on every post
    labels = FinalLabel.objects.filter(post__batch=week1)
    assert labels.count() == len(WEEK1_POSTS)
    adjudicated = labels.filter(provenance="adjudicated")
    assert 0 < adjudicated.count() < len(WEEK1_POSTS) and all(fl.rationale for fl in adjudicated)

    release, public, latest = Release.objects.order_by("number")
    assert release.number == 1 and release.summary["posts"] == len(WEEK1_POSTS)
    assert PriorSnapshot.objects.filter(release=release).exists()
    runs = TrainingRun.objects.filter(release=release)
    assert sorted(runs.values_list("variant", "status", "backbone")) == [
        ("baseline", "succeeded", "char-ngram"), ("full", "succeeded", "char-ngram")]
    full = runs.get(variant="full")
    assert any(full.metrics["fusion_table"].values()) and full.metrics["test"]["explicit"]["reliability"]
    assert Prediction.objects.filter(run=full, post__batch=open_batch).count() == len(DEMO_POSTS)

    open_counts = [Judgment.objects.filter(post=p).count() for p in Post.objects.filter(batch=open_batch)]
    assert sum(open_counts) > 0 and min(open_counts) < 6  # still being scored
    assert not Judgment.objects.filter(post__batch=open_batch, annotator__username="annotator6").exists()

    # Every feature shows (issue 31, item 5): a content notice on the open batch that annotator6, who has
    # not started, meets first; rewrites, one confirmed; a public release of it; a takedown that the
    # next release's diff lists; that release leaves out the open batch's unfinished posts and counts them.
    from publication.models import Rewrite, Takedown
    from wellbeing.selectors import notice_pending

    users = {u.username: u for u in get_user_model().objects.all()}
    assert notice_pending(annotator=users["annotator6"], batch_id=open_batch.pk)
    assert not notice_pending(annotator=users["annotator1"], batch_id=open_batch.pk)
    assert sorted(Rewrite.objects.values_list("status", flat=True)) == ["confirmed", "draft", "submitted"]
    assert public.kind == "public" and public.summary["posts"] == 1
    (takedown,) = Takedown.objects.all()
    assert latest.kind == "internal" and latest.diff["taken_down_ids"] == [takedown.post_key]
    assert latest.summary["unfinished"]["left_out"] == len(DEMO_POSTS)  # none has six judgments yet
    card = (Path(latest.directory) / "DATACARD.md").read_text(encoding="utf-8")
    assert f"posts left out because their labels are not finished: {len(DEMO_POSTS)}" in card
    assert latest.summary["posts"] == len(WEEK1_POSTS) - 1

    before = state()
    call_command("seed_demo", verbosity=0)
    assert state() == before


def test_seed_demo_never_makes_an_erased_user_again(settings, tmp_path):
    from wellbeing.data_rights import annotator_erase

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    call_command("seed_demo", verbosity=0)
    erased = annotator_erase(username="annotator3", reason="demo request")
    before = state()
    call_command("seed_demo", verbosity=0)
    User = get_user_model()
    assert not User.objects.filter(username="annotator3").exists()
    assert User.objects.filter(username=erased.username, is_active=False).exists()
    assert state() == before  # and nobody scored anything new in their place


def test_demo_posts_are_our_own_text():
    texts = [text for text, *_ in [*WEEK1_POSTS, *DEMO_POSTS]]
    assert len(set(texts)) == len(texts)
    if not SAMPLE.exists():
        pytest.skip("the ChLGBT sample is not beside this checkout (../shared)")
    sample = SAMPLE.read_text(encoding="utf-8-sig")
    assert [t for t in texts if t in sample] == []
