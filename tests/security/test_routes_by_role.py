"""Issue 20's route-by-role test: every URL pattern the resolver knows (so a new route is walked the
day it is added), its ids filled with the hidden post's, its batch's, its judgments', the release's
(every file of it), GET as one person who annotates the open batch and also adjudicates and
researches - a staff member who may view every model in the admin, and a superuser - plain and with
the query strings the pages and API read. Nothing received may carry the hidden post's release key,
the other annotators' notes, its adjudicated rationale, its aggregate's confidence or its prediction's
probabilities; no JSON row may name it; no release file may hold it (Parquet read, not grepped); and
nothing may mark the gold item as gold."""
from __future__ import annotations

import io
import json
import re

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.urls import URLResolver, get_resolver

from .conftest import HIDDEN_EXTERNAL_ID, HIDDEN_TEXT, body_of, client_for, secrets

pytestmark = pytest.mark.django_db

# The query strings the pages and the API read, aimed at the hidden post where they take one.
QUERIES = ("", "?format=csv&post={post}&batch={batch}&annotator={alice}&disagreeing=1&limit=500&offset=0"
               "&after=0&since=0&until=99999999999&ids={run}")

_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")
_PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def url_patterns(patterns=None, prefix: str = ""):
    """(route with every parameter as <name>, its parameter names) for every pattern, depth first."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from url_patterns(pattern.url_patterns, route)
        else:
            route = _GROUP.sub(lambda m: f"<{m.group(1)}>", route).replace("^", "").replace("$", "")
            yield route, [m.group(2) for m in _PARAM.finditer(route)]


def admin_objects(route: str, w) -> list[str]:
    """The admin object ids worth opening for a model: its rows about the hidden post or the gold item
    (or, for a model about neither, its first row)."""
    match = re.match(r"admin/(\w+)/(\w+)/<(?:\w+:)?object_id>/", route)  # <path:object_id> too (issue 30)
    if not match:
        return [str(w["hidden"].pk)]
    model = apps.get_model(match.group(1), match.group(2))
    names = {f.name for f in model._meta.get_fields()}
    qs = model._default_manager.all()
    if model._meta.label == "annotation.Post":
        qs = qs.filter(pk__in=[w["hidden"].pk, w["gold"].post_id])
    elif model._meta.label == "annotation.Batch":
        qs = qs.filter(pk__in=[w["batch"].pk, w["old"].pk])
    elif model._meta.label == "annotation.Release":
        qs = qs.order_by("pk")  # every release: their diffs and summaries differ
    elif "post" in names:
        qs = qs.filter(post__in=[w["hidden"].pk, w["gold"].post_id])
    elif "judgment" in names:
        qs = qs.filter(judgment__post__in=[w["hidden"].pk, w["gold"].post_id])
    else:
        qs = qs.order_by("pk")[:1]
    return [str(pk) for pk in qs.values_list("pk", flat=True)] or ["1"]


def fillings(route: str, names: list[str], w) -> list[dict]:
    """Every combination of values to put in the route's parameters."""
    values = {
        "batch_id": [w["batch"].pk], "post_id": [w["hidden"].pk], "annotator_id": [w["alice"].pk, w["bob"].pk],
        "judgment_id": [j.pk for j in w["judgments"]],
        "number": [r.number for r in w.get("releases", [w["release"]])],
        "name": sorted({n for r in w.get("releases", [w["release"]]) for n in r.manifest}),
        "run_id": [w["run"].pk], "action": ["cancel"],
        "object_id": admin_objects(route, w), "id": [w["alice"].pk],
        "app_label": [c.label for c in apps.get_app_configs()],
        "content_type_id": [ContentType.objects.get_for_model(apps.get_model("annotation", "Post")).pk],
        "url": ["annotation/no-such-page/"],
    }
    out = [{}]
    for name in names:
        # An unknown parameter gets the hidden post's id: the likeliest to reveal something.
        out = [{**done, name: value} for done in out for value in values.get(name, [w["hidden"].pk])]
    return out


def json_rows_naming(value, post_id: int) -> bool:
    """Whether a JSON answer has a row naming the post by id (`post`, `post_id`)."""
    if isinstance(value, dict):
        if any(value.get(k) == post_id for k in ("post", "post_id")):
            return True
        return any(json_rows_naming(v, post_id) for v in value.values())
    if isinstance(value, list):
        return any(json_rows_naming(v, post_id) for v in value)
    return False


def json_has_gold_series(value) -> bool:
    """Whether a JSON answer carries a gold-error series with points (issue 30: each point is the time
    of a gold answer) or a gold answer count."""
    if isinstance(value, dict):
        if value.get("gold_error") or value.get("n_gold") is not None or value.get("n_gold_judgments") is not None:
            return True
        return any(json_has_gold_series(v) for v in value.values())
    if isinstance(value, list):
        return any(json_has_gold_series(v) for v in value)
    return False


def contains(body: bytes, secret: str) -> bool:
    """`secret` in `body`; a number only where it starts one, not as the tail of a longer number (an
    epoch time such as 1795012340.3141... is not the probability 0.3141)."""
    pattern = re.escape(secret.encode())
    if secret[:1].isdigit():
        pattern = rb"(?<![0-9])" + pattern
    return re.search(pattern, body) is not None


