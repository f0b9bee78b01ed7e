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


def everything(kind, alice, batch, page, api) -> dict:
    """Every route an annotator has, around one claim that is gold in one world and real in the other."""
    seen = {"batch_id": batch.pk, "queue_page_before": html(page, reverse("annotation:queue"), batch),
            "annotate_page": html(page, reverse("annotation:annotate", args=[batch.pk]), batch)}
    with CaptureQueriesContext(connection) as claimed:
        response = api.post(reverse("api:api-queue-next", args=[batch.pk]))
    item = response.json()
    assert (Assignment.objects.get(annotator=alice, post_id=item["post"]).gold_batch_id is not None) == (kind == "gold")
    seen["claim_status"] = response.status_code
    # The statements with their values blanked (a gold claim's INSERT carries a batch id where a real
    # one has NULL): the same statements, in the same order, on the same tables.
    seen["claim_sql"] = [re.sub(r"\bNULL\b|\d+", "N", re.sub(r"'[^']*'", "S", q["sql"])) for q in claimed.captured_queries]
    seen["next"] = item
    seen["next_again"] = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()  # resumes the same item
    submitted = api.post(reverse("api:api-judgments"), {"post": item["post"], **SCORES, "seconds_spent": 9.5},
                         format="json")
    seen["submit_status"], seen["submitted"] = submitted.status_code, submitted.json()
    judgment_url = reverse("api:api-judgment", args=[submitted.json()["id"]])
    seen["detail"] = api.get(judgment_url).json()
    revised = api.patch(judgment_url, {"explicit": 5}, format="json")
    seen["revise_status"], seen["revised"] = revised.status_code, revised.json()
    seen["list"] = api.get(reverse("api:api-judgments")).json()
    seen["batches"] = api.get(reverse("api:api-batches")).json()
    seen["queue_page_after"] = html(page, reverse("annotation:queue"), batch)
    following = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    skipped = api.post(reverse("api:api-queue-skip", args=[batch.pk]), {"post": following["post"]}, format="json")
    seen["skip_status"], seen["after_skip"] = skipped.status_code, skipped.json()
    # The one-request scoring step the annotator page uses: submit, and the next item comes back.
    step = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"post": seen["after_skip"]["post"], **SCORES},
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
    out["claim_sql"] = seen["claim_sql"]
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
        assert "gold" not in str(value).lower() or key == "claim_sql", key
    assert seen["next"]["batch"] == batch.pk and seen["next_again"]["post"] == seen["next"]["post"]
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
