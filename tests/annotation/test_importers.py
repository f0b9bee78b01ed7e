"""The shared importer: ChLGBT's CSV format and JSONL, all-or-nothing with every problem listed."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.importing.services import ImportFailed, import_posts
from annotation.models import FinalLabel, Post, Provenance

pytestmark = pytest.mark.django_db

COMMENT = '"# Test corpus, columns: Sentences; Explicit; Implicit; Emotional. ""quoted"" licence",,,'
HEADER = "Sentences,Explicit,Implicit,Emotional"


def chlgbt_csv(rows: list[str], newline: str = "\r\n", comment: bool = True) -> str:
    lines = ([COMMENT] if comment else []) + [HEADER] + rows
    return newline.join(lines) + newline


def problems_of(data: bytes, **kw) -> list[str]:
    with pytest.raises(ImportFailed) as info:
        import_posts(data, **kw)
    assert Post.objects.count() == 0 and FinalLabel.objects.count() == 0
    return [str(p) for p in info.value.problems]


def test_chlgbt_format_with_comment_crlf_and_labels():
    data = chlgbt_csv(["我支持同性婚姻,1,1,2", '"带逗号,的帖子",2,3,4']).encode("utf-8")
    result = import_posts(data, with_labels=True, batch_name="b")
    assert result.created == 2 and result.labelled == 2
    post = Post.objects.get(text="带逗号,的帖子")
    assert post.final_label.scores() == {"explicit": 2, "implicit": 3, "emotional": 4}
    assert post.final_label.provenance == Provenance.IMPORTED
    assert post.batch.name == "b"


@pytest.mark.parametrize("encoding,bom,newline", [
    ("utf-8", b"", "\n"), ("utf-8", b"\xef\xbb\xbf", "\r\n"), ("gb18030", b"", "\r\n"), ("gb18030", b"", "\n"),
])
def test_encodings_and_line_endings(encoding, bom, newline):
    data = bom + chlgbt_csv(["第一条帖子,,,", "第二条帖子,,,"], newline=newline, comment=False).encode(encoding)
    result = import_posts(data)
    assert result.encoding == encoding
    assert sorted(Post.objects.values_list("text", flat=True)) == ["第一条帖子", "第二条帖子"]


def test_header_without_label_columns():
    import_posts("Sentences\n只有文本的帖子\n".encode())
    assert Post.objects.get().text == "只有文本的帖子"


def test_cleaning_strips_mentions_urls_tags_emoji_and_keeps_raw():
    raw = "@某用户: 看看这个 https://t.cn/abc 😀😀 #彩虹# 好[哈哈]！"
    import_posts(f"Sentences\n{raw}\n".encode())
    post = Post.objects.get()
    assert post.text == "看看这个 彩虹 好！"
    assert post.raw_text == raw


def test_label_of_six_is_refused_with_line_number():
    problems = problems_of(chlgbt_csv(["好帖子,1,1,1", "坏帖子,6,1,1"]).encode())
    assert problems == ["line 4: Explicit must be between 1 and 5, got 6"]


def test_every_problem_is_listed():
    rows = ["好帖子,1,1,1", ",1,1,1", "列数不对,1,1", "非数字,a,1,1", "好帖子,1,2,1", "部分标签,1,,"]
    problems = problems_of(chlgbt_csv(rows).encode())
    assert problems == [
        "line 4: empty text (nothing left after cleaning)",
        "line 5: expected 4 columns, found 3",
        "line 6: Explicit must be an integer 1-5, got 'a'",
        "line 7: conflict: the same text as line 3 (after cleaning) with other labels or another id (1/2/1 here, "
        "1/1/1 there); keep the right one and remove the other",
        "line 8: labels must be given for all three dimensions or none",
    ]


def test_an_exact_duplicate_is_skipped_and_reported_not_refused(tmp_path):
    """ChLGBT's own file holds one post twice (same text, same labels): the file imports, the
    repeat is left out and named; the same text cleaned to the same post counts as the same."""
    from django.core.management import call_command

    rows = ["好帖子,1,2,3", "另一条,2,2,2", "好帖子,1,2,3", "@某人 好帖子,1,2,3"]
    result = import_posts(chlgbt_csv(rows).encode(), with_labels=True)
    assert (result.created, result.labelled) == (2, 2)
    assert [str(p) for p in result.skipped] == [
        "line 5: the same post as line 3 (same text and labels); skipped",
        "line 6: the same post as line 3 (same text and labels); skipped"]
    assert Post.objects.count() == 2

    path = tmp_path / "posts.csv"
    path.write_text(chlgbt_csv(["新帖子,1,1,1", "新帖子,1,1,1"]), encoding="utf-8")
    out = io.StringIO()
    call_command("import_posts", str(path), "--with-labels", stdout=out)
    assert "line 4: the same post as line 3" in out.getvalue() and "Skipped 1 exact duplicate" in out.getvalue()


def test_duplicates_with_other_labels_or_ids_are_conflicts_and_nothing_is_imported():
    rows = ["好帖子,1,2,3", "好帖子,1,2,4"]
    assert problems_of(chlgbt_csv(rows).encode()) == [
        "line 4: conflict: the same text as line 3 (after cleaning) with other labels or another id (1/2/4 here, "
        "1/2/3 there); keep the right one and remove the other"]
    jsonl = '{"id": "a", "text": "好帖子"}\n{"id": "b", "text": "好帖子"}\n'
    assert "conflict" in problems_of(jsonl.encode())[0]
    assert Post.objects.count() == 0


def test_empty_file():
    assert problems_of(b"") == ["the file is empty: expected a header 'Sentences,Explicit,Implicit,Emotional'"]


def test_truncated_last_line_with_open_quote():
    data = chlgbt_csv(["完整的帖子,1,1,1"]).encode() + '"被截断的帖子,1,'.encode()
    problems = problems_of(data)
    assert len(problems) == 1 and "line 4" in problems[0]


def test_truncated_last_line_missing_columns():
    data = chlgbt_csv(["完整的帖子,1,1,1"]).encode() + "被截断的帖子,1".encode()
    assert problems_of(data) == ["line 4: expected 4 columns, found 2"]


def test_mixed_encodings_report_the_foreign_lines():
    data = "Sentences\n第一条是UTF-8\n".encode() + "第二条是GBK\n".encode("gbk") + "第三条是UTF-8\n".encode()
    assert problems_of(data) == [
        "line 3: undecodable bytes: this line is not UTF-8 while the rest of the file is (mixed encodings)"
    ]


def test_five_megabyte_single_cell():
    data = b"Sentences\n\"" + ("长" * (5 * 1024 * 1024 // 3)).encode() + b"\"\n"
    problems = problems_of(data)
    assert len(problems) == 1 and problems[0].startswith("line 2: ")


def test_duplicate_of_existing_post_imports_nothing():
    import_posts("Sentences\n已有帖子\n".encode())
    with pytest.raises(ImportFailed) as info:
        import_posts("Sentences\n新帖子\n已有帖子\n".encode())
    assert [str(p) for p in info.value.problems] == ["line 3: duplicate of a post already in the database"]
    assert Post.objects.count() == 1


def test_jsonl():
    lines = [json.dumps({"id": "p1", "text": "第一条", "explicit": 2, "implicit": 1, "emotional": 3}, ensure_ascii=False),
             json.dumps({"text": "第二条"}, ensure_ascii=False)]
    result = import_posts("\n".join(lines).encode(), filename="posts.jsonl")
    assert result.created == 2 and Post.objects.get(external_id="p1").text == "第一条"


def test_jsonl_bad_lines():
    data = '{"text": "好"}\nnot json\n{"text": 3}\n{"text": "标签错", "explicit": 9, "implicit": 1, "emotional": 1}\n'
    problems = problems_of(data.encode(), filename="x.jsonl")
    assert [p.split(":")[0] for p in problems] == ["line 2", "line 3", "line 4"]


def test_with_labels_requires_labels():
    problems = problems_of("Sentences,Explicit,Implicit,Emotional\n有标签,1,1,1\n无标签,,,\n".encode(), with_labels=True)
    assert problems == ["line 3: --with-labels needs labels on every row"]


def test_command_exit_code_and_messages(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("Sentences,Explicit,Implicit,Emotional\n帖子,7,1,1\n", encoding="utf-8")
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_posts", str(bad))
    assert "line 2: Explicit must be between 1 and 5, got 7" in capsys.readouterr().err
    good = tmp_path / "good.csv"
    good.write_text("Sentences,Explicit,Implicit,Emotional\n帖子,3,1,1\n", encoding="utf-8")
    call_command("import_posts", str(good), "--with-labels")
    assert FinalLabel.objects.get().explicit == 3


def test_import_judgments_refuses_posts_it_does_not_know(tmp_path):
    """An unknown post key is a per-line error: the importer never invents a post whose text is the key."""
    from annotation.importing.services import import_judgments
    from annotation.models import Judgment

    import_posts("Sentences\n我支持同性婚姻\n".encode())
    known = Post.objects.get()
    data = ("post,annotator,explicit,implicit,emotional\n"
            f"{known.text},a1,1,2,3\nno-such-post,a1,2,2,2\nanother-unknown,a2,3,3,3\n").encode()
    with pytest.raises(ImportFailed) as info:
        import_judgments(data)
    assert [str(p) for p in info.value.problems] == [
        "line 3: no post has the id or text 'no-such-post' (import the posts first, or pass --create-missing-posts)",
        "line 4: no post has the id or text 'another-unknown' (import the posts first, or pass --create-missing-posts)",
    ]
    assert Post.objects.count() == 1 and Judgment.objects.count() == 0
    with pytest.raises(CommandError):
        path = tmp_path / "j.csv"
        path.write_bytes(data)
        call_command("import_judgments", str(path))
    assert Post.objects.count() == 1 and Judgment.objects.count() == 0


def test_import_judgments_creates_missing_posts_only_when_asked(tmp_path, capsys):
    from annotation.models import Judgment

    path = tmp_path / "j.csv"
    path.write_text("post,annotator,explicit,implicit,emotional\nu1,a1,1,2,3\nu1,a2,2,2,2\nu2,a1,3,,3\n")
    call_command("import_judgments", str(path), "--create-missing-posts")
    assert "Imported 3 judgments by 2 annotators (2 new posts)" in capsys.readouterr().out
    assert sorted(Post.objects.values_list("external_id", flat=True)) == ["u1", "u2"]
    assert Judgment.objects.count() == 3
