"""Public releases (issue 21): import_rewrites + export_release --public on labelled posts. The
public files hold only confirmed, non-searchable rewrites; no planted personal-data value, no
note, no username and no 16-character span of any original post is in any file (Parquet read
too); the internal release still round-trips the labels; both are hash-checked and immutable."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.core.management import call_command
from django.db import DatabaseError, transaction

from annotation.importing.services import import_posts
from annotation.models import FinalLabel, Judgment, Post, Release
from annotation.releases.selectors import release_file_bytes, release_rows
from annotation.releases.services import release_publish
from publication import personal_data
from publication.spans import longest_normalised, normalise

pytestmark = pytest.mark.django_db

ID_CARD = "11010519491231002" + personal_data.id_check_char("11010519491231002")
PLANTED = ["13812345678", "someone@example.com", ID_CARD, "6222020200112233445"[:0] or "010-62345678"]
ORIGINALS = {
    # text, labels, rewrite (None: no rewrite), how the rewrite is imported
    "good": ("昨天在地铁上看到两个男生牵着手，我觉得挺好的，大家都应该学会尊重别人，有事打13812345678",
             (1, 1, 2), "有人在车厢里见到两位男士手拉手，我认为没什么，人人应当相互尊重", "confirm"),
    "masked": ("这些人天天在网上宣传这种东西，真是让人看不下去，邮箱someone@example.com",
               (4, 3, 5), "某些人总在网络上推广这类内容，看着很烦，想骂人就写信到someone@example.com", "confirm"),
    "searchable": ("我们公司新来的同事出柜了，老板居然当众开他玩笑，太过分了，身份证" + ID_CARD,
                   (1, 2, 4), "我们公司新来的同事出柜了，老板居然当众开他玩笑，真离谱", "confirm"),
    "unconfirmed": ("楼下那家店的老板说不欢迎这种人进店，座机010-62345678，大家评评理吧",
                    (3, 3, 4), "一家小店的店主表示拒绝接待某类顾客，网友们对此看法不一", "submit"),
    "none": ("彩虹游行那天人特别多，大家都很开心，希望明年还能再办，真的很感动", (1, 1, 3), None, None),
}
NOTE = "备注里的秘密文字甲乙丙丁"


def labelled_csv() -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["Sentences", "Explicit", "Implicit", "Emotional"])
    for text, labels, _rewrite, _how in ORIGINALS.values():
        writer.writerow([text, *labels])
    return buffer.getvalue().encode()


def rewrites_csv(how: str) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["Sentences", "Rewrite"])
    for text, _labels, rewrite, mode in ORIGINALS.values():
        if mode == how:
            writer.writerow([text, rewrite])
    return buffer.getvalue().encode()


def every_file_as_text(folder: Path) -> dict[str, str]:
    """Each file's content as text; Parquet files as every cell of every column."""
    out = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            out[path.name] = "\n".join(str(v) for column in table.columns for v in column.to_pylist())
            out[path.name + ":schema"] = str(table.schema)
        else:
            out[path.name] = path.read_bytes().decode("utf-8")
    return out


@pytest.fixture
def world(rewriters, make_annotators, media, tmp_path):
    import_posts(labelled_csv(), with_labels=True)
    (annotator,) = make_annotators(1, prefix="uniqueannotatorname")
    for post in Post.objects.all():
        Judgment.objects.create(post=post, annotator=annotator, explicit=1, implicit=1, emotional=1, note=NOTE)
    for how, flag in (("confirm", ["--confirm", "--user", "res"]), ("submit", [])):
        path = tmp_path / f"{how}.csv"
        path.write_bytes(rewrites_csv(how))
        call_command("import_rewrites", str(path), *flag)
    return {"annotator": annotator}


def test_public_release_holds_only_confirmed_non_searchable_rewrites(world, tmp_path):
    out = tmp_path / "public"
    call_command("export_release", str(out), "--public", "--bootstrap", "0")
    release = Release.objects.get()
    assert release.kind == "public"
    rows = release_rows(release)
    texts = sorted(r["text"] for r in rows)
    good = ORIGINALS["good"][2]
    masked = ORIGINALS["masked"][2].replace("someone@example.com", "[邮箱]")
    assert texts == sorted([good, masked])
    assert all(r["id"].startswith("p") for r in rows)
    summary = release.summary
    assert summary["left_out"] == {"taken_down": 0, "no_confirmed_rewrite": 2, "searchable": 1, "personal_data": 0}
    assert summary["spans"]["searchable"] == 0 and summary["spans"]["posts"] == 2
    files = every_file_as_text(out)
    assert "judgments.csv" in files and "gold.csv" not in files
    originals = [p.raw_text for p in Post.objects.all()] + [p.text for p in Post.objects.all()]
    for name, content in files.items():
        for value in PLANTED:
            assert value not in content, (name, value)
        assert NOTE not in content and "uniqueannotatorname" not in content, name
        folded = normalise(content)
        for original in originals:
            assert longest_normalised(folded, normalise(original)) < 16, (name, original)
    card = files["DATACARD.md"]
    assert "Publication policy" in card and "no confirmed rewrite: 2" in card and "is searchable: 1" in card
    assert "threshold (`RELEASE_MAX_SHARED_SPAN`): 15" in card
    # hash-checked and immutable, like every release
    for name in release.manifest:
        release_file_bytes(release, name)
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        Release.objects.filter(pk=release.pk).update(kind="internal")


def test_the_internal_release_still_round_trips_the_labels_and_says_it_is_searchable(world):
    public = release_publish(kind="public", bootstrap=0)
    internal = release_publish(bootstrap=0)
    assert (public.number, internal.number) == (1, 2) and internal.kind == "internal"
    assert internal.diff["previous"] is None  # compared with the previous internal release only
    labels = {fl.post.text_sha256: fl.scores() for fl in FinalLabel.objects.select_related("post")}
    rows = release_rows(internal)
    assert len(rows) == len(ORIGINALS)
    by_key = {Post.objects.get(text=r["text"]).text_sha256: {d: r[d] for d in ("explicit", "implicit", "emotional")}
              for r in rows}
    assert by_key == labels
    assert internal.summary["spans"]["searchable"] == len(ORIGINALS)
    card = (Path(internal.directory) / "DATACARD.md").read_text()
    assert "internal release" in card and "Do not publish it" in card


def test_a_public_release_refuses_gold_and_an_empty_one_says_why(rewriters, media):
    import_posts(labelled_csv(), with_labels=True)
    with pytest.raises(Exception, match="no_confirmed_rewrite 5"):
        release_publish(kind="public", bootstrap=0)
    with pytest.raises(Exception, match="gold"):
        release_publish(kind="public", bootstrap=0, include_gold=True)
    assert not Release.objects.exists()


def test_the_threshold_setting_decides_at_release(world, settings, tmp_path):
    settings.RELEASE_MAX_SHARED_SPAN = 40  # the searchable rewrite now passes
    release = release_publish(kind="public", bootstrap=0)
    assert release.summary["spans"]["threshold"] == 40 and len(release_rows(release)) == 3
    stdout = io.StringIO()
    call_command("export_release", str(tmp_path / "x"), "--public", "--bootstrap", "0", stdout=stdout)  # identical
    assert "add --force to publish a new number anyway" in stdout.getvalue()  # issue 31 item 8: names the flag
    assert Release.objects.count() == 1 and (tmp_path / "x" / "release.csv").read_bytes() == release_file_bytes(
        release, "release.csv")
    assert json.loads(release_file_bytes(release, "diff.json"))["taken_down_ids"] == []
