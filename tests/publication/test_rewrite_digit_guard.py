"""A rewrite that keeps five or more digits in a row of a piece of personal data found in the original
(a QQ or phone number the detector masked in the post) is refused, on the rewrite page's service and
in `import_rewrites`: the rest of the number would not be masked in the rewrite, since the detector
needs the whole number (and its cue) to find it."""
from __future__ import annotations

import pytest

from annotation.importing.parsers import ImportFailed
from annotation.importing.services import import_posts
from annotation.models import Post
from core.errors import DomainError
from publication.rewrite_models import Rewrite
from publication.rewriting.importing import rewrites_import
from publication.rewriting.services import rewrite_save_draft

pytestmark = pytest.mark.django_db

ORIGINAL = "这些人天天在网上宣传这种东西，有本事加我QQ 1234 5678 9当面说，真是让人看不下去"


@pytest.fixture
def post(db):
    import_posts(f"Sentences,Explicit,Implicit,Emotional\r\n{ORIGINAL},4,3,5\r\n".encode(), with_labels=True)
    post = Post.objects.get()
    assert "[QQ号]" in post.text and "1234 5678 9" in post.raw_text
    return post


@pytest.mark.parametrize("text", [
    "有人在网上说这种话，还留了号码 12345 让人去找他，令人反感",
    "有人在网上说这种话，还留了号码 5678 9 让人去找他，令人反感",  # the digits across a space
    "有人在网上说这种话，还留了号码 ３４５６７ 让人去找他，令人反感",  # full-width digits
])
def test_a_rewrite_keeping_five_digits_of_personal_data_is_refused(post, rewriters, text):
    with pytest.raises(DomainError, match="five or more digits"):
        rewrite_save_draft(post_id=post.pk, author=rewriters["researcher"], text=text)
    assert not Rewrite.objects.exists()


@pytest.mark.parametrize("text", [
    "有人在网上说这种话，还留了号码 1234 让人去找他，令人反感",  # four digits in a row
    "有人在网上说这种话，2023 年 10 月 01 日发的，令人反感",  # digits not from the number
    "有人在网上说这种话，还留了联系方式[QQ号]让人去找他，令人反感",
])
def test_a_rewrite_without_five_of_its_digits_is_saved(post, rewriters, text):
    assert rewrite_save_draft(post_id=post.pk, author=rewriters["researcher"], text=text).pk


def test_import_rewrites_refuses_the_line(post, rewriters):
    data = (f"post,Rewrite\r\n{post.pk},有人在网上留了号码 234567 让人去找他\r\n").encode()
    with pytest.raises(ImportFailed) as failed:
        rewrites_import(data)
    assert [p.line for p in failed.value.problems] == [2]
    assert "five or more digits" in failed.value.problems[0].reason
    assert not Rewrite.objects.exists()


def test_a_rewrite_holding_the_whole_number_with_its_cue_is_masked_not_refused(post, rewriters):
    saved = rewrite_save_draft(post_id=post.pk, author=rewriters["researcher"],
                               text="有人在网上说这种话，还让人加他QQ 1234 5678 9，令人反感")
    assert "[QQ号]" in saved.text and "1234" not in saved.text


def test_a_confirmed_rewrite_keeping_the_digits_is_left_out_of_a_public_release(post, make_user):
    """Rewrites confirmed before the guard existed (written straight to the table here) are checked
    again when a public release is shaped: the post is left out, counted under personal data."""
    from annotation.releases.files import post_key
    from publication.releasing import release_shape
    from publication.rewrite_models import RewriteStatus

    kept = "某些人总在网络上推广这类内容，号码是1234 5678 9，看着很烦"
    Rewrite.objects.create(post=post, version=1, text=kept, status=RewriteStatus.CONFIRMED,
                           confirmer=make_user("checker", "adjudicator"))
    row = {"id": post_key(post.external_id, post.text_sha256), "text": post.text,
           "explicit": 4, "implicit": 3, "emotional": 5}
    shaped = release_shape("public", [row], [])
    assert shaped.labels == [] and "1234" not in json_dump(shaped)
    assert "personal_data" in str(shaped.summary) or "personal data" in shaped.card_section


def json_dump(shaped) -> str:
    import json

    return json.dumps({"labels": shaped.labels, "judgments": shaped.judgments, "card": shaped.card_section},
                      ensure_ascii=False, default=str)

