"""Issue 31, item 2: a release holds finished labels only - adjudicated and imported labels, posts
with k counted judgments or in a locked batch; the data card counts the rest and says why; a
researcher may include provisional labels, marked as such in every file that holds labels."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotation.importing.services import import_posts
from annotation.models import FinalLabel, Judgment, Post, Provenance, Release
from annotation.releases.services import release_publish
from core.errors import DomainError

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def campaign(make_batch, make_annotators):
    """A batch of k = 3 still open: post 0 judged three times (finished), post 1 once (not finished),
    post 2 once and adjudicated (finished), post 3 never; and one post imported with its labels."""
    annotators = make_annotators(3)
    batch = make_batch(n_posts=4, k=3, annotators=annotators)
    posts = list(batch.posts.order_by("pk"))
    for a in annotators:
        Judgment.objects.create(post=posts[0], annotator=a, explicit=2, implicit=2, emotional=3)
    Judgment.objects.create(post=posts[1], annotator=annotators[0], explicit=5, implicit=5, emotional=5)
    Judgment.objects.create(post=posts[2], annotator=annotators[1], explicit=1, implicit=1, emotional=1)
    FinalLabel.objects.create(post=posts[2], explicit=4, implicit=4, emotional=4, provenance=Provenance.ADJUDICATED,
                              rationale="clear case")
    import_posts("Sentences,Explicit,Implicit,Emotional\n导入的帖子,3,2,1\n".encode(), with_labels=True)
    return {"batch": batch, "posts": posts, "imported": Post.objects.get(text="导入的帖子")}


def _texts(release: Release) -> set[str]:
    folder = Path(release.directory)
    return {json.loads(line)["text"] for line in (folder / "release.jsonl").read_text().splitlines()}


def test_a_release_leaves_out_posts_still_being_scored_and_the_card_counts_them(campaign):
    posts = campaign["posts"]
    release = release_publish(bootstrap=0)
    assert _texts(release) == {posts[0].text, posts[2].text, "导入的帖子"}
    assert release.summary["posts"] == 3 and release.summary["unfinished"] == {"left_out": 1, "provisional": 0}
    card = (Path(release.directory) / "DATACARD.md").read_text()
    assert "## Finished labels" in card and "posts left out because their labels are not finished: 1" in card
    assert "k counted judgments" in card  # and why
    folder = Path(release.directory)
    assert (folder / "release.csv").read_bytes().decode().split("\r\n")[1] == "Sentences,Explicit,Implicit,Emotional"
    assert "provisional" not in pq.read_table(folder / "train.parquet").column_names
    assert all("provisional" not in json.loads(line) for line in (folder / "release.jsonl").read_text().splitlines())

    # the batch locks: its posts' labels are final, judged by however many there were
    campaign["batch"].locked_at = timezone.now()
    campaign["batch"].save(update_fields=["locked_at"])
    second = release_publish(bootstrap=0)
    assert _texts(second) == {posts[0].text, posts[1].text, posts[2].text, "导入的帖子"}
    assert second.summary["unfinished"]["left_out"] == 0 and second.diff["added"] == 1


def test_k_counted_judgments_finish_a_post_and_gold_answers_do_not_count(campaign, make_annotators):
    posts = campaign["posts"]
    extra = make_annotators(3, prefix="late")
    Judgment.objects.create(post=posts[1], annotator=extra[0], explicit=5, implicit=5, emotional=5)
    Judgment.objects.create(post=posts[1], annotator=extra[1], explicit=5, implicit=5, emotional=5, gold=True)
    assert posts[1].text not in _texts(release_publish(bootstrap=0))  # two counted of three
    Judgment.objects.create(post=posts[1], annotator=extra[2], explicit=4, implicit=5, emotional=5)
    assert posts[1].text in _texts(release_publish(bootstrap=0))


def test_provisional_labels_go_in_only_when_asked_and_are_marked_in_every_file(campaign):
    posts = campaign["posts"]
    release = release_publish(bootstrap=0, include_provisional=True)
    folder = Path(release.directory)
    assert release.summary["posts"] == 4 and release.summary["unfinished"] == {"left_out": 0, "provisional": 1}
    rows = [json.loads(line) for line in (folder / "release.jsonl").read_text().splitlines()]
    assert {r["text"]: r["provisional"] for r in rows} == {posts[0].text: False, posts[1].text: True,
                                                          posts[2].text: False, "导入的帖子": False}
    lines = (folder / "release.csv").read_bytes().decode().split("\r\n")
    assert "Provisional" in lines[0] and "1 of 4" in lines[0]
    table = {r["Sentences"]: r["Provisional"] for r in csv.DictReader(io.StringIO("\r\n".join(lines[1:])))}
    assert table[posts[1].text] == "1" and table[posts[0].text] == "0"
    parquet = [row for name in ("train.parquet", "test.parquet") for row in pq.read_table(folder / name).to_pylist()]
    assert {r["text"]: r["provisional"] for r in parquet}[posts[1].text] is True
    assert sum(r["provisional"] for r in parquet) == 1
    card = (folder / "DATACARD.md").read_text()
    assert "provisional labels included at the publisher's request: 1" in card
    assert "dtype: bool" in (folder / "README.md").read_text()


def test_nothing_finished_is_a_clear_refusal_that_names_the_option(make_batch, make_annotators):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=2, k=3, annotators=[a])
    for post in batch.posts.all():
        Judgment.objects.create(post=post, annotator=a, explicit=2, implicit=2, emotional=2)
    with pytest.raises(DomainError, match="2 posts are still being scored.*include provisional labels"):
        release_publish(bootstrap=0)
    assert not Release.objects.exists()
    assert release_publish(bootstrap=0, include_provisional=True).summary["unfinished"]["provisional"] == 2


def test_the_page_and_export_release_offer_the_option(campaign, make_user, client, tmp_path):
    call_command("export_release", str(tmp_path / "out"), "--bootstrap", "0", "--include-provisional")
    assert Release.objects.get().summary["unfinished"]["provisional"] == 1
    client.force_login(make_user("res", role="researcher"))
    page = client.get(reverse("review:releases")).content.decode()
    assert 'name="include_provisional"' in page
    client.post(reverse("review:releases"), {"seed": "1"})
    latest = Release.objects.order_by("-number").first()
    assert latest.number == 2 and latest.summary["unfinished"] == {"left_out": 1, "provisional": 0}
