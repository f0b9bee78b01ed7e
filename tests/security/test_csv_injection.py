"""Finding 9 (issue 20): every CSV the workbench writes goes through core.csv_safe, so no cell starts with a
character a spreadsheet runs as a formula; numbers stay readable and our own readers get the text back."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from annotation.importing.services import import_posts
from annotation.models import FinalLabel, Judgment, Post
from annotation.quality import selectors as quality_selectors
from annotation.quality import services as quality_services
from annotation.releases.files import parse_rows
from annotation.releases.services import release_publish
from core.csv_safe import FORMULA_PREFIXES, neutralise, restore, writer

DANGEROUS = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
PLANTED_TEXTS = ['=HYPERLINK("http://evil.example","点我")', "+1+cmd|' /C calc'!A0", "-2+3 同性恋讨论",
                 "@SUM(1+1)*cmd|' /C calc'!A0 转发", "\t=1+1 制表符", "\r=1+1 回车", "＝全角公式", "'引号开头的帖子"]
PLANTED_IDS = ["=id-1", "+id-2", "-id-3", "@id-4", "＠id-5", "'id-6", "ok-7", "ok-8"]


def test_formula_prefixes_are_owasps_list_and_their_full_width_forms():
    assert set("=+-@\t\r") <= set(FORMULA_PREFIXES) and set("＝＋－＠") <= set(FORMULA_PREFIXES)


@pytest.mark.parametrize("text", ["=1+1", "+A1", "-A1+1", "@SUM(A1)", "\tx", "\rx", "＝1", "'quoted", "-", "+-1"])
def test_formula_text_is_prefixed_with_an_apostrophe(text):
    assert neutralise(text) == "'" + text and restore(neutralise(text)) == text


@pytest.mark.parametrize("value", [-0.5, -3, 1.25, 0, "-0.5", "+3", "-1e-3", "plain text", "同性恋", "", None])
def test_numbers_and_ordinary_text_are_left_as_they_are(value):
    assert neutralise(value) == value


@given(st.text())
def test_restore_undoes_neutralise_exactly(text):
    assert restore(neutralise(text)) == text
    assert not str(neutralise(text)).startswith(DANGEROUS) or _is_number(text)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return not any(c.isalpha() for c in text.lower().replace("e", ""))


def _cells(data: bytes) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")) for cell in row]


def _assert_no_formula(name: str, data: bytes) -> None:
    bad = [cell for cell in _cells(data) if cell.startswith(DANGEROUS) and not _is_number(cell)]
    assert bad == [], (name, bad)


@pytest.fixture
def planted(make_user, tmp_path, settings):
    """Posts (texts and external ids), gold items and an annotator's name planted with formula starts."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    lines = [json.dumps({"id": f"k{i}", "text": f"普通帖子 {i}", "explicit": 1 + i % 5, "implicit": 2, "emotional": 3},
                        ensure_ascii=False) for i in range(len(PLANTED_TEXTS))]
    import_posts("\n".join(lines).encode(), filename="posts.jsonl", with_labels=True)
    for i, (text, external_id) in enumerate(zip(PLANTED_TEXTS, PLANTED_IDS)):
        Post.objects.filter(external_id=f"k{i}").update(text=text, external_id=external_id)
    annotator = make_user("=cmd|' /C calc'!A0", role="annotator")
    for post in Post.objects.all()[:3]:
        Judgment.objects.create(post=post, annotator=annotator, explicit=1, implicit=2, emotional=3, note="=1+1")
    gold = quality_services.gold_upload(data="Sentences,Explicit,Implicit,Emotional\n金标帖子,4,2,5\n".encode(),
                                        filename="gold.csv")
    Post.objects.filter(pk=gold[0].post_id).update(text="@金标 =1+1")
    return {"annotator": annotator}


@pytest.mark.django_db
def test_release_csvs_have_no_formula_cell_and_read_back_exactly(planted):
    release = release_publish(bootstrap=0, include_gold=True)
    folder = Path(release.directory)
    written = {name: (folder / name).read_bytes() for name in release.manifest if name.endswith(".csv")}
    assert {"release.csv", "judgments.csv", "split.csv", "gold.csv"} <= set(written)
    for name, data in written.items():
        _assert_no_formula(name, data)
    # The apostrophe is visible in the CSV; the exact texts are in release.jsonl, and our readers restore ids.
    texts = {restore(cell) for cell in _cells(written["release.csv"])}
    assert set(PLANTED_TEXTS) <= texts
    assert "'=HYPERLINK(\"http://evil.example\",\"点我\")" in _cells(written["release.csv"])
    rows = parse_rows((folder / "release.jsonl").read_bytes(), written["split.csv"])
    assert {row["text"] for row in rows} >= set(PLANTED_TEXTS)
    assert all(row["split"] in ("train", "test") for row in rows)  # ids joined across the two files
    assert {row["id"] for row in rows} == set(PLANTED_IDS)
    assert "@金标 =1+1" in {restore(cell) for cell in _cells(written["gold.csv"])}
    assert "@金标 =1+1" not in _cells(written["gold.csv"])


@pytest.mark.django_db
def test_gold_list_download_has_no_formula_cell(planted):
    _assert_no_formula("gold.csv", quality_selectors.gold_csv())


@pytest.mark.django_db
def test_calibration_csv_downloads_have_no_formula_cell(planted, make_user):
    from calibration import services as calibration_services

    calibration_services.prior_snapshot_rebuild()
    client = Client()
    client.force_login(make_user("res", role="researcher", is_staff=True))
    post = Post.objects.get(external_id="=id-1")
    downloads = {
        "priors": client.get("/calibration/priors/", {"format": "csv"}),
        "weights-text": client.get("/calibration/weights/", {"format": "csv", "text": "=1+1 @某人 -cmd 同性恋"}),
        "weights-post": client.get("/calibration/weights/", {"format": "csv", "post": post.pk}),
        "overview": client.get("/calibration/overview/", {"format": "csv"}),
    }
    for name, response in downloads.items():
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv"), name
        _assert_no_formula(name, response.content)
    tokens = _cells(downloads["weights-text"].content)
    assert any(cell.startswith("'=") or cell.startswith("'@") for cell in tokens)  # planted tokens, neutralised
    assert FinalLabel.objects.exists()


def test_the_visibility_reader_still_finds_a_neutralised_text_or_key():
    """A hidden post whose text or id starts with = or @ is written with an apostrophe; the file policy
    (annotation/visibility/files.py) must still recognise it in a CSV."""
    from annotation.visibility.files import read_contents

    buffer = io.StringIO(newline="")
    writer(buffer, lineterminator="\r\n").writerows([["id", "text"], ["@hidden-key", "=隐藏帖子"]])
    contents = read_contents(buffer.getvalue().encode())
    assert contents.mentions(keys=["@hidden-key"], texts=[]) and contents.mentions(keys=[], texts=["=隐藏帖子"])
