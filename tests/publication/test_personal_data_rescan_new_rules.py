"""rescan_personal_data on posts imported with earlier rules shows what the new rules change (issue
29, item 2): an import made with rules version 4 (the forms below went unmasked then), re-scanned
with the current rules; then a cue a researcher adds to PERSONAL_DATA_RULES_DIR, applied the same way."""
from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.importing.cleaning import clean_text
from annotation.importing.parsers import sha256_text
from annotation.models import Batch, Post
from publication.personal_data import rules_version
from publication.personal_data.models import PersonalDataScan

pytestmark = pytest.mark.django_db

WRITTEN_TO_EVADE = [
    ("加我 v x：leo_2020abc 私聊", "wechat"),
    ("企鵝號：12345678", "qq"),
    ("找我13\u200b80\u200b01\u200b38\u200b00\u200b0", "mobile"),
    ("邮箱 leo2020[at]qq[dot]com", "email"),
    ("他家在阳光花园3栋2单元501", "address"),
]
UNCHANGED = ["路由器 192.168.1.1 重启一下", "帝企鹅 256000 对"]


def _imported_with_rules_v4(batch) -> list[Post]:
    """Posts as the v4 importer left them: cleaned text, these forms unmasked, a scan row of v4."""
    posts = []
    for raw in [raw for raw, _kind in WRITTEN_TO_EVADE] + UNCHANGED:
        post = Post.objects.create(text=clean_text(raw), raw_text=raw, text_sha256=sha256_text(clean_text(raw)), batch=batch)
        PersonalDataScan.objects.create(post=post, counts={}, total=0, rules_version="4", scanned_at=timezone.now())
        posts.append(post)
    return posts


def test_a_rescan_of_an_earlier_import_reports_what_the_new_rules_change(capsys):
    posts = _imported_with_rules_v4(Batch.objects.create(name="spring"))
    call_command("rescan_personal_data", "--batch", "spring")
    out = capsys.readouterr().out
    assert f"Last scanned with rules version 4 (7 posts); now {rules_version()}." in out
    assert "Scanned 7 posts (0 for the first time); 5 texts changed." in out
    for _raw, kind in WRITTEN_TO_EVADE:
        assert re.search(rf"^  {kind} \[[^\]]+\]: 0 -> 1$", out, re.MULTILINE), (kind, out)
    changed = [int(i) for i in re.search(r"Posts whose text changed: ([\d, ]+)", out).group(1).split(", ")]
    assert changed == [p.pk for p in posts[:5]]
    for post in posts:
        post.refresh_from_db()
    assert "leo_2020abc" not in posts[0].text and "12345678" not in posts[1].text and "\u200b" not in posts[2].text
    assert [p.text for p in posts[5:]] == [clean_text(raw) for raw in UNCHANGED]
    assert set(PersonalDataScan.objects.values_list("rules_version", flat=True)) == {rules_version()}


def test_a_cue_a_researcher_adds_is_applied_by_the_rescan(tmp_path, monkeypatch, capsys):
    batch = Batch.objects.create(name="summer")
    raw = "想认识的私聊蓝信abc12345"
    post = Post.objects.create(text=clean_text(raw), raw_text=raw, text_sha256=sha256_text(clean_text(raw)), batch=batch)
    call_command("rescan_personal_data")
    assert "0 texts changed" in capsys.readouterr().out
    before = rules_version()
    (tmp_path / "cues_wechat.txt").write_text("蓝信\n", encoding="utf-8")
    monkeypatch.setenv("PERSONAL_DATA_RULES_DIR", str(tmp_path))
    assert rules_version() != before
    call_command("rescan_personal_data", "--dry-run")
    out = capsys.readouterr().out
    assert f"Last scanned with rules version {before} (1 posts); now {rules_version()}." in out
    assert "1 texts would change" in out and "wechat [微信号]: 0 -> 1" in out
    call_command("rescan_personal_data")
    post.refresh_from_db()
    assert post.text == "想认识的私聊蓝信[微信号]"
