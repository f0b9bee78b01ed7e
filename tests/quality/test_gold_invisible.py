"""Gold items are invisible to annotators on every route: the same claim answered with a gold item
or with a real post gives the same page source, the same API payloads (keys, types, batch,
progress), the same behaviour (submit, revise, skip, list) and the same work in the database (the
same SQL statements in the same order: the queue's timing cannot tell them apart)."""
from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Assignment, Judgment
from annotation.quality import services

from .test_gold import upload_gold

pytestmark = pytest.mark.django_db
SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


@pytest.fixture(params=["gold", "real"])
def world(request, make_annotators, make_batch, api_for, monkeypatch):
    """The same batch, history and gold rate; only the keyed draw differs: this claim is gold, or not."""
    alice, bob = make_annotators(2)
    batch = make_batch(n_posts=6, k=2, annotators=[alice, bob])
    upload_gold(5)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0 if request.param == "gold" else 0.99)
    page, api = Client(), api_for(alice)
    page.force_login(alice)
    return request.param, alice, batch, page, api


def shape(value):
    """A payload's structure: keys and value types, recursively (not the values)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value[:1]]
    return type(value).__name__


def html(client, url, batch) -> str:
    """The page source without its CSRF token, and with the batch's own id as B: the two worlds are two
    test databases' worth of rows, and PostgreSQL's sequences do not roll back between them."""
    source = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", client.get(url).content.decode())
    return re.sub(rf"(data-batch=\"|/){batch.pk}(?=[/\"])", r"\1B", source)


def statements(captured) -> list[str]:
    """The SQL a request ran, with its values blanked (a gold claim's INSERT carries a batch id where
    a real one has NULL): what must match statement for statement between the two worlds."""
    return [re.sub(r"\b(NULL|true|false)\b|\d+", "N", re.sub(r"'[^']*'", "S", q["sql"]))
            for q in captured.captured_queries]


def everything(kind, alice, batch, page, api) -> dict:
    """Every route an annotator has, around one claim that is gold in one world and real in the other."""
    seen = {"batch_id": batch.pk, "queue_page_before": html(page, reverse("annotation:queue"), batch),
            "annotate_page": html(page, reverse("annotation:annotate", args=[batch.pk]), batch)}
    with CaptureQueriesContext(connection) as claimed:
        response = api.post(reverse("api:api-queue-next", args=[batch.pk]))
    item = response.json()
    assert (Assignment.objects.get(annotator=alice, pk=item["item"]).gold_batch_id is not None) == (kind == "gold")
    seen["claim_status"] = response.status_code
    # The statements with their values blanked (a gold claim's INSERT carries a batch id where a real
    # one has NULL): the same statements, in the same order, on the same tables.
    seen["claim_sql"] = statements(claimed)
    seen["next"] = item
    seen["next_again"] = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()  # resumes the same item
    with CaptureQueriesContext(connection) as submitting:
        submitted = api.post(reverse("api:api-judgments"), {"item": item["item"], **SCORES, "seconds_spent": 9.5},
                             format="json")
    seen["submit_sql"] = statements(submitting)
    seen["submit_status"], seen["submitted"] = submitted.status_code, submitted.json()
    judgment_url = reverse("api:api-judgment", args=[submitted.json()["id"]])
    seen["detail"] = api.get(judgment_url).json()
    revised = api.patch(judgment_url, {"explicit": 5}, format="json")
    seen["revise_status"], seen["revised"] = revised.status_code, revised.json()
    seen["list"] = api.get(reverse("api:api-judgments")).json()
    seen["batches"] = api.get(reverse("api:api-batches")).json()
    seen["queue_page_after"] = html(page, reverse("annotation:queue"), batch)
    following = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    assert (Assignment.objects.get(pk=following["item"]).gold_batch_id is not None) == (kind == "gold")
    with CaptureQueriesContext(connection) as skipping:
        skipped = api.post(reverse("api:api-queue-skip", args=[batch.pk]), {"item": following["item"]},
                           format="json")
    # The skip's own statements: up to the next item's claim, which starts with its context read.
    skip_sql = statements(skipping)
    seen["skip_sql"] = skip_sql[:next(i for i, q in enumerate(skip_sql) if "annotation_batch_annotators" in q)]
    seen["skip_status"], seen["after_skip"] = skipped.status_code, skipped.json()
    # The one-request scoring step the annotator page uses: submit, and the next item comes back.
    step = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": seen["after_skip"]["item"], **SCORES},
                    format="json")
    seen["submit_next_status"], seen["submit_next"] = step.status_code, step.json()
    seen["feedback"] = page.get(reverse("review:feedback", args=[batch.pk])).status_code
    seen["qualification_api"] = api.get(reverse("api:api-qualification", args=[batch.pk])).json()
    return seen


def comparable(seen: dict) -> dict:
    """What must be identical in both worlds: page sources, statuses, payload shapes, progress."""
    out = {k: v for k, v in seen.items() if k.endswith(("_page", "_page_before", "_page_after", "_status"))}
    out.update({k: shape(v) for k, v in seen.items() if isinstance(v, (dict, list))})
    for key, item in (("next", seen["next"]), ("next_again", seen["next_again"]), ("after_skip", seen["after_skip"]),
                      ("submit_next", seen["submit_next"]["next"])):
        out[f"{key}_batch_and_progress"] = (item["batch"] == seen["batch_id"], item["progress"], item["batch_locked"])
    out["claim_sql"], out["submit_sql"], out["skip_sql"] = seen["claim_sql"], seen["submit_sql"], seen["skip_sql"]
    out["feedback"] = seen["feedback"]
    qualification = seen["qualification_api"]
    out["qualification_api"] = {**qualification, "batch": qualification["batch"] == seen["batch_id"]}
    out["revisions"] = seen["revised"]["revisions"]
    return out


RESULTS: dict[str, dict] = {}


def test_an_annotator_sees_the_same_for_a_gold_item_and_a_real_post(world):
    kind, alice, batch, page, api = world
    seen = everything(kind, alice, batch, page, api)
    for key, value in seen.items():  # the word itself appears nowhere an annotator can reach
        assert "gold" not in str(value).lower() or key.endswith("_sql"), key
    assert seen["next"]["batch"] == batch.pk and seen["next_again"]["item"] == seen["next"]["item"]
    assert seen["submit_status"] == 201 and seen["revise_status"] == 200 and seen["skip_status"] == 200
    assert seen["submit_next_status"] == 201 and seen["submit_next"]["next"]["progress"]["done"] == 2
    assert seen["next"]["progress"]["done"] == 0 and seen["after_skip"]["progress"]["done"] == 1
    assert seen["list"][0]["id"] == seen["submitted"]["id"]
    assert Judgment.objects.get(pk=seen["submitted"]["id"]).gold == (kind == "gold")
    RESULTS[kind] = comparable(seen)
    if len(RESULTS) == 2:  # the second world: compare with the first
        gold, real = RESULTS["gold"], RESULTS["real"]
        assert gold.keys() == real.keys()
        for key in gold:
            assert gold[key] == real[key], key


def test_item_ids_follow_serving_order_where_post_ids_would_betray_gold(make_annotators, make_batch, api_for):
    """The API names a queue item by the annotator's claim, not the post: post ids are global, and a gold
    post (uploaded, or from an older batch) lies outside the batch's id range, so its id would give it
    away. Claims are numbered as they are made, so one annotator's items simply count up, gold or not."""
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=30, k=1, annotators=[alice])
    upload_gold(12)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.4)
    api = api_for(alice)
    item = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    served = []
    while item["item"] is not None and len(served) < 25:
        served.append(item["item"])
        item = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": item["item"], **SCORES},
                        format="json").json()["next"]
    claims = {a.pk: a for a in Assignment.objects.filter(pk__in=served).select_related("post")}
    gold = [pk for pk in served if claims[pk].gold_batch_id is not None]
    assert 0 < len(gold) < len(served)  # both kinds were served
    batch_posts = set(batch.posts.values_list("pk", flat=True))
    # What the post ids would have said: every gold item is outside the batch's id range.
    assert all(not min(batch_posts) <= claims[pk].post_id <= max(batch_posts) for pk in gold)
    # What the item ids say: nothing but the order they were served in.
    assert served == list(range(served[0], served[0] + len(served)))
    listed = {j["item"] for j in api.get(reverse("api:api-judgments")).json()}
    assert listed == set(served)
    assert not any("post" in key for j in api.get(reverse("api:api-judgments")).json() for key in j if key != "post_text")


