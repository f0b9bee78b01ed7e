"""The visibility policy on issue 21's publication pages and files: a person who annotates an open
batch and also adjudicates and researches (so may rewrite posts) sees nothing of the final labels of
a post still waiting in their queue - not on the rewrite queue, rewrite or confirm pages, not in the
rewrite admin - and a public release that holds the post (under its public id, with its rewrite
instead of its text) is refused to them like an internal one. A plain researcher or adjudicator
sees all of it, so each check can fail."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from .conftest import body_of, client_for

pytestmark = pytest.mark.django_db

REWRITE = "这是一段完全重新写过的文字，和原帖没有共同的长片段"


@pytest.fixture
def rewritten(world, make_user):
    """The hidden post rewritten by the plain adjudicator, waiting for confirmation."""
    from publication.rewriting.services import rewrite_permission_grant, rewrite_submit

    rewrite_permission_grant()
    rewrite = rewrite_submit(post_id=world["hidden"].pk, author=world["adjudicator"], text=REWRITE)
    return {**world, "rewrite": rewrite, "researcher": make_user("plain-researcher", role="researcher")}


def test_the_rewrite_pages_show_no_label_of_a_hidden_post(rewritten):
    from publication.rewrite_models import Rewrite

    w = rewritten
    hidden, rewrite = w["hidden"], w["rewrite"]
    pages = (reverse("rewriting:rewrite", args=[hidden.pk]), reverse("rewriting:confirm", args=[rewrite.pk]))
    researcher, multi = client_for(w["researcher"]), client_for(w["multi"])
    assert f"/rewrite/confirm/{rewrite.pk}/" in researcher.get(reverse("rewriting:queue")).content.decode()
    for url in pages:
        assert researcher.get(url).status_code == 200, url
    assert f"/rewrite/confirm/{rewrite.pk}/" not in multi.get(reverse("rewriting:queue")).content.decode()
    # sent back, the post is to rewrite again: on the researcher's queue, not on theirs
    Rewrite.objects.filter(pk=rewrite.pk).update(status="sent_back", confirmer=w["researcher"])
    assert f"/rewrite/{hidden.pk}/" in researcher.get(reverse("rewriting:queue")).content.decode()
    assert f"/rewrite/{hidden.pk}/" not in multi.get(reverse("rewriting:queue")).content.decode()
    Rewrite.objects.filter(pk=rewrite.pk).update(status="submitted", confirmer=None)
    for url in pages:
        response = multi.get(url)
        assert response.status_code == 403, url
        assert b"still waiting in your annotation queue" in response.content, url
    # the confirm page's answer would compare their scores with the hidden labels: refused too
    answer = multi.post(reverse("rewriting:confirm", args=[rewrite.pk]),
                        {"action": "rescore", "explicit": 5, "implicit": 4, "emotional": 5})
    assert answer.status_code == 403
    rewrite.refresh_from_db()
    assert rewrite.status == "submitted"


@pytest.mark.parametrize("superuser", [False, True])
def test_the_rewrite_admin_lists_no_rewrite_of_a_hidden_post(rewritten, superuser):
    w = rewritten
    multi = w["multi"]
    if superuser:
        multi.is_superuser = True
        multi.save(update_fields=["is_superuser"])
    else:
        multi.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    changelist = client_for(multi).get(reverse("admin:publication_rewrite_changelist"))
    assert changelist.status_code == 200 and w["rewrite"] not in changelist.context["cl"].result_list
    change = client_for(multi).get(reverse("admin:publication_rewrite_change", args=[w["rewrite"].pk]))
    assert change.status_code in (302, 404)
    root = client_for(w["researcher"])
    w["researcher"].is_staff = w["researcher"].is_superuser = True
    w["researcher"].save()
    assert w["rewrite"] in root.get(reverse("admin:publication_rewrite_changelist")).context["cl"].result_list


def test_a_public_release_holding_a_hidden_post_is_refused_to_its_blind_viewer(rewritten):
    from annotation.releases.services import release_publish
    from publication.rewriting.services import rewrite_confirm

    w = rewritten
    rewrite_confirm(rewrite_id=w["rewrite"].pk, confirmer=w["researcher"])
    public = release_publish(kind="public", bootstrap=0)
    assert f"p{w['hidden'].pk}" in public.diff["added_ids"]
    researcher, multi = client_for(w["researcher"]), client_for(w["multi"])
    refused = []
    for name in sorted(public.manifest):
        url = reverse("review:release-file", args=[public.number, name])
        full = body_of(researcher.get(url))
        assert full, name
        if multi.get(url).status_code == 403:
            refused.append(name)
    assert {"release.csv", "release.jsonl", "judgments.csv", "split.csv", "diff.json"} <= set(refused)
    assert any(name.endswith(".parquet") for name in refused)
