"""A public release measures what it publishes (issue 29, items 5-6): the shared-span check and the
personal-data check are made on the cleaned text (NFKC, invisible characters removed) as well as on
the rewrite as confirmed. Cleaning can turn a rewrite that looks different into the original: an
enclosed or parenthesised ideograph (🈐, ㈲) is a symbol the search view drops, and NFKC publishes it
as the character it encloses (手, (有)); a circled number (⑬) is no digit until NFKC makes it two."""
from __future__ import annotations

import json

import pytest

from annotation.importing.services import import_posts
from annotation.models import Post
from publication.personal_data.normalise import clean_for_publication
from publication.rewrite_models import Rewrite
from publication.rewriting.checks import release_span
from publication.spans import max_shared_span_setting

from .test_rewrites import ORIGINALS, labelled

pytestmark = pytest.mark.django_db

# Parenthesised ideographs: NFKC gives "(有)", "(学)", "(名)", "(社)" - three characters for one.
OWN_POST = ("我有一个朋友在学校里被人起了外号，名字都不敢说，社团的人也跟着起哄", 1, 2, 3)
OWN_REWRITE = "我㈲一个朋友在㈻校里被人起了外号，㈴字都不敢说，㈳团的人也跟着起哄"
# Enclosed ideographs (🈗 天, 🈢 生, 🈐 手, 🉐 得): NFKC gives the character itself.
FIRST_REWRITE = "昨🈗在地铁上看到两个男🈢牵着🈐，我觉🉐挺好的，大家都应该学会尊重别人"


@pytest.fixture
def posts(db):
    import_posts(labelled([*ORIGINALS, OWN_POST]), with_labels=True)
    return list(Post.objects.order_by("pk"))


def _shape(posts, texts, checker):
    from annotation.releases.files import post_key
    from publication.releasing import release_shape
    from publication.rewrite_models import RewriteStatus

    rows = []
    for post, text in zip(posts, texts):
        Rewrite.objects.create(post=post, version=1, text=text, status=RewriteStatus.CONFIRMED, confirmer=checker)
        rows.append({"id": post_key(post.external_id, post.text_sha256), "text": post.text,
                     "explicit": 1, "implicit": 1, "emotional": 1})
    return release_shape("public", rows, [])


def test_the_measures_differ_before_and_after_cleaning():
    """What the test is about: each rewrite passes the span check as confirmed, and its cleaned text is
    the original (or holds it whole)."""
    threshold = max_shared_span_setting()
    for rewrite, original in ((FIRST_REWRITE, ORIGINALS[0][0]), (OWN_REWRITE, OWN_POST[0])):
        assert release_span(rewrite, raw_text=original, cleaned_text=original) < threshold
        assert release_span(clean_for_publication(rewrite), raw_text=original, cleaned_text=original) >= len(original) - 4


def test_a_rewrite_whose_published_text_is_searchable_is_left_out_and_counted(posts, make_user):
    kept = "有人在地铁里看见两位男士手拉手，我认为没什么，每个人都该被尊重"
    shaped = _shape([posts[0], posts[3], posts[1]], [FIRST_REWRITE, OWN_REWRITE, kept], make_user("checker", "adjudicator"))
    assert [r["text"] for r in shaped.labels] == [kept]
    assert shaped.summary["left_out"]["searchable"] == 2
    assert "its confirmed rewrite is searchable: 2" in shaped.card_section
    dumped = json.dumps({"labels": shaped.labels, "card": shaped.card_section}, ensure_ascii=False)
    assert "尊重别人" not in dumped and "起哄" not in dumped


def test_a_rewrite_whose_published_text_holds_a_phone_number_is_left_out(posts, make_user):
    # ⑬ is one character no rule reads as digits; the published text has "13" there.
    leaky = "有人在网上宣传这种东西，说有事打⑬8⓪⓪⑬8⓪⓪⓪细聊"
    assert "13800138000" in clean_for_publication(leaky)
    shaped = _shape([posts[1]], [leaky], make_user("checker", "adjudicator"))
    assert shaped.labels == [] and shaped.summary["left_out"]["personal_data"] == 1
