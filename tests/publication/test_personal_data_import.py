"""Personal data at import (issue 21, item 1): masked before anyone sees it, kept in raw_text for
researchers, counted per post; the re-scan command; the per-batch report; raw text in the admin."""
from __future__ import annotations

import re

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils.dateparse import parse_datetime

from annotation.importing.cleaning import clean_text
from annotation.importing.parsers import sha256_text
from annotation.importing.services import ImportFailed, import_judgments, import_posts
from annotation.models import Batch, Post
from publication.personal_data import PLACEHOLDERS
from publication.personal_data.models import PersonalDataScan

from .personal_data_generator import PLANTED_KINDS, generate_posts, posts_csv

pytestmark = pytest.mark.django_db

# Harder ways of writing the same kinds that the rules handle, planted beside the generated posts.
EXTRA = [
    ("手机１３９１２３４５６７８找我", [("mobile", "１３９１２３４５６７８")]),
    ("＠小雨_2049 你好，邮箱 xiao.yu@163.com", [("mention", "小雨_2049"), ("email", "xiao.yu@163.com")]),
    ("电话139😀1234 9876 别打错", [("mobile", "1391234 9876")]),  # split by an emoji
    ("87654329是我的QQ，微信号是wxid_ab12cd34", [("qq", "87654329"), ("wechat", "wxid_ab12cd34")]),
]


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value.translate(str.maketrans("０１２３４５６７８９", "0123456789")))


def _walk_queue(client, batch_id: int) -> list:
    """Every response an annotator receives while judging the whole queue through the API, parsed."""
    bodies = []
    response = client.post(reverse("api:api-queue-next", args=[batch_id]))
    bodies.append(response.json())
    item = response.json()["item"]
    while item is not None:
        response = client.post(reverse("api:api-queue-submit", args=[batch_id]),
                               {"item": item, "explicit": 2, "implicit": 3, "emotional": 1}, format="json")
        assert response.status_code == 201, response.content
        bodies.append(response.json())
        item = response.json()["next"]["item"]
    bodies.append(client.get(reverse("api:api-judgments")).json())
    return bodies