@pytest.mark.parametrize("second_role", ["adjudicator", "researcher"])
def test_nobody_who_can_read_settled_labels_is_served_gold(second_role, make_annotators, make_batch, roles, api_for,
                                                          monkeypatch):
    """A gold post is a settled post: an adjudicator or researcher could look its label up (the
    adjudication pages, a release), so a person who also holds one of those roles gets only real posts
    and no gold in their progress, while a plain annotator of the same batch does get gold."""
    plain, staff = make_annotators(2)
    staff.groups.add(roles[second_role])
    batch = make_batch(n_posts=8, k=2, annotators=[plain, staff])
    upload_gold(4)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)  # every claim would be gold

    def serve(who) -> tuple[list[bool], dict]:
        api, kinds = api_for(who), []
        item = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
        progress = item["progress"]
        for _ in range(3):
            kinds.append(Assignment.objects.get(pk=item["item"]).gold_batch_id is not None)
            item = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": item["item"], **SCORES},
                            format="json").json()["next"]
        return kinds, progress

    plain_kinds, plain_progress = serve(plain)
    staff_kinds, staff_progress = serve(staff)
    assert plain_kinds == [True, True, True] and plain_progress["total"] > 8
    assert staff_kinds == [False, False, False] and staff_progress == {"done": 0, "skipped": 0, "total": 8}