def leaks(response, w) -> list[str]:
    body = body_of(response)
    found = [s for s in secrets() if contains(body, s)]
    if body[:4] == b"PAR1":
        import pyarrow.parquet as pq

        table = pq.read_table(io.BytesIO(body))
        cells = {str(v) for column in table.columns for v in column.to_pylist()}
        found += [s for s in (HIDDEN_EXTERNAL_ID, HIDDEN_TEXT) if s in cells]
    if response.get("Content-Type", "").startswith("application/json"):
        try:
            if json_rows_naming(json.loads(body), w["hidden"].pk):
                found.append(f"a JSON row naming post {w['hidden'].pk}")
        except ValueError:
            pass
    if response.get("Content-Type", "").startswith("application/json"):
        try:
            if json_has_gold_series(json.loads(body)):
                found.append("a gold-error series")
        except ValueError:
            pass
    if response.get("Content-Disposition") and HIDDEN_TEXT.encode() in body:
        found.append("the hidden post's text in a download")
    text = body.decode("utf-8", "replace")
    if re.search(r"gold #\d|class=\"gold\"|>✓<|<li>gold item|Gold item: ", text):
        found.append("a gold mark")
    return found


@pytest.fixture
def walked_world(world):
    """The world as issue 30's audit walked it: the walker answered a gold item and holds an open
    claim on the hidden post; a second release changed the hidden post's label (its key in
    changed_ids, its new label in the data cards' distributions); a quality run stored its report
    (the gold-error series and figures)."""
    from django.utils import timezone

    from annotation.models import Assignment, AssignmentStatus, FinalLabel, Judgment
    from annotation.quality import services
    from annotation.releases.services import release_publish

    multi, now = world["multi"], timezone.now()
    Assignment.objects.create(post_id=world["gold"].post_id, annotator=multi, gold_batch=world["batch"],
                              status=AssignmentStatus.SUBMITTED, assigned_at=now, completed_at=now)
    Judgment.objects.create(post_id=world["gold"].post_id, annotator=multi, explicit=1, implicit=1, emotional=1,
                            gold=True)
    Assignment.objects.create(post=world["hidden"], annotator=multi, status=AssignmentStatus.ASSIGNED, assigned_at=now)
    FinalLabel.objects.filter(post=world["hidden"]).update(explicit=1)
    second = release_publish(bootstrap=0)
    services.aggregation_run_now()
    return {**world, "releases": [world["release"], second]}


@pytest.mark.parametrize("superuser", [False, True], ids=["staff-with-every-view-permission", "superuser"])
def test_no_route_shows_a_hidden_post_to_a_person_holding_every_role(walked_world, superuser):
    world = walked_world
    multi = world["multi"]
    if superuser:
        multi.is_superuser = True
        multi.save(update_fields=["is_superuser"])
    else:
        multi.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    client = client_for(multi)
    queries = [q.format(post=world["hidden"].pk, batch=world["batch"].pk, alice=world["alice"].pk,
                        key=HIDDEN_EXTERNAL_ID, run=world["run"].pk) for q in QUERIES]
    walked, answered, problems = 0, 0, []
    for route, names in url_patterns():
        if route.startswith(("accounts/logout/", "admin/logout/")):
            continue  # would end the session the walk runs in (a POST-only view anyway)
        for filling in fillings(route, names, world):
            url = "/" + _PARAM.sub(lambda m, values=filling: str(values[m.group(2)]), route)
            walked += 1
            for query in queries:
                response = client.get(url + query, follow=False)
                answered += response.status_code == 200
                assert response.status_code < 500, (url + query, response.status_code)
                problems += [(url + query, leak) for leak in leaks(response, world)]
        client.force_login(multi)  # a route may have logged the walker out: stay logged in
    assert problems == [], "\n".join(f"{u} -> {what}" for u, what in problems)
    assert walked > 200 and answered > 100  # the walk reached the pages, not only refusals


def test_the_walk_finds_what_it_looks_for(walked_world, make_user):
    """The same walk's checks, on answers a plain researcher gets: they see the hidden post's data and
    the gold marks, so the checks above can fail."""
    world = walked_world
    client = client_for(make_user("plain-researcher", role="researcher", is_staff=True, is_superuser=True))
    release = world["release"]
    seen = set()
    for url in (f"/adjudicate/{world['hidden'].pk}/", "/api/quality/aggregates/",
                f"/quality/annotators/{world['alice'].pk}/", f"/api/quality/annotators/{world['alice'].pk}/",
                f"/admin/annotation/release/{world['releases'][1].pk}/change/",
                *[f"/releases/{release.number}/{name}" for name in release.manifest]):
        seen.update(leaks(client.get(url), world))
    assert {"NOTE-ALICE-5d1f", HIDDEN_EXTERNAL_ID, "a gold mark", "a JSON row naming post %d" % world["hidden"].pk,
            HIDDEN_TEXT, "a gold-error series"} <= seen
    # the route the walk could not open before issue 30 (an admin change page under <path:object_id>)
    assert admin_objects("admin/annotation/release/<path:object_id>/change/", world) == \
        [str(r.pk) for r in sorted(world["releases"], key=lambda r: r.pk)]


def test_a_number_secret_is_found_where_it_starts_a_number_only():
    assert contains(b'{"p": 0.314159}', "0.3141") and contains(b"<td>0.3141</td>", "0.3141")
    assert not contains(b'{"since": 1795012340.31415}', "0.3141")
    assert contains(b"x NOTE-ALICE-5d1f", "NOTE-ALICE-5d1f")