def _string_fields(value, key: str = "") -> list[tuple[str, str]]:
    """(key, value) for every string field of a parsed JSON answer, timestamps left out: a planted
    number such as a QQ "15252" may well sit in a timestamp's microseconds (10:31:33.415252Z)."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _string_fields(v, k)]
    if isinstance(value, list):
        return [pair for v in value for pair in _string_fields(v, key)]
    if isinstance(value, str) and parse_datetime(value) is None:
        return [(key, value)]
    return []


def test_an_annotator_walking_the_queue_receives_no_planted_value(make_annotators, api_for):
    generated = generate_posts(150, seed=3, planted_share=1.0, hard_share=0.0)
    assert {kind for post in generated for kind, _s, _e in post.planted} == set(PLANTED_KINDS)
    extra_csv = "".join(f"{text}\r\n" for text, _values in EXTRA).encode()
    result = import_posts(posts_csv(generated) + extra_csv, filename="planted.csv", batch_name="planted")
    assert result.created == len(generated) + len(EXTRA)
    batch = Batch.objects.get(name="planted")
    (annotator,) = make_annotators(1)
    batch.annotators.add(annotator)

    fields = [pair for body in _walk_queue(api_for(annotator), batch.pk) for pair in _string_fields(body)]
    received = [value for _key, value in fields]
    texts_received = [value for key, value in fields if key in ("text", "post_text")]
    assert len(set(texts_received)) == result.created  # the whole queue was served, every text once or more
    served = "\n".join(Post.objects.values_list("text", flat=True))
    planted = [value for post in generated for _kind, value in post.values()] + [v for _t, vs in EXTRA for _k, v in vs]
    for value in planted:
        assert not any(value in field for field in received) and value not in served, value
        digits = _digits(value)
        if len(digits) >= 5:  # however the number was written, no text carries its digits
            assert not any(digits in re.sub(r"[\s\-()（）]", "", t) for t in texts_received), value
    for placeholder in ("[手机号]", "[邮箱]", "[身份证号]", "[银行卡号]", "[QQ号]", "[微信号]", "[车牌号]", "[IP地址]", "[链接]", "[地址]"):
        assert placeholder in served

    ordinary = [(post, number) for post in generated for number in post.ordinary]
    texts = dict(zip([p.text for p in generated], Post.objects.filter(batch=batch).order_by("pk").values_list(
        "text", flat=True)))
    intact = sum(number in texts[post.text] for post, number in ordinary)
    assert intact / len(ordinary) >= 0.95, (intact, len(ordinary))

    # researchers keep the original, and the counts per post
    first = Post.objects.filter(batch=batch).order_by("pk").first()
    assert first.raw_text == generated[0].text and first.text_sha256 == sha256_text(clean_text(generated[0].text))
    scans = {s.post_id: s for s in PersonalDataScan.objects.filter(post__batch=batch)}
    assert len(scans) == result.created
    planted_per_kind = {kind: sum(1 for p in generated for k, _s, _e in p.planted if k == kind) for kind in PLANTED_KINDS}
    found_per_kind = {kind: sum(s.counts.get(kind, 0) for s in scans.values()) for kind in PLANTED_KINDS}
    for kind in PLANTED_KINDS:
        assert found_per_kind[kind] >= planted_per_kind[kind], (kind, found_per_kind, planted_per_kind)


def test_posts_that_differ_only_in_personal_data_are_two_posts_and_keep_their_identity():
    body = "Sentences\n打我电话13800138000\n打我电话13900139000\n".encode()
    import_posts(body, batch_name="b")
    texts = list(Post.objects.order_by("pk").values_list("text", "text_sha256"))
    assert [t for t, _h in texts] == ["打我电话[手机号]", "打我电话[手机号]"]
    assert [h for _t, h in texts] == [sha256_text("打我电话13800138000"), sha256_text("打我电话13900139000")]
    with pytest.raises(ImportFailed, match="already in the database"):
        import_posts("Sentences\n打我电话13800138000\n".encode())


def test_a_named_recogniser_that_is_not_on_disk_stops_the_import(settings, tmp_path):
    from publication.personal_data.services import _recogniser_for

    settings.PERSONAL_DATA_NER = str(tmp_path / "no-such-model")
    _recogniser_for.cache_clear()
    try:
        with pytest.raises(ImportFailed, match="PERSONAL_DATA_NER"):
            import_posts("Sentences\n你好\n".encode(), batch_name="b")
    finally:
        _recogniser_for.cache_clear()
    assert not Post.objects.exists() and not Batch.objects.exists()


def test_judgments_that_create_their_posts_mask_them():
    import_judgments("post,annotator,explicit,implicit,emotional\n加我微信abc_12345,a1,1,2,3\n".encode(),
                     create_missing_posts=True)
    post = Post.objects.get()
    assert post.text == "加我微信[微信号]" and post.raw_text == "加我微信abc_12345"
    assert post.personal_data_scan.counts == {"wechat": 1}
    # A key that is the post's text is not its id: the id reaches release files, the admin's list and
    # takedown records, none of which may carry the unmasked text.
    assert post.external_id is None and post.text_sha256 == sha256_text(clean_text("加我微信abc_12345"))
    from annotation.releases.selectors import current_label_rows
    from annotation.models import FinalLabel
    FinalLabel.objects.create(post=post, explicit=1, implicit=2, emotional=3)
    assert "abc_12345" not in repr(current_label_rows())
    # a later judgments file keyed by the same text finds the post instead of creating another
    import_judgments("post,annotator,explicit,implicit,emotional\n加我微信abc_12345,a2,1,2,3\n".encode(),
                     create_missing_posts=True)
    assert Post.objects.count() == 1 and post.judgments.count() == 2


def test_judgments_keyed_by_id_keep_it_and_texts_differing_only_in_emoji_are_one_post():
    import_judgments("post,annotator,explicit,implicit,emotional\nweibo_4890123,a1,1,2,3\n"
                     "电话13800138000 真的😀,a1,1,2,3\n电话13800138000 真的,a2,1,2,3\n".encode(),
                     create_missing_posts=True)
    assert Post.objects.filter(external_id="weibo_4890123").exists()
    texts = list(Post.objects.exclude(external_id="weibo_4890123").values_list("external_id", "text"))
    assert texts == [(None, "电话[手机号] 真的")]


# --- re-scan --------------------------------------------------------------------------------------------

def _unmasked_post(raw: str, batch=None) -> Post:
    """A post as the importer stored it before the rules existed: cleaned, nothing masked, no scan."""
    return Post.objects.create(text=clean_text(raw), raw_text=raw, text_sha256=sha256_text(clean_text(raw)),
                               batch=batch)


def test_rescan_masks_posts_imported_before_and_reports_what_changed(capsys):
    batch = Batch.objects.create(name="old")
    other = Batch.objects.create(name="other")
    a = _unmasked_post("电话 13800138000，邮箱 a.b@qq.com", batch)
    b = _unmasked_post("第12集太好看了，1998年的老剧", batch)
    c = _unmasked_post("QQ 12345678", other)
    call_command("rescan_personal_data", "--batch", "old", "--dry-run")
    out = capsys.readouterr().out
    assert "2 texts would change" not in out and "1 texts would change" in out and "mobile [手机号]: 0 -> 1" in out
    assert Post.objects.get(pk=a.pk).text == clean_text(a.raw_text) and not PersonalDataScan.objects.exists()

    call_command("rescan_personal_data", "--batch", "old")
    out = capsys.readouterr().out
    assert "Scanned 2 posts (2 for the first time); 1 texts changed." in out and "email [邮箱]: 0 -> 1" in out
    a.refresh_from_db()
    assert a.text == "电话 [手机号]，邮箱 [邮箱]" and a.text_sha256 == sha256_text(clean_text(a.raw_text))
    assert a.personal_data_scan.counts == {"mobile": 1, "email": 1} and b.personal_data_scan.total == 0
    assert Post.objects.get(pk=c.pk).text == "QQ 12345678"  # another batch: untouched

    call_command("rescan_personal_data")
    out = capsys.readouterr().out
    assert "Scanned 3 posts (1 for the first time); 1 texts changed." in out
    call_command("rescan_personal_data")
    assert "0 texts changed" in capsys.readouterr().out  # nothing new: a re-scan is idempotent


def test_rescan_is_all_or_nothing(monkeypatch):
    from publication.personal_data import services as personal_data_services

    post = _unmasked_post("电话 13800138000")
    monkeypatch.setattr(personal_data_services, "personal_data_record",
                        lambda **kw: (_ for _ in ()).throw(RuntimeError("disk full")))
    with pytest.raises(RuntimeError):
        call_command("rescan_personal_data")
    assert Post.objects.get(pk=post.pk).text == "电话 13800138000"


def test_rescan_of_an_unknown_batch_says_which_exist():
    Batch.objects.create(name="real")
    with pytest.raises(CommandError, match=r"No batch is named 'nope' \(batches: real\)\. Nothing was changed"):
        call_command("rescan_personal_data", "--batch", "nope")


# --- the report and raw text ----------------------------------------------------------------------------

@pytest.fixture
def imported_batch():
    import_posts("Sentences\n电话13800138000，QQ：1234567\n第3集很好看\n邮箱 x.y@163.com\n".encode(), batch_name="pd")
    return Batch.objects.get(name="pd")


@pytest.mark.parametrize("language, words", [
    ("en", ["Personal data in batch pd", "3 posts, 3 scanned: 2 posts held personal data (3 items, all masked).",
            "Personal names are not found.", "Mobile number"]),
    ("zh-hans", ["批次 pd 中的个人信息", "个人姓名不会被发现。", "手机号码"]),
])
def test_the_batch_report_counts_kinds_and_says_names_are_not_found(imported_batch, make_user, language, words):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(make_user("r", role="researcher"))
    page = client.get(reverse("personal_data:batch", args=[imported_batch.pk])).content.decode()
    for word in words:
        assert word in page, word
    assert re.search(r'data-kind="mobile"><td>[^<]+</td><td><code>\[手机号\]</code></td><td>1</td>', page)
    assert re.search(r'data-kind="qq">.*?<td>1</td>', page) and re.search(r'data-kind="id_card">.*?<td>0</td>', page)
    assert "13800138000" not in page and "x.y@163.com" not in page  # masked text only
    overview = client.get(reverse("personal_data:overview")).content.decode()
    assert reverse("personal_data:batch", args=[imported_batch.pk]) in overview


def test_the_report_is_for_researchers(imported_batch, make_user):
    for role in ("annotator", "adjudicator"):
        client = Client()
        client.force_login(make_user(role, role=role))
        assert client.get(reverse("personal_data:batch", args=[imported_batch.pk])).status_code == 403
        assert client.get(reverse("personal_data:overview")).status_code == 403


def test_raw_text_in_the_admin_is_for_researchers_only(imported_batch, make_user):
    from django.contrib.auth.models import Permission

    post = Post.objects.get(raw_text__contains="13800138000")
    staff = make_user("staff-adjudicator", role="adjudicator", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_post"))
    client = Client()
    client.force_login(staff)
    page = client.get(reverse("admin:annotation_post_change", args=[post.pk])).content.decode()
    assert "[手机号]" in page and "13800138000" not in page
    researcher = make_user("res", role="researcher", is_staff=True, is_superuser=True)
    client.force_login(researcher)
    assert "13800138000" in client.get(reverse("admin:annotation_post_change", args=[post.pk])).content.decode()


def test_the_batch_admin_links_to_the_report(imported_batch, make_user):
    client = Client()
    client.force_login(make_user("res", role="researcher", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:annotation_batch_changelist")).content.decode()
    assert reverse("personal_data:batch", args=[imported_batch.pk]) in page


def test_placeholders_are_what_the_report_names():
    assert PLACEHOLDERS["mobile"] == "[手机号]" and PLACEHOLDERS["email"] == "[邮箱]"


def test_the_queue_walk_searches_fields_not_timestamps():
    """Issue 31, item 1: the walk above once found the planted QQ number 15252 in a timestamp's
    microseconds (10:31:33.415252Z) of the raw body; it now searches parsed string fields only."""
    answer = {"claimed_at": "2026-11-27T10:31:33.415252Z", "text": "加我QQ 15252",
              "next": {"post_text": "[QQ号]", "item": 7}, "rows": [{"text": "a"}]}
    assert _string_fields(answer) == [("text", "加我QQ 15252"), ("post_text", "[QQ号]"), ("text", "a")]