def test_gold_open_when_a_role_comes_is_finished_and_a_label_one_settled_is_never_gold(
        make_annotators, make_batch, roles, api_for, monkeypatch):
    """A gold item already served when the annotator becomes an adjudicator is still served (not left
    open forever, the progress bar can finish), and no new gold follows; once the role is gone again,
    gold resumes but never with a post whose label this person adjudicated."""
    from annotation.models import FinalLabel, GoldItem, Provenance

    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=6, k=1, annotators=[alice])
    upload_gold(3)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)  # every claim would be gold
    api = api_for(alice)
    first = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    assert Assignment.objects.get(pk=first["item"]).gold_batch_id == batch.pk
    alice.groups.add(roles["adjudicator"])
    alice = type(alice).objects.get(pk=alice.pk)  # roles are read afresh, as on a new request
    api = api_for(alice)
    again = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    assert again["item"] == first["item"]  # the open gold item, served as before
    step = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": again["item"], **SCORES},
                    format="json").json()
    assert Assignment.objects.get(pk=step["next"]["item"]).gold_batch_id is None  # no new gold
    assert step["next"]["progress"]["done"] == 1 and step["next"]["progress"]["total"] == 7
    # Alice adjudicated one of the remaining gold posts; the role goes away.
    settled = GoldItem.objects.exclude(post__assignments__annotator=alice).order_by("id").first()
    FinalLabel.objects.create(post=settled.post, explicit=2, implicit=2, emotional=2,
                              provenance=Provenance.ADJUDICATED, adjudicator=alice)
    alice.groups.remove(roles["adjudicator"])
    alice = type(alice).objects.get(pk=alice.pk)
    api = api_for(alice)
    served = []
    item = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": step["next"]["item"], **SCORES},
                    format="json").json()["next"]
    while item["item"] is not None:
        served.append(Assignment.objects.get(pk=item["item"]))
        item = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": item["item"], **SCORES},
                        format="json").json()["next"]
    gold_served = [a.post_id for a in served if a.gold_batch_id is not None]
    assert gold_served and settled.post_id not in gold_served
