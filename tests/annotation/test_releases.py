"""Releases: files, immutability, hashes, diffs, round trip, failures that publish nothing."""
from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.releases.services import release_publish
from annotation.importing.services import import_posts
from annotation.models import FinalLabel, Judgment, Post, Release
from core.errors import DomainError

pytestmark = pytest.mark.django_db

ROWS = [("支持平等", 1, 1, 2), ("他们真恶心", 4, 3, 5), ("同性婚姻合法化的讨论", 1, 2, 2), ("笑死，又来了", 2, 3, 3)]


def labelled_csv(rows=ROWS) -> bytes:
    body = "Sentences,Explicit,Implicit,Emotional\r\n" + "".join(f"{t},{e},{i},{m}\r\n" for t, e, i, m in rows)
    return body.encode()


@pytest.fixture(autouse=True)
def media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


def test_release_files_and_manifest(make_annotators):
    import_posts(labelled_csv(), with_labels=True)
    (a,) = make_annotators(1)
    Judgment.objects.create(post=Post.objects.first(), annotator=a, explicit=1, implicit=None, emotional=2)
    release = release_publish(bootstrap=20)
    folder = Path(release.directory)
    assert sorted(p.name for p in folder.iterdir()) == sorted(release.manifest)
    lines = (folder / "release.csv").read_bytes().decode().split("\r\n")
    assert lines[0].startswith('"#') and lines[1] == "Sentences,Explicit,Implicit,Emotional"
    assert len([line for line in lines[2:] if line]) == 4
    judgments = list(csv.reader(io.StringIO((folder / "judgments.csv").read_text())))
    assert judgments[1][1] == a.annotator_profile.pseudonym and a.username not in (folder / "judgments.csv").read_text()
    assert judgments[1][3] == ""  # missing stays missing
    split = list(csv.DictReader(io.StringIO((folder / "split.csv").read_text())))
    assert sorted(r["split"] for r in split) == ["test", "test", "train", "train"]
    card = (folder / "DATACARD.md").read_text()
    assert "CC BY-NC-SA 4.0" in card and "| explicit | 2 | 1 | 0 | 1 | 0 |" in card and "@mentions removed" in card
    jsonl = [json.loads(line) for line in (folder / "release.jsonl").read_text().splitlines()]
    assert {r["provenance"] for r in jsonl} == {"imported"}


def test_releases_are_immutable_and_numbered():
    import_posts(labelled_csv(), with_labels=True)
    first = release_publish(bootstrap=0)
    with pytest.raises(ValueError, match="immutable"):
        first.summary = {}
        first.save()
    FinalLabel.objects.filter(post__text="支持平等").update(explicit=2)
    import_posts("Sentences,Explicit,Implicit,Emotional\n新帖子,3,3,3\n".encode(), with_labels=True)
    second = release_publish(bootstrap=0)
    assert (first.number, second.number) == (1, 2) and first.content_hash != second.content_hash
    assert second.diff["added"] == 1 and second.diff["removed"] == 0 and second.diff["previous"] == 1
    assert second.diff["changed"] == {"explicit": 1, "implicit": 0, "emotional": 0}
    first.refresh_from_db()
    assert (Path(first.directory) / "release.csv").exists()  # the old release is untouched


def test_round_trip_reproduces_labels_bytes_and_hash(tmp_path, settings):
    import_posts(labelled_csv(), with_labels=True)
    release = release_publish(bootstrap=0)
    data = (Path(release.directory) / "release.csv").read_bytes()
    # the posts gone and the release re-imported (releases themselves can never be deleted)
    settings.MEDIA_ROOT = str(tmp_path / "elsewhere")
    FinalLabel.objects.all().delete()
    Post.objects.all().delete()
    import_posts(data, with_labels=True)
    with pytest.raises(DomainError, match="identical to release 1"):
        release_publish(bootstrap=0)
    again = release_publish(bootstrap=0, force=True)
    assert (Path(again.directory) / "release.csv").read_bytes() == data
    assert again.content_hash == release.content_hash


