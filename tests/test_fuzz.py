"""Fuzzing the importers and the API payloads: nothing crashes, nothing is half-written."""
from __future__ import annotations

import re

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


# --- Issue 30: every route's query parameters and every admin list filter, with out-of-range values ----

OUT_OF_RANGE = [str(2**63), str(2**64), str(10**18), "-" + str(2**63), "9" * 40, "-1", "1e309", "NaN", "²", "１２"]
# What pages, the API and the admin read from query strings (ids, paging, times, formats, admin's own).
QUERY_PARAMETERS = ["post", "batch", "annotator", "run", "ids", "snapshot", "compare", "after", "limit", "offset",
                    "since", "until", "page", "format", "disagreeing", "kind", "status", "release", "number", "user",
                    "q", "o", "p", "e", "id", "pk", "_to_field", "_popup", "_changelist_filters"]


@pytest.fixture
def fuzz_world(make_annotators, make_batch, make_user, roles):
    from annotation.assignment import services
    from annotation.models import Judgment
    from annotation.releases.services import release_publish

    a1, a2 = make_annotators(2)
    batch = make_batch(n_posts=3, k=2, annotators=[a1, a2])
    for post in batch.posts.all():
        for who in (a1, a2):
            Judgment.objects.create(post=post, annotator=who, explicit=2, implicit=3, emotional=2)
    services.batch_lock(batch_id=batch.pk)
    release = release_publish(bootstrap=0)
    root = make_user("fuzz-root", is_staff=True, is_superuser=True)
    root.groups.add(*roles.values())
    return {"batch": batch, "post": batch.posts.first(), "annotator": a1, "judgment": Judgment.objects.first(),
            "release": release, "root": root}


def _route_urls(w) -> list[str]:
    """One URL per pattern the resolver knows, its parameters filled with rows that exist."""
    from django.apps import apps

    from tests.security.test_routes_by_role import _PARAM, url_patterns

    values = {"batch_id": w["batch"].pk, "post_id": w["post"].pk, "annotator_id": w["annotator"].pk,
              "judgment_id": w["judgment"].pk, "number": w["release"].number, "name": "release.csv", "run_id": 1,
              "action": "cancel", "id": w["annotator"].pk, "app_label": "annotation", "url": "annotation/x/",
              "content_type_id": 1}
    urls = []
    for route, _names in url_patterns():
        if route.startswith(("accounts/logout/", "admin/logout/")):
            continue
        match = re.match(r"admin/(\w+)/(\w+)/<(?:\w+:)?object_id>/", route)
        filling = dict(values)
        if match:
            row = apps.get_model(match.group(1), match.group(2))._default_manager.order_by("pk").first()
            filling["object_id"] = row.pk if row is not None else 1
        urls.append("/" + _PARAM.sub(lambda m, f=filling: str(f.get(m.group(2), w["post"].pk)), route))
    return urls


def _admin_filters() -> list[tuple[str, str]]:
    """(changelist URL, parameter) for every registered model: each concrete field as a plain filter
    (?field=), its exact and id forms, and the model's list filters."""
    from django.contrib import admin

    out = []
    for model, model_admin in admin.site._registry.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        names = set()
        for field in model._meta.concrete_fields:
            names |= {field.name, f"{field.name}__exact", f"{field.name}__gte"}
            if field.is_relation:
                names |= {f"{field.name}__id__exact", f"{field.name}__pk", f"{field.name}_id"}
        for item in model_admin.list_filter:
            if isinstance(item, str):
                names |= {item, f"{item}__exact", f"{item}__id__exact"}
            elif isinstance(item, type) and getattr(item, "parameter_name", None):
                names.add(item.parameter_name)
        out += [(url, name) for name in sorted(names)]
    return out


def test_no_route_nor_admin_filter_answers_500_to_out_of_range_values(fuzz_world, capsys):
    """Issue 30: every URL pattern with every query parameter the site reads set to an out-of-range or odd
    number, and every admin list with each of its fields and list filters set to one: no 500.
    (19-digit /calibration/?post= raised NoReverseMatch; ?batch=2**63 on the admin lists OverflowError.)"""
    from django.test import Client

    client = Client(raise_request_exception=False)
    client.force_login(fuzz_world["root"])
    requests, errors = 0, []
    for url in _route_urls(fuzz_world):
        for value in OUT_OF_RANGE:
            response = client.get(url, {name: value for name in QUERY_PARAMETERS})
            requests += 1
            if response.status_code >= 500:
                errors.append((url, "every parameter", value, response.status_code))
        client.force_login(fuzz_world["root"])
    for url, name in _admin_filters():
        for value in (str(2**63), str(10**18), "-" + str(2**64), "9" * 40):
            response = client.get(url, {name: value})
            requests += 1
            if response.status_code >= 500:
                errors.append((url, name, value, response.status_code))
    with capsys.disabled():
        print(f"\nfuzz (issue 30): {requests} requests, {len(errors)} answered 500")
    assert requests > 3000 and errors == [], "\n".join(map(str, errors[:50]))
