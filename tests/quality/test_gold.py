"""Gold items: marked from adjudicated labels, a release or an upload; mixed into queues at the
batch's rate; never counted toward k, agreement, final labels, adjudication or releases; measured
per annotator (MAE, within one)."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.adjudication import selectors as adjudication
from annotation.adjudication import services as adjudication_services
from annotation.agreement.selectors import agreement_report, load_ratings
from annotation.assignment import services as queue
from annotation.models import (
    DIMENSIONS,
    Assignment,
    FinalLabel,
    GoldItem,
    GoldSource,
    Judgment,
    Post,
    Provenance,
)
from annotation.quality import selectors, services
from annotation.releases.services import release_publish
from core.errors import Conflict, DomainError

pytestmark = pytest.mark.django_db
GOLD_LABEL = {"explicit": 4, "implicit": 2, "emotional": 5}


def upload_gold(n: int, prefix: str = "金标准帖子", labels: dict = GOLD_LABEL) -> list[GoldItem]:
    lines = ["Sentences,Explicit,Implicit,Emotional"] + [
        f"{prefix} {i},{labels['explicit']},{labels['implicit']},{labels['emotional']}" for i in range(n)]
    return services.gold_upload(data="\n".join(lines).encode("utf-8"), filename="gold.csv")


def work_through(annotator, batch, scores=None) -> list[Assignment]:
    """The annotator claims and submits until nothing is left; the claims in order."""
    claims = []
    while (item := queue.assignment_next(annotator=annotator, batch_id=batch.pk)) is not None:
        claims.append(item)
        queue.judgment_submit(annotator=annotator, post_id=item.post_id,
                              scores=scores or {"explicit": 1, "implicit": 1, "emotional": 1}, seconds_spent=12)
    return claims


# --- Marking ------------------------------------------------------------------------------------------

def test_upload_creates_gold_posts_outside_any_batch_and_refuses_duplicates():
    items = upload_gold(3)
    assert [g.source for g in items] == [GoldSource.UPLOAD] * 3
    assert all(g.post.batch_id is None and g.scores() == GOLD_LABEL for g in items)
    with pytest.raises(Conflict):
        upload_gold(1)  # the same text again: already gold
    with pytest.raises(services.ImportFailed) as failed:
        services.gold_upload(data="Sentences\n没有标签的帖子\n".encode(), filename="x.csv")
    assert "labels" in str(failed.value.problems[0])


def test_gold_from_adjudicated_labels_only_once_their_batch_is_locked(make_batch, make_user):
    batch = make_batch(n_posts=2)
    post, other = batch.posts.order_by("id")
    adjudicator = make_user("adj", role="adjudicator")
    adjudication_services.post_adjudicate(adjudicator=adjudicator, post_id=post.pk, scores=GOLD_LABEL,
                                          rationale="clear", expected_version=0)
    with pytest.raises(DomainError, match="open batch"):
        services.gold_mark_from_adjudicated(post_ids=[post.pk])
    with pytest.raises(DomainError, match="No adjudicated label"):
        services.gold_mark_from_adjudicated(post_ids=[other.pk])
    queue.batch_lock(batch_id=batch.pk)
    (item,) = services.gold_mark_from_adjudicated(post_ids=[post.pk], created_by=adjudicator)
    assert item.source == GoldSource.ADJUDICATED and item.scores() == GOLD_LABEL


def test_gold_from_a_release_by_key_or_by_seeded_sample(make_batch, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    batch = make_batch(n_posts=6)
    for i, post in enumerate(batch.posts.order_by("id")):
        FinalLabel.objects.create(post=post, provenance=Provenance.IMPORTED, explicit=1 + i % 5, implicit=2, emotional=3)
    release = release_publish()
    queue.batch_lock(batch_id=batch.pk)
    rows = {r["id"]: r for r in __import__("annotation.releases.selectors", fromlist=["x"]).release_rows(release)}
    key = sorted(rows)[0]
    (by_key,) = services.gold_mark_from_release(release_number=release.number, keys=[key])
    assert by_key.release == release and by_key.explicit == rows[key]["explicit"]
    sample = services.gold_mark_from_release(release_number=release.number, sample=3, seed=7)
    again = [g.post_id for g in GoldItem.objects.filter(pk__in=[g.pk for g in sample])]
    assert len(sample) == 3 and by_key.post_id not in again
    with pytest.raises(DomainError):
        services.gold_mark_from_release(release_number=release.number, keys=["no-such-key"])


# --- Mixing -------------------------------------------------------------------------------------------

@pytest.fixture
def mixed(make_annotators, make_batch):
    alice, bob = make_annotators(2)
    batch = make_batch(n_posts=40, k=2, annotators=[alice, bob])
    gold = upload_gold(30)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.25)
    return alice, bob, batch, gold


def test_gold_items_are_mixed_in_at_the_batch_rate_and_never_twice(mixed):
    alice, bob, batch, gold = mixed
    claims = work_through(alice, batch)
    served = [c for c in claims if c.gold_batch_id == batch.pk]
    real = [c for c in claims if c.gold_batch_id is None]
    assert len(real) == 40  # every real post still reached her
    assert 4 <= len(served) <= 24, len(served)  # a keyed Bernoulli draw at 0.25: 13 expected
    assert len({c.post_id for c in served}) == len(served)
    assert {c.post_id for c in served} <= {g.post_id for g in gold}
    # not a fixed pattern: the gaps between gold items differ
    positions = [i for i, c in enumerate(claims) if c.gold_batch_id]
    assert len({b - a for a, b in zip(positions, positions[1:])}) > 1
    # answers to gold are gold judgments; the progress bar counted them like any post
    assert Judgment.objects.filter(annotator=alice, gold=True).count() == len(served)
    from annotation.assignment.selectors import batch_progress

    progress = batch_progress(annotator=alice, batch=batch)
    assert progress["done"] == len(claims) and progress["total"] >= progress["done"]


def test_gold_never_counts_toward_k_agreement_final_labels_adjudication_or_releases(mixed, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    alice, bob, batch, gold = mixed
    work_through(alice, batch, {"explicit": 1, "implicit": 1, "emotional": 1})
    work_through(bob, batch, {"explicit": 5, "implicit": 5, "emotional": 5})  # bob disagrees with gold and alice
    gold_posts = {g.post_id for g in gold}
    answered = set(Judgment.objects.filter(gold=True).values_list("post_id", flat=True))
    assert answered and answered <= gold_posts

    # k: every real post has exactly k = 2 claims holding a slot, gold posts none
    assert set(Post.objects.filter(batch=batch).values_list("live_claims", flat=True)) == {2}
    assert set(Post.objects.filter(pk__in=gold_posts).values_list("live_claims", flat=True)) == {0}
    # agreement: no gold post, no gold answer
    ratings = load_ratings()
    assert not set(ratings.unit_ids) & gold_posts and ratings.n_judgments == 80
    # final labels and the adjudication queue
    adjudication_services.final_labels_refresh()
    assert not FinalLabel.objects.filter(post_id__in=gold_posts).exists()
    assert FinalLabel.objects.count() == 40
    assert not {p.pk for p in adjudication.adjudication_queue()} & gold_posts
    # releases: no gold post, no gold answer
    release = release_publish()
    judgments_csv = (Path(release.directory) / "judgments.csv").read_text()
    assert len(list(csv.reader(io.StringIO(judgments_csv)))) == 1 + 80
    assert release.summary["posts"] == 40 and release.summary["judgments"] == 80
    assert agreement_report()["n_judgments"] == 80


def test_gold_figures_per_annotator(mixed):
    alice, bob, batch, gold = mixed
    work_through(alice, batch, GOLD_LABEL)  # right on gold
    work_through(bob, batch, {"explicit": 1, "implicit": 1, "emotional": 1})  # 3, 1 and 4 points off
    report = selectors.quality_report()
    rows = {r["username"]: r for r in report["annotators"]}
    assert [r["username"] for r in report["annotators"]] == [alice.username, bob.username]
    for d in DIMENSIONS:
        assert rows[alice.username]["gold"][d]["mae"] == 0 and rows[alice.username]["gold"][d]["within_one"] == 1
        assert rows[bob.username]["gold"][d]["n"] == rows[bob.username]["n_gold"] > 0
    assert rows[bob.username]["gold"]["explicit"]["mae"] == 3 and rows[bob.username]["gold"]["implicit"]["mae"] == 1
    assert rows[bob.username]["gold"]["explicit"]["within_one"] == 0
    assert rows[bob.username]["gold"]["implicit"]["within_one"] == 1


def test_qualification_gates_the_queue_and_its_items_are_never_mixed_in(make_annotators, make_batch, api_for):
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=10, annotators=[alice])
    qualifying = upload_gold(2, prefix="资格帖子")
    upload_gold(20)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5, qualification_required=True,
                               qualification_post_ids=[g.post_id for g in qualifying])
    response = api_for(alice).post(reverse("api:api-queue-next", args=[batch.pk]))
    assert response.status_code == 403 and "qualification" in response.json()["detail"]
    services.qualification_submit(annotator=alice, batch_id=batch.pk,
                                  answers={g.post_id: GOLD_LABEL for g in qualifying})
    claims = work_through(alice, batch)
    assert claims and not {c.post_id for c in claims} & {g.post_id for g in qualifying}


def test_retired_gold_is_not_mixed_in_and_a_locked_batch_refuses_gold_answers(mixed):
    alice, bob, batch, gold = mixed
    services.gold_set_active(post_ids=[g.post_id for g in gold], active=False)
    claims = work_through(alice, batch)
    assert claims and all(c.gold_batch_id is None for c in claims)
    services.gold_set_active(post_ids=[g.post_id for g in gold], active=True)
    item = None
    while item is None or item.gold_batch_id is None:  # bob: claim until a gold item comes
        item = queue.assignment_next(annotator=bob, batch_id=batch.pk)
        if item.gold_batch_id is None:
            queue.judgment_submit(annotator=bob, post_id=item.post_id, scores=GOLD_LABEL)
    queue.batch_lock(batch_id=batch.pk)
    with pytest.raises(DomainError, match="locked"):
        queue.judgment_submit(annotator=bob, post_id=item.post_id, scores=GOLD_LABEL)


def test_a_release_lists_gold_apart_when_asked_and_its_card_reports_quality(mixed, settings, tmp_path, make_user,
                                                                            roles):
    from django.test import Client

    from annotation.models import AnnotatorProfile
    from core.permissions import Role

    settings.MEDIA_ROOT = str(tmp_path)
    alice, bob, batch, gold = mixed
    work_through(alice, batch, GOLD_LABEL)
    work_through(bob, batch)
    plain = release_publish()
    assert "gold.csv" not in plain.manifest
    release = release_publish(force=True, include_gold=True)
    rows = list(csv.DictReader(io.StringIO((Path(release.directory) / "gold.csv").read_text())))
    assert len(rows) == len(gold) and {r["source"] for r in rows} == {"upload"}
    assert sum(int(r["answers"]) for r in rows) == Judgment.objects.filter(gold=True).count()
    release_csv = (Path(release.directory) / "release.csv").read_text()
    assert not any(r["text"] in release_csv for r in rows)  # listed apart, never in the data

    card = (Path(release.directory) / "DATACARD.md").read_text()
    section = card[card.index("## Label aggregation and annotator quality"):]
    pseudonyms = dict(AnnotatorProfile.objects.values_list("user__username", "pseudonym"))
    assert pseudonyms[alice.username] in section and alice.username not in card
    alice_row = next(line for line in section.splitlines() if line.startswith(f"| {pseudonyms[alice.username]} |"))
    assert "0.00 / 0.00 / 0.00 | 1.00 / 1.00 / 1.00" in alice_row  # right on every gold item
    assert f"Gold items: {len(gold)}" in section

    url = reverse("review:release-file", args=[release.number, "gold.csv"])
    researcher = make_user("res", role="researcher")
    client = Client()
    client.force_login(researcher)
    assert client.get(url).status_code == 200
    researcher.groups.add(roles[Role.ANNOTATOR])  # who also annotates may not see gold labels anywhere
    client.force_login(researcher)
    assert client.get(url).status_code == 403
    assert client.get(reverse("review:quality-gold")).status_code == 403
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(researcher)
    assert api.get(reverse("api:api-quality-gold")).status_code == 403


def test_the_gold_page_marks_by_upload_lists_problems_and_reports_refusals(make_user, make_batch):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client

    client = Client()
    client.force_login(make_user("res", role="researcher"))
    url = reverse("review:quality-gold")
    good = "Sentences,Explicit,Implicit,Emotional\n页面上传的金标准 一,1,2,3\n页面上传的金标准 二,5,4,3\n"
    response = client.post(url, {"source": "upload", "up-file": SimpleUploadedFile("gold.csv", good.encode())})
    assert response.status_code == 302 and response["Location"] == url
    assert sorted(GoldItem.objects.values_list("explicit", "implicit", "emotional")) == [(1, 2, 3), (5, 4, 3)]
    page = client.get(url).content.decode()
    assert "页面上传的金标准 一" in page and page.count("<tr><td>#") == 2

    bad = "Sentences,Explicit,Implicit,Emotional\n没有标签,,,\n超出范围,9,1,1\n"
    response = client.post(url, {"source": "upload", "up-file": SimpleUploadedFile("bad.csv", bad.encode())})
    body = response.content.decode()
    assert response.status_code == 200 and 'class="problems"' in body and body.count("<li>", body.index('class="problems"')) >= 2
    assert GoldItem.objects.count() == 2  # all or nothing

    batch = make_batch(n_posts=1)
    response = client.post(url, {"source": "adjudicated", "adj-posts": str(batch.posts.get().pk)}, follow=True)
    assert "No adjudicated label" in response.content.decode() and GoldItem.objects.count() == 2
