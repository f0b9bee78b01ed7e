"""The rewrite pages: permission, queue, saving and submitting a draft, confirming as a second
person, re-scoring; the releases page's public choice and kind."""
from __future__ import annotations

import pytest

from annotation.importing.services import import_posts
from annotation.models import Post, Release
from publication.rewrite_models import Rewrite, RewriteStatus
from publication.spans import normalise

from .test_rewrites import ORIGINALS, labelled

pytestmark = pytest.mark.django_db


@pytest.fixture
def post(rewriters):
    import_posts(labelled(), with_labels=True)
    return Post.objects.order_by("pk").first()


def test_annotators_are_refused(client, rewriters, post):
    client.force_login(rewriters["annotator"])
    assert client.get("/rewrite/").status_code == 403
    assert client.get(f"/rewrite/{post.pk}/").status_code == 403


def test_rewrite_confirm_round_trip_in_chinese(client, rewriters, post):
    client.force_login(rewriters["adjudicator"])
    page = client.get("/rewrite/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert f"/rewrite/{post.pk}/" in page and "待改写" in page
    page = client.get(f"/rewrite/{post.pk}/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert post.text in page and "原文" in page and "rewrite.js" in page
    client.post(f"/rewrite/{post.pk}/", {"text": ORIGINALS[0][0][:20] + "改", "action": "save"})
    # 20 characters of the original, counted as a search engine reads them (punctuation dropped)
    assert Rewrite.objects.get().shared_span == len(normalise(ORIGINALS[0][0][:20])) >= 18
    client.post(f"/rewrite/{post.pk}/", {"text": "地铁里有两位男士手拉手，我认为没什么，应当互相尊重", "action": "submit"})
    rewrite = Rewrite.objects.get()
    assert rewrite.status == RewriteStatus.SUBMITTED and rewrite.author == rewriters["adjudicator"]
    assert client.post(f"/rewrite/confirm/{rewrite.pk}/", {"action": "hold"}).status_code == 302
    assert Rewrite.objects.get().status == RewriteStatus.SUBMITTED  # not by its author
    client.force_login(rewriters["researcher"])
    assert f"/rewrite/confirm/{rewrite.pk}/" in client.get("/rewrite/").content.decode()
    client.post(f"/rewrite/confirm/{rewrite.pk}/", {"action": "rescore", "explicit": 1, "implicit": 1, "emotional": 5})
    rewrite.refresh_from_db()
    assert rewrite.status == RewriteStatus.SENT_BACK and rewrite.confirmer_scores["emotional"] == 5


def test_releases_page_publishes_a_public_release(client, rewriters, post, media):
    client.force_login(rewriters["adjudicator"])
    client.post(f"/rewrite/{post.pk}/", {"text": "地铁里有两位男士手拉手，我认为没什么，应当互相尊重", "action": "submit"})
    client.force_login(rewriters["researcher"])
    client.post(f"/rewrite/confirm/{Rewrite.objects.get().pk}/", {"action": "hold"})
    client.post("/releases/", {"seed": 0, "public": "on"})
    release = Release.objects.get()
    assert release.kind == "public" and release.summary["posts"] == 1
    page = client.get("/releases/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "公开" in page and 'data-kind="public"' in page
