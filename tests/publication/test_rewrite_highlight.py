"""The rewrite page's live highlight is measured by the server (issue 29, item 5): the same
normaliser as on save and at release, so a draft that only hides the original behind invisible
characters, emoji or traditional characters is marked searchable; offsets are code points of the
draft; placeholders break runs; the raw text is never measured (the page cannot probe it)."""
from __future__ import annotations

import pytest
from opencc import OpenCC

from annotation.models import Post
from publication.spans import DEFAULT_MAX_SHARED_SPAN

from .test_rewrites import labelled

pytestmark = pytest.mark.django_db


@pytest.fixture
def post(rewriters):
    from annotation.importing.services import import_posts

    import_posts(labelled(), with_labels=True)
    return Post.objects.order_by("pk").first()


def _spans(client, post, text):
    response = client.post(f"/rewrite/{post.pk}/spans/", {"text": text})
    assert response.status_code == 200, response.content
    return response.json()


def test_a_draft_hiding_the_original_behind_invisible_and_traditional_characters_is_marked(client, rewriters, post):
    client.force_login(rewriters["adjudicator"])
    quote = post.text[:18]
    hidden = "开头" + "\u200b".join(OpenCC("s2t").convert(quote)) + "😀"
    answer = _spans(client, post, hidden)
    assert answer["longest"] >= 16 > DEFAULT_MAX_SHARED_SPAN - 1 and answer["searchable"] is True
    (segment,) = answer["segments"]
    chars = list(hidden)  # code points, as the page slices them
    marked = "".join(chars[segment["start"]:segment["end"]])
    assert marked.replace("\u200b", "") == OpenCC("s2t").convert(quote).rstrip("，。！？")[:len(marked.replace("\u200b", ""))]
    assert _spans(client, post, "完全不同的一句话")["segments"] == []


def test_placeholders_break_runs_and_the_raw_text_is_not_measured(client, rewriters):
    from annotation.importing.services import import_posts

    import_posts(("Sentences\n"
                  "我的朋友今天终于出柜了大家都很支持他，电话13800138000随时联系我们一起庆祝吧\n").encode(), with_labels=False)
    post = Post.objects.get()
    assert "[手机号]" in post.text and "13800138000" in post.raw_text
    client.force_login(rewriters["researcher"])
    answer = _spans(client, post, "电话13800138000随时联系")
    assert answer["longest"] < 8  # "随时联系" and around: the number itself is not in the masked text
    answer = _spans(client, post, "都很支持他，电话[手机号]随时联系我们一起")
    assert answer["longest"] < DEFAULT_MAX_SHARED_SPAN


def test_annotators_cannot_ask_and_a_get_is_refused(client, rewriters, post):
    client.force_login(rewriters["annotator"])
    assert client.post(f"/rewrite/{post.pk}/spans/", {"text": "x"}).status_code == 403
    client.force_login(rewriters["adjudicator"])
    assert client.get(f"/rewrite/{post.pk}/spans/").status_code == 405


def test_the_page_points_its_script_at_the_endpoint(client, rewriters, post):
    client.force_login(rewriters["adjudicator"])
    page = client.get(f"/rewrite/{post.pk}/").content.decode()
    assert f'data-spans-url="/rewrite/{post.pk}/spans/"' in page
