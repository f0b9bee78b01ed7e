"""Fuzzing the importers and the API payloads: nothing crashes, nothing is half-written."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from django.urls import reverse

from annotation.importing.services import ImportFailed, import_judgments, import_posts
from annotation.models import FinalLabel, Judgment, Post

pytestmark = pytest.mark.django_db
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

cells = st.one_of(st.text(max_size=40), st.integers(-10, 10).map(str), st.sampled_from(["", "1", "5", "6", '"', "\r", "#"]))
rows = st.lists(st.lists(cells, min_size=0, max_size=6), max_size=8)


def attempt(data: bytes, **kwargs) -> None:
    before = (Post.objects.count(), FinalLabel.objects.count())
    try:
        result = import_posts(data, **kwargs)
    except ImportFailed as exc:
        assert exc.problems and all(str(p) for p in exc.problems)
        assert (Post.objects.count(), FinalLabel.objects.count()) == before  # nothing written
    else:
        assert Post.objects.count() == before[0] + result.created


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(data):
    attempt(data)


@FUZZ
@given(rows, st.sampled_from(["utf-8", "utf-8-sig", "gb18030", "utf-16"]), st.sampled_from(["\n", "\r\n"]),
       st.booleans())
def test_ragged_rows_in_random_encodings(table, encoding, newline, labels):
    header = "Sentences,Explicit,Implicit,Emotional" if labels else "Sentences"
    text = newline.join([header] + [",".join(r) for r in table]) + newline
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return
    attempt(data, with_labels=labels)


@FUZZ
@given(st.lists(st.dictionaries(st.sampled_from(["text", "explicit", "implicit", "emotional", "id"]),
                                st.one_of(st.text(max_size=20), st.integers(-3, 8), st.none(), st.floats())), max_size=5))
def test_jsonl_objects(objects):
    import json

    attempt("\n".join(json.dumps(o) for o in objects).encode(), filename="x.jsonl")


def test_huge_cell_is_refused_not_crashing():
    attempt(b"Sentences\n" + b"a" * (2 * 1024 * 1024) + b"\n")
    assert Post.objects.count() == 0


@FUZZ
@given(st.binary(max_size=300))
def test_judgment_import_random_bytes(data):
    before = Judgment.objects.count()
    try:
        import_judgments(b"post,annotator,explicit,implicit,emotional\n" + data)
    except ImportFailed:
        assert Judgment.objects.count() == before


@pytest.fixture
def annotator_client(make_annotators, make_batch, api_for):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=80, annotators=[a])  # enough posts for every accepted example
    return api_for(a), batch


payload_values = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=True),
                           st.text(max_size=30), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@FUZZ
@given(valid=st.fixed_dictionaries({d: st.integers(1, 5) for d in ("explicit", "implicit", "emotional")}),
       hostile=st.one_of(st.just({}), st.dictionaries(st.sampled_from(["item", "explicit", "implicit", "emotional",
                                                                       "note", "flagged", "seconds_spent"]),
                                                      payload_values, max_size=7)),
       for_the_claimed_post=st.booleans())
def test_api_payloads_never_500(annotator_client, valid, hostile, for_the_claimed_post):
    """Whatever the body: no 500; a refused submission or skip writes nothing; an accepted one
    stores exactly the scores it was given, for a post that was the annotator's to judge."""
    import json

    from annotation.models import Assignment

    client, batch = annotator_client
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    assert item["batch"] == batch.id
    # A valid submission for the claimed post (or not), then any of its fields replaced by hostile values.
    claimed = {"item": item["item"]} if for_the_claimed_post and item["item"] is not None else {}
    payload = {**valid, **claimed, **hostile}
    body = json.dumps(payload, allow_nan=True)  # NaN/Infinity literals too: the server must refuse them cleanly

    def state():
        return (sorted(Judgment.objects.values_list("post_id", "explicit", "implicit", "emotional", "note")),
                sorted(Assignment.objects.values_list("post_id", "status")))

    before = state()
    submitted = client.post(reverse("api:api-judgments"), body, content_type="application/json")
    assert submitted.status_code < 500, (payload, submitted.content)
    if submitted.status_code == 201:
        stored = Judgment.objects.get(pk=submitted.json()["id"])
        claim = Assignment.objects.get(pk=payload["item"])
        assert stored.post_id == claim.post_id and stored.annotator_id == claim.annotator_id
        assert stored.post.batch_id == batch.id
        for dim in ("explicit", "implicit", "emotional"):
            assert float(payload[dim]) == getattr(stored, dim) and getattr(stored, dim) in range(1, 6), (payload, dim)
    else:
        assert state() == before, payload
    before = state()
    skipped = client.post(reverse("api:api-queue-skip", args=[batch.id]), body, content_type="application/json")
    assert skipped.status_code < 500, (payload, skipped.content)
    if skipped.status_code == 200:
        assert Assignment.objects.get(pk=payload["item"]).status == "skipped"
    else:
        assert state() == before, payload
