"""Releases carry Parquet files per split and a README.md data card with a Hugging Face YAML
header; both are in the manifest, so a changed byte is refused like any release file."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from django.urls import reverse

from annotation.importing.services import import_posts
from annotation.releases.selectors import ReleaseFileDamaged, release_file_bytes
from annotation.releases.services import release_publish

pytestmark = pytest.mark.django_db

ROWS = [("支持平等", 1, 1, 2), ("他们真恶心", 4, 3, 5), ("同性婚姻合法化的讨论", 1, 2, 2), ("笑死，又来了", 2, 3, 3),
        ("祝福每一对有情人", 1, 1, 3), ("这种人离我远点", 4, 4, 4), ("彩虹游行很热闹", 1, 1, 2)]


@pytest.fixture
def release(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    body = "Sentences,Explicit,Implicit,Emotional\r\n" + "".join(f"{t},{e},{i},{m}\r\n" for t, e, i, m in ROWS)
    import_posts(body.encode(), with_labels=True)
    return release_publish(bootstrap=0)


def csv_rows(folder: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO((folder / "release.csv").read_text("utf-8"))))[2:]  # comment, header


def test_parquet_splits_read_back_equal_release_csv(release):
    folder = Path(release.directory)
    split = dict(list(csv.reader(io.StringIO((folder / "split.csv").read_text("utf-8"))))[1:])
    ids = [json.loads(line)["id"] for line in (folder / "release.jsonl").read_text("utf-8").splitlines()]
    rows = csv_rows(folder)
    assert len(ids) == len(rows) == len(ROWS)
    for name in ("train", "test"):
        table = pq.read_table(folder / f"{name}.parquet")
        assert table.column_names == ["id", "text", "explicit", "implicit", "emotional", "provenance"]
        got = table.to_pylist()
        expected = [(key, row) for key, row in zip(ids, rows) if split[key] == name]
        assert len(got) == len(expected) > 0
        for record, (key, (text, explicit, implicit, emotional)) in zip(got, expected):
            assert record["id"] == key and record["text"] == text
            assert (record["explicit"], record["implicit"], record["emotional"]) == (int(explicit), int(implicit), int(emotional))
            assert record["provenance"] == "imported"


def test_readme_is_a_hugging_face_data_card(release):
    folder = Path(release.directory)
    text = (folder / "README.md").read_text("utf-8")
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["license"] == "cc-by-nc-sa-4.0" and header["language"] == ["zh"]
    assert header["task_categories"] == ["text-classification"]
    (config,) = header["configs"]
    assert config["config_name"] == "default"
    assert {f["split"]: f["path"] for f in config["data_files"]} == {"train": "train.parquet", "test": "test.parquet"}
    for entry in config["data_files"]:
        assert (folder / entry["path"]).exists() and entry["path"] in release.manifest
    info = header["dataset_info"]
    assert [f["name"] for f in info["features"]] == pq.read_schema(folder / "train.parquet").names
    # The loaders ignore `splits` unless each carries name, num_bytes and num_examples; with them they
    # check the row counts they read against these.
    splits = {s["name"]: s["num_examples"] for s in info["splits"]}
    assert splits == {name: pq.read_metadata(folder / f"{name}.parquet").num_rows for name in ("train", "test")}
    sizes = {s["name"]: s["num_bytes"] for s in info["splits"]}
    assert sizes == {name: pq.read_table(folder / f"{name}.parquet").nbytes for name in ("train", "test")}
    assert info["dataset_size"] == sum(sizes.values())
    body = text.split("---\n", 2)[2]
    assert body.strip() == (folder / "DATACARD.md").read_text("utf-8").strip()  # the same card under the header


@pytest.mark.parametrize("name", ["train.parquet", "test.parquet", "README.md"])
def test_new_files_are_hash_checked_before_serving(release, name, client, make_user):
    assert name in release.manifest
    client.force_login(make_user("res", role="researcher"))
    url = reverse("review:release-file", args=[release.number, name])
    assert client.get(url).status_code == 200
    path = Path(release.directory) / name
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(ReleaseFileDamaged):
        release_file_bytes(release, name)
    assert client.get(url).status_code == 409
