"""Blindness: nothing an annotator can reach reveals another annotator's judgment."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.assignment import services
from annotation.models import Assignment, Judgment

pytestmark = pytest.mark.django_db
SECRET = {"explicit": 5, "implicit": 4, "emotional": 3}


@pytest.fixture
def two_annotators_one_judgment(make_annotators, make_batch):
    alice, bob = make_annotators(2)
    batch = make_batch(n_posts=1, k=2, annotators=[alice, bob])
    item = services.assignment_next(annotator=alice, batch_id=batch.id)
    judgment = services.judgment_submit(annotator=alice, post_id=item.post_id, scores=SECRET, note="ALICE-NOTE")
    return alice, bob, batch, judgment


def test_api_detail_and_revise_of_someone_elses_judgment_is_404(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    client = api_for(bob)
    url = reverse("api:api-judgment", args=[judgment.pk])
    for response in (client.get(url), client.patch(url, {"explicit": 1}, format="json")):
        assert response.status_code == 404
        assert "ALICE" not in response.content.decode() and response.json() == {"detail": "No such judgment of yours."}
    # a judgment id that does not exist answers exactly the same, so ids cannot be probed
    missing = client.get(reverse("api:api-judgment", args=[judgment.pk + 999]))
    assert missing.status_code == 404 and missing.json() == client.get(url).json()
    judgment.refresh_from_db()
    assert judgment.scores() == SECRET


def test_api_lists_only_own_judgments(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    assert api_for(bob).get(reverse("api:api-judgments")).json() == []
    assert [j["id"] for j in api_for(alice).get(reverse("api:api-judgments")).json()] == [judgment.pk]


def test_submitting_through_alices_queue_item_reveals_nothing(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    alices_item = Assignment.objects.get(post_id=judgment.post_id, annotator=alice).pk
    response = api_for(bob).post(reverse("api:api-judgments"), {"item": alices_item, "explicit": 1,
                                                                 "implicit": 1, "emotional": 1}, format="json")
    # Alice's queue item is not Bob's: he may not submit through it, and the error says nothing of Alice.
    assert response.status_code == 404 and "ALICE" not in response.content.decode()


def test_queue_payload_carries_no_judgment_data(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    body = api_for(bob).post(reverse("api:api-queue-next", args=[batch.id])).json()
    # "pause" is the wellbeing field (a daily cap reached, else null): no judgment data.
    assert set(body) == {"item", "text", "batch", "batch_locked", "progress", "guideline_version", "pause"}
    assert body["pause"] is None
    mine = Assignment.objects.get(pk=body["item"])
    assert (mine.annotator, mine.post_id) == (bob, judgment.post_id) and body["progress"]["done"] == 0


def test_nothing_bob_can_reach_changes_when_alice_judges(make_annotators, make_batch, api_for):
    """Every page and API answer Bob can get is the same before and after Alice judges the post they
    share - so none of them carries her scores, note or flag (not just her note)."""
    import re

    alice, bob = make_annotators(2)
    batch = make_batch(n_posts=1, k=2, annotators=[alice, bob])
    post = batch.posts.get()
    client, api = Client(), api_for(bob)
    client.force_login(bob)
    api.post(reverse("api:api-queue-next", args=[batch.id]))  # Bob holds his claim on the post

    def everything_bob_sees() -> dict:
        pages = {url: re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", client.get(url).content.decode())
                 for url in (reverse("annotation:queue"), reverse("annotation:annotate", args=[batch.id]))}
        pages["next"] = api.post(reverse("api:api-queue-next", args=[batch.id])).json()
        pages["judgments"] = api.get(reverse("api:api-judgments")).json()
        pages["batches"] = api.get(reverse("api:api-batches")).json()
        pages["feedback"] = client.get(reverse("review:feedback", args=[batch.id])).status_code
        pages["adjudicate"] = client.get(reverse("review:adjudicate", args=[post.pk])).status_code
        return pages

    before = everything_bob_sees()
    assert Assignment.objects.get(pk=before["next"]["item"]).post == post
    services.assignment_next(annotator=alice, batch_id=batch.id)
    services.judgment_submit(annotator=alice, post_id=post.pk, scores=SECRET, note="ALICE-NOTE", flagged=True)
    assert everything_bob_sees() == before
    assert client.get(reverse("admin:annotation_judgment_changelist")).status_code == 302  # not staff
    assert client.get(reverse("annotation:upload")).status_code == 403


def test_annotator_cannot_reach_a_batch_they_are_not_in(make_annotators, make_batch, api_for):
    alice, carol = make_annotators(2)
    batch = make_batch(n_posts=1, annotators=[alice])
    assert api_for(carol).post(reverse("api:api-queue-next", args=[batch.id])).status_code == 404


def test_non_annotators_get_403_on_the_api(make_user, api_for):
    adjudicator = make_user("adj", role="adjudicator")
    assert api_for(adjudicator).get(reverse("api:api-judgments")).status_code == 403
    assert Client().get(reverse("api:api-judgments")).status_code in (401, 403)


# --- People who hold two roles -------------------------------------------------------------------
# Carol annotates the batch and adjudicates; Dave annotates it and is a researcher. While the batch
# is open neither may see any judgment (or anything made from judgments) of a post they have not
# judged, on any route; and nobody adjudicates a post they judged themselves.

ALICE = {"explicit": 1, "implicit": 1, "emotional": 1}
BOB = {"explicit": 5, "implicit": 4, "emotional": 5}


@pytest.fixture
def two_roles(make_annotators, make_batch, roles, settings, tmp_path):
    from core.permissions import Role

    settings.MEDIA_ROOT = str(tmp_path / "media")
    alice, bob, carol, dave = make_annotators(4)
    carol.groups.add(roles[Role.ADJUDICATOR])
    dave.groups.add(roles[Role.RESEARCHER])
    dave.is_staff = True
    dave.save(update_fields=["is_staff"])
    batch = make_batch(n_posts=2, k=4, annotators=[alice, bob, carol, dave])
    post = batch.posts.order_by("id").first()
    for who, scores, note in ((alice, ALICE, "ALICE-NOTE"), (bob, BOB, "BOB-NOTE")):
        Judgment.objects.create(post=post, annotator=who, note=note, flagged=True, **scores)
    return {"alice": alice, "bob": bob, "carol": carol, "dave": dave, "batch": batch, "post": post}


def page_for(user):
    client = Client()
    client.force_login(user)
    return client


def shows_judgments(body: str) -> bool:
    return any(secret in body for secret in ("ALICE-NOTE", "BOB-NOTE"))


def test_two_roles_cannot_open_the_adjudication_page_of_a_post_still_in_their_queue(two_roles, make_user):
    url = reverse("review:adjudicate", args=[two_roles["post"].pk])
    for user in (two_roles["carol"], two_roles["dave"]):
        response = page_for(user).get(url)
        assert response.status_code == 403, user.username
        body = response.content.decode()
        assert not shows_judgments(body) and "<td>5</td>" not in body
        assert "still waiting in your annotation queue" in body
    body = page_for(make_user("adj", role="adjudicator")).get(url).content.decode()
    assert "ALICE-NOTE" in body and "BOB-NOTE" in body  # a plain adjudicator sees them


def test_two_roles_do_not_see_the_post_in_the_adjudication_queue_or_consistency_checks(two_roles, make_user):
    from annotation.models import FinalLabel, Provenance

    post = two_roles["post"]
    FinalLabel.objects.create(post=post, explicit=5, implicit=1, emotional=3, provenance=Provenance.AUTO)
    link = reverse("review:adjudicate", args=[post.pk])
    adjudicator = page_for(make_user("adj", role="adjudicator"))
    assert link in adjudicator.get(reverse("review:adjudication")).content.decode()
    assert link in adjudicator.get(reverse("review:consistency")).content.decode()
    carol = page_for(two_roles["carol"])
    for url in (reverse("review:adjudication"), reverse("review:consistency")):
        response = carol.get(url)
        assert response.status_code == 200 and link not in response.content.decode(), url


def test_two_roles_cannot_adjudicate_a_post_still_in_their_queue(two_roles):
    from annotation.models import FinalLabel

    response = page_for(two_roles["carol"]).post(
        reverse("review:adjudicate", args=[two_roles["post"].pk]),
        {"explicit": 3, "implicit": 3, "emotional": 3, "rationale": "peeked", "version": 0})
    assert response.status_code == 403 and not FinalLabel.objects.exists()


def test_nobody_adjudicates_a_post_they_judged(two_roles):
    from annotation.adjudication import selectors as adjudication_selectors
    from annotation.adjudication import services as adjudication_services
    from annotation.models import FinalLabel

    carol, post = two_roles["carol"], two_roles["post"]
    item = services.assignment_next(annotator=carol, batch_id=two_roles["batch"].id)
    assert item.post_id == post.pk
    services.judgment_submit(annotator=carol, post_id=post.pk, scores=ALICE)
    client = page_for(carol)
    page = client.get(reverse("review:adjudicate", args=[post.pk]))
    body = page.content.decode()
    assert page.status_code == 200 and "ALICE-NOTE" in body  # she judged it: the others' judgments are hers to see
    assert "You judged this post yourself" in body and 'name="rationale"' not in body
    response = client.post(reverse("review:adjudicate", args=[post.pk]),
                           {"explicit": 1, "implicit": 1, "emotional": 1, "rationale": "mine wins", "version": 0})
    assert "You judged this post yourself" in response.content.decode()
    assert not FinalLabel.objects.exists()
    with pytest.raises(services.DomainError, match="judged this post yourself"):
        adjudication_services.post_adjudicate(adjudicator=carol, post_id=post.pk, scores=ALICE, rationale="r",
                                     expected_version=0)
    assert not FinalLabel.objects.exists()
    assert post.pk not in [p.pk for p in adjudication_selectors.adjudication_queue(viewer=carol)]


def test_two_roles_cannot_download_judgments_of_an_open_batch(two_roles, make_user):
    from annotation.models import FinalLabel, Provenance
    from annotation.releases.services import release_publish

    FinalLabel.objects.create(post=two_roles["post"], explicit=3, implicit=3, emotional=3, provenance=Provenance.AUTO)
    # the post is still being scored: only a release with provisional labels holds it (issue 31, item 2)
    release = release_publish(bootstrap=0, include_provisional=True)
    carol = page_for(two_roles["carol"])
    for name in ("judgments.csv", "release.jsonl", "release.csv"):
        response = carol.get(reverse("review:release-file", args=[release.number, name]))
        assert response.status_code == 403, name
        assert "BOB" not in response.content.decode() and "still waiting in your annotation queue" in response.content.decode()
    # issue 30: the data card goes with the diff and data it describes (its distributions count the post)
    assert carol.get(reverse("review:release-file", args=[release.number, "DATACARD.md"])).status_code == 403
    adjudicator = page_for(make_user("adj", role="adjudicator"))
    assert adjudicator.get(reverse("review:release-file", args=[release.number, "judgments.csv"])).status_code == 200
    services.batch_lock(batch_id=two_roles["batch"].id)
    response = carol.get(reverse("review:release-file", args=[release.number, "judgments.csv"]))
    assert response.status_code == 200 and b"".join(response.streaming_content).count(b"\r\n") == 3
    assert carol.get(reverse("review:release-file", args=[release.number, "DATACARD.md"])).status_code == 200


def test_two_roles_see_no_prediction_for_a_post_still_in_their_queue(two_roles, make_user, api_for):
    from modeling.models import Prediction, TrainingRun

    post, other = two_roles["post"], two_roles["batch"].posts.exclude(pk=two_roles["post"].pk).get()
    run = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"])
    Prediction.objects.create(post=post, run=run, explicit=4, probabilities={})
    # the other post nobody has judged yet: Dave has not judged it either, so it is hidden too
    Prediction.objects.create(post=other, run=run, explicit=2, probabilities={})
    researcher = api_for(make_user("res", role="researcher"))
    assert {p["post"] for p in researcher.get(reverse("api:api-predictions")).json()} == {post.pk, other.pk}
    dave = api_for(two_roles["dave"])
    assert dave.get(reverse("api:api-predictions")).json() == []
    assert dave.get(reverse("api:api-predictions") + f"?post={post.pk}").json() == []
    assert page_for(two_roles["dave"]).get(reverse("calibration:case", args=[post.pk])).status_code == 403
    services.assignment_next(annotator=two_roles["dave"], batch_id=two_roles["batch"].id)
    services.judgment_submit(annotator=two_roles["dave"], post_id=post.pk, scores=ALICE)
    assert {p["post"] for p in dave.get(reverse("api:api-predictions")).json()} == {post.pk}


def test_two_roles_see_no_judgment_of_a_post_still_in_their_queue_in_the_admin(two_roles):
    dave = page_for(two_roles["dave"])
    dave.force_login(two_roles["dave"])
    from django.contrib.auth.models import Permission

    two_roles["dave"].user_permissions.add(*Permission.objects.filter(codename__in=[
        "view_judgment", "view_finallabel", "view_judgmentrevision", "view_prediction"]))
    response = dave.get(reverse("admin:annotation_judgment_changelist"))
    assert response.status_code == 200 and response.context["cl"].result_count == 0
    assert not shows_judgments(response.content.decode())
    judgment = two_roles["post"].judgments.first()
    assert dave.get(reverse("admin:annotation_judgment_change", args=[judgment.pk])).status_code in (302, 404)


def test_two_roles_see_no_final_label_of_a_post_still_in_their_queue_on_the_dataset_overview(two_roles, make_user):
    from annotation.models import FinalLabel, Provenance

    FinalLabel.objects.create(post=two_roles["post"], explicit=5, implicit=4, emotional=2, provenance=Provenance.AUTO)
    url = reverse("calibration:overview") + "?format=csv"
    dave = page_for(two_roles["dave"])  # annotates the open batch and is a researcher
    assert dave.get(url).content.decode().strip().splitlines() == ["explicit,implicit,emotional"]
    researcher = page_for(make_user("res", role="researcher"))
    assert researcher.get(url).content.decode().strip().splitlines()[1:] == ["5,4,2"]
    Judgment.objects.create(post=two_roles["post"], annotator=two_roles["dave"], **ALICE)
    assert dave.get(url).content.decode().strip().splitlines()[1:] == ["5,4,2"]  # judged: no longer hidden
