"""A re-scan never unmasks (issue 29, review): run without the name recogniser the posts were scanned
with, it refuses and names the setting; with a cue taken out of a word list, a post keeps the masks
its text has and still gets what the current rules find; --allow-unmask takes masks off and says
how many posts lost one."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotation.importing.cleaning import clean_text
from annotation.importing.parsers import sha256_text
from annotation.importing.services import import_posts
from annotation.models import Batch, Post
from publication.personal_data import rules_version
from publication.personal_data.models import PersonalDataScan
from publication.personal_data.services import unmasks

pytestmark = pytest.mark.django_db

OUTED = "我同事王建国是同性恋，全公司都知道"


def test_without_the_recogniser_of_the_last_scan_the_rescan_refuses(settings, capsys):
    settings.PERSONAL_DATA_NER = "lac"
    import_posts(f"Sentences\n{OUTED}\n今天天气很好\n".encode(), batch_name="b")
    post = Post.objects.get(raw_text=OUTED)
    assert post.text == "我同事[人名]是同性恋，全公司都知道" and post.personal_data_scan.recogniser == "lac"

    settings.PERSONAL_DATA_NER = "none"  # the test default, or a deployment that lost its setting
    with pytest.raises(CommandError, match=r"PERSONAL_DATA_NER is none, so no name recogniser runs, but 2 posts were "
                                           r"last scanned with lac \(2\).*Set PERSONAL_DATA_NER to lac.*--allow-unmask"):
        call_command("rescan_personal_data")
    with pytest.raises(CommandError, match="--allow-unmask"):
        call_command("rescan_personal_data", "--batch", "b", "--dry-run")
    post.refresh_from_db()
    assert post.text == "我同事[人名]是同性恋，全公司都知道" and post.personal_data_scan.recogniser == "lac"

    call_command("rescan_personal_data", "--allow-unmask", "--dry-run")
    out = capsys.readouterr().out
    assert f"1 posts would lose a mask an earlier scan made (--allow-unmask): {post.pk}" in out
    assert "name recogniser: none (PERSONAL_DATA_NER=none: personal names are not found; the default, lac" in out
    post.refresh_from_db()
    assert "王建国" not in post.text

    call_command("rescan_personal_data", "--allow-unmask")
    assert f"1 posts lost a mask an earlier scan made (--allow-unmask): {post.pk}" in capsys.readouterr().out
    post.refresh_from_db()
    assert post.text == OUTED and post.personal_data_scan.recogniser == ""


def test_a_cue_taken_out_of_a_word_list_unmasks_nothing_by_default(tmp_path, monkeypatch, capsys):
    raw = "想认识的私聊蓝信abc12345"
    post = Post.objects.create(text=clean_text(raw), raw_text=raw, text_sha256=sha256_text(clean_text(raw)),
                               batch=Batch.objects.create(name="summer"))
    (tmp_path / "cues_wechat.txt").write_text("蓝信\n", encoding="utf-8")
    monkeypatch.setenv("PERSONAL_DATA_RULES_DIR", str(tmp_path))
    call_command("rescan_personal_data")
    post.refresh_from_db()
    assert post.text == "想认识的私聊蓝信[微信号]"

    monkeypatch.delenv("PERSONAL_DATA_RULES_DIR")  # the cue is gone
    capsys.readouterr()
    call_command("rescan_personal_data")
    out = capsys.readouterr().out
    assert f"1 posts keep the masks an earlier scan made, which the current rules or name recogniser would take off " \
           f"(pass --allow-unmask to take them off): {post.pk}" in out
    assert "0 texts changed" in out
    post.refresh_from_db()
    assert post.text == "想认识的私聊蓝信[微信号]" and post.personal_data_scan.counts == {"wechat": 1}
    assert post.personal_data_scan.rules_version == rules_version()

    call_command("rescan_personal_data", "--allow-unmask")
    post.refresh_from_db()
    assert post.text == "想认识的私聊蓝信abc12345"


def test_a_post_that_keeps_its_masks_gets_what_the_current_rules_find_too():
    """Stored by older rules: a custom cue's WeChat ID masked, the spaced phone number not. The
    current rules (without the cue) would show the ID: the post keeps [微信号] and gets [手机号]."""
    raw = "私聊蓝信abc12345，电话1 3 8-0013-8000"
    post = Post.objects.create(text="私聊蓝信[微信号]，电话1 3 8-0013-8000", raw_text=raw,
                               text_sha256=sha256_text(clean_text(raw)))
    PersonalDataScan.objects.create(post=post, counts={"wechat": 1}, total=1, rules_version="4",
                                    scanned_at=timezone.now())
    call_command("rescan_personal_data")
    post.refresh_from_db()
    assert post.text == "私聊蓝信[微信号]，电话[手机号]"
    assert post.personal_data_scan.counts == {"mobile": 1, "wechat": 1} and post.personal_data_scan.total == 2


@pytest.mark.parametrize("before, after, shows", [
    ("电话[手机号]", "电话[手机号]", False),
    ("我同事[人名]说，电话12345", "我同事[人名]说，电话[手机号]", False),  # masks more
    ("A[人名]B", "[QQ号]B", False),  # a wider mask over the old one
    ("我同事[人名]说", "我同事王建国说", True),
    ("[人名]你好[人名]", "[人名]你好王五", True),
    ("[人名]你好", "[人名]你好 ", True),  # any other difference counts: the old text is kept
    ("没有遮盖", "没有遮盖，别的", False),  # nothing was masked: nothing to show
])
def test_unmasks(before, after, shows):
    assert unmasks(before, after) is shows