def test_read_only_media_publishes_nothing(media, monkeypatch):
    import errno
    import tempfile

    import_posts(labelled_csv(), with_labels=True)
    media.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:  # root ignores permission bits: make the directory behave as a read-only mount
        def read_only(*args, **kwargs):
            raise OSError(errno.EROFS, "Read-only file system")

        monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    else:
        media.chmod(0o500)
    try:
        with pytest.raises(DomainError, match="Nothing was published"):
            release_publish(bootstrap=0)
    finally:
        media.chmod(0o700)
    assert not Release.objects.exists()


def test_failed_write_publishes_nothing(monkeypatch, media):
    import_posts(labelled_csv(), with_labels=True)
    real_open = open

    def full_disk(path, mode="r", *args, **kwargs):
        if "w" in mode and str(path).endswith("judgments.csv"):
            raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", full_disk)
    with pytest.raises(DomainError, match="No space left on device"):
        release_publish(bootstrap=0)
    monkeypatch.undo()
    assert not Release.objects.exists()
    assert list((media / "releases").iterdir()) == []  # no partial directory left behind


def test_no_labels_is_a_clear_error():
    with pytest.raises(DomainError, match="no final labels"):
        release_publish()


def test_export_release_command_and_download_page(tmp_path, client, make_user):
    import_posts(labelled_csv(), with_labels=True)
    call_command("export_release", str(tmp_path / "out"), "--bootstrap", "0")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(Release.objects.get().manifest)
    client.force_login(make_user("res", role="researcher"))
    assert b"release.csv" in client.get(reverse("review:releases")).content
    response = client.get(reverse("review:release-file", args=[1, "release.csv"]))
    assert response.status_code == 200 and b"".join(response.streaming_content) == (tmp_path / "out" / "release.csv").read_bytes()
    client.post(reverse("review:releases"), {"seed": "3"})
    assert Release.objects.count() == 2 and Release.objects.get(number=2).split_seed == 3
    assert client.get(reverse("review:release-file", args=[1, "secrets.txt"])).status_code == 404


def test_adjudicator_cannot_publish(client, make_user):
    import_posts(labelled_csv(), with_labels=True)
    client.force_login(make_user("adj", role="adjudicator"))
    assert client.post(reverse("review:releases"), {"seed": "0"}).status_code == 403
    assert not Release.objects.exists()


def test_admin_publish_button(client, make_user):
    import_posts(labelled_csv(), with_labels=True)
    client.force_login(make_user("res", role="researcher", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:annotation_release_changelist"))
    assert "Publish a new release" in page.content.decode()
    assert client.post(reverse("admin:annotation_release_publish")).status_code == 302
    assert Release.objects.get().number == 1


def test_the_admin_can_neither_change_nor_delete_a_release(client, make_user):
    import_posts(labelled_csv(), with_labels=True)
    release = release_publish(bootstrap=0)
    client.force_login(make_user("res", role="researcher", is_staff=True, is_superuser=True))
    change = reverse("admin:annotation_release_change", args=[release.pk])
    page = client.get(change)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()  # read-only view
    assert client.post(change, {"number": 99, "content_hash": "x"}).status_code == 403
    assert client.get(reverse("admin:annotation_release_delete", args=[release.pk])).status_code == 403
    assert client.post(reverse("admin:annotation_release_delete", args=[release.pk]), {"post": "yes"}).status_code == 403
    changelist = client.get(reverse("admin:annotation_release_changelist"))
    assert "delete_selected" not in changelist.content.decode()
    client.post(reverse("admin:annotation_release_changelist"),
                {"action": "delete_selected", "_selected_action": [release.pk], "post": "yes"})
    kept = Release.objects.get(pk=release.pk)
    assert (kept.number, kept.content_hash, kept.manifest) == (1, release.content_hash, release.manifest)
