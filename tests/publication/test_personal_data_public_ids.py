"""What identifies an original post never reaches a public release (issue 21): posts imported with
platform ids (Weibo mids), judged by annotators with e-mail addresses, rewritten and confirmed by
named researchers. No file of the public release - Parquet cells included - holds an external id,
any 16-hex prefix of a text hash, a username or an e-mail address."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.core.management import call_command

from annotation.importing.services import import_posts
from annotation.models import Judgment, Post

from .test_public_release import every_file_as_text

pytestmark = pytest.mark.django_db

POSTS = {
    "4890123456789012": "昨天在地铁上看到两个男生牵着手，我觉得挺好的，大家都应该学会尊重别人，微信号：leo_rainbow88",
    "4890123456789013": "这些人天天在网上宣传这种东西，真是让人看不下去，有事打我电话138 0013 8000",
}
REWRITES = {
    "4890123456789012": "有人在车厢里见到两位男士手拉手，我认为没什么，人人应当相互尊重",
    "4890123456789013": "某些人总在网络上推广这类内容，看着很烦",
}


def test_public_release_files_carry_no_platform_id_hash_or_account(rewriters, make_user, media, tmp_path):
    lines = "".join(json.dumps({"id": k, "text": t, "explicit": 2, "implicit": 2, "emotional": 3}, ensure_ascii=False)
                    + "\n" for k, t in POSTS.items())
    import_posts(lines.encode(), filename="posts.jsonl", with_labels=True)
    annotator = make_user("zhang.wei.annotator", role="annotator")
    annotator.email = "zhang.wei@example.org"
    annotator.save()
    for post in Post.objects.all():
        Judgment.objects.create(post=post, annotator=annotator, explicit=2, implicit=2, emotional=3)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["post", "Rewrite"])
    for key, rewrite in REWRITES.items():
        writer.writerow([key, rewrite])
    path = tmp_path / "rewrites.csv"
    path.write_bytes(buffer.getvalue().encode())
    call_command("import_rewrites", str(path), "--confirm", "--user", "res")

    out = tmp_path / "public"
    call_command("export_release", str(out), "--public", "--bootstrap", "0")
    files = every_file_as_text(out)
    assert sorted(REWRITES.values()) == sorted(json.loads(line)["text"] for line in files["release.jsonl"].splitlines())
    secrets = [*POSTS, "zhang.wei", "example.org", "leo_rainbow88", "13800138000", "0013 8000"]
    hashes = [p.text_sha256 for p in Post.objects.all()]
    for name, content in files.items():
        for secret in secrets:
            assert secret not in content, (name, secret)
        for digest in hashes:
            assert digest[:16] not in content, (name, "text hash")
        assert not re.search(r"\bh[0-9a-f]{16}\b", content), name
    # the same posts' internal release does name them by their platform ids: the check above can fail
    call_command("export_release", str(tmp_path / "internal"), "--bootstrap", "0")
    internal = every_file_as_text(tmp_path / "internal")
    assert all(key in internal["release.jsonl"] for key in POSTS) and "[微信号]" in internal["release.jsonl"]
    assert "leo_rainbow88" not in internal["release.jsonl"] and "13800138000" not in internal["release.jsonl"]
