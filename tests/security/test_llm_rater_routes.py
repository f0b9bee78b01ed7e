"""Issue 28 joins issue 20's route walk: an LLM run kept as a rater (and in the aggregation) answered the
hidden post (conftest's world: LLM_ANSWER is one of its secrets, so the walk of every route in
test_routes_by_role.py looks for it too). Here every route that takes an LLM run is walked with that
run's id - as the person holding every role who has the post in their queue, and as a plain annotator
with it in theirs - and nothing may carry the raw answer, the run's scores for the post, or a row naming it."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from .conftest import LLM_ANSWER, client_for
from .test_routes_by_role import _PARAM, fillings, leaks, url_patterns

pytestmark = pytest.mark.django_db


def llm_routes(w) -> list[str]:
    """Every URL of a route that takes an LLM run (its id filled with the world's run), plus the pages
    that show raters (adjudication) and the LLM admin."""
    urls = []
    for route, names in url_patterns():
        if "llm_run_id" not in names and not route.startswith(("admin/llm/", "adjudicate/", "llm/")):
            continue
        for filling in fillings(route, names, w):
            filling = {**filling, "llm_run_id": w["llm_run"].pk} if "llm_run_id" in names else filling
            urls.append("/" + _PARAM.sub(lambda m, values=filling: str(values[m.group(2)]), route))
    return urls


def walk(client, urls, w) -> tuple[list, int]:
    problems, answered = [], 0
    for url in urls:
        for query in ("", "?unparsed=1", f"?release={w['release'].number}"):
            response = client.get(url + query)
            assert response.status_code < 500, (url + query, response.status_code)
            answered += response.status_code == 200
            problems += [(url + query, leak) for leak in leaks(response, w)]
    return problems, answered


@pytest.mark.parametrize("superuser", [False, True], ids=["staff-with-every-view-permission", "superuser"])
def test_no_llm_route_shows_the_hidden_post_to_a_person_holding_every_role(world, superuser):
    multi = world["multi"]
    if superuser:  # a superuser reaches the admin's deletion pages, which list what a deletion takes with it
        multi.is_superuser = True
        multi.save(update_fields=["is_superuser"])
    else:
        multi.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    urls = llm_routes(world)
    assert any("/answers/" in u for u in urls) and any(u.startswith("/admin/llm/llmanswer/") for u in urls)
    problems, answered = walk(client_for(multi), urls, world)
    assert problems == [], "\n".join(f"{u} -> {what}" for u, what in problems)
    assert answered >= 5  # the researcher's LLM pages answered; only the hidden post's rows were left out


def test_an_annotator_with_the_post_in_their_queue_sees_no_llm_page(world, make_annotators):
    (carol,) = make_annotators(1, prefix="carol")
    world["batch"].annotators.add(carol)
    client = client_for(carol)
    for url in llm_routes(world):
        response = client.get(url)
        assert response.status_code in (302, 403, 404, 405), (url, response.status_code)  # 405: POST-only
        assert leaks(response, world) == []
    # and cannot switch the rater (a POST with the session's CSRF token would still be refused: 403)
    assert client.post(f"/llm/runs/{world['llm_run'].pk}/rater-off/").status_code == 403


def test_the_llm_walk_finds_what_it_looks_for(world, make_user):
    """A plain researcher (nothing in a queue) sees the raw answer and the rater's row: the checks can fail."""
    client = client_for(make_user("plain-researcher", role="researcher", is_staff=True, is_superuser=True))
    seen = set()
    for url in (f"/llm/runs/{world['llm_run'].pk}/answers/", f"/adjudicate/{world['hidden'].pk}/"):
        seen.update(leaks(client.get(url), world))
    assert LLM_ANSWER in seen
    from tests.llm.test_pages import parse

    rows = parse(client.get(f"/adjudicate/{world['hidden'].pk}/")).find_all("tr", class_="llm-rater")
    assert [r.attrs["data-llm-run"] for r in rows] == [str(world["llm_run"].pk)]  # shown to who may see the post
