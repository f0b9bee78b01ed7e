"""Public releases publish clean text (issue 29, item 6)."""
from __future__ import annotations

import json

import pytest

from annotation.importing.services import import_posts
from annotation.models import Post
from publication.rewrite_models import Rewrite

from .test_rewrites import labelled

pytestmark = pytest.mark.django_db


@pytest.fixture
def posts(db):
    import_posts(labelled(), with_labels=True)
    return list(Post.objects.order_by("pk"))


def json_dump(shaped) -> str:
    return json.dumps({"labels": shaped.labels, "judgments": shaped.judgments, "card": shaped.card_section},
                      ensure_ascii=False, default=str)


def test_a_public_release_publishes_clean_text_and_leaves_out_obfuscated_personal_data(posts, make_user):
    """Issue 29, item 6: invisible and format characters never reach a public release, and a
    confirmed rewrite holding personal data written to evade the rules (confirmed before the rules
    read it) is left out and counted."""
    from annotation.releases.files import post_key
    from publication.releasing import release_shape
    from publication.rewrite_models import RewriteStatus

    post, other = posts[0], posts[1]
    checker = make_user("checker", "adjudicator")
    Rewrite.objects.create(post=post, version=1, text="某些\u200b人总在\u2060网络上推广这类内容\ufe0f，看着很烦\u200d",
                           status=RewriteStatus.CONFIRMED, confirmer=checker)
    Rewrite.objects.create(post=other, version=1, text="有人在网上宣传这种东西，还说加他薇❤信 abc12345 细聊",
                           status=RewriteStatus.CONFIRMED, confirmer=checker)
    rows = [{"id": post_key(p.external_id, p.text_sha256), "text": p.text, "explicit": 4, "implicit": 3, "emotional": 5}
            for p in (post, other)]
    shaped = release_shape("public", rows, [])
    assert [r["text"] for r in shaped.labels] == ["某些人总在网络上推广这类内容，看着很烦"]
    assert shaped.summary["left_out"]["personal_data"] == 1 and "abc12345" not in json_dump(shaped)
    assert "personal data found unmasked in its rewrite: 1" in shaped.card_section
