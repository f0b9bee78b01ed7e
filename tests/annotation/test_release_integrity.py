"""Releases are immutable in the database, served only when they match their manifest, numbered
without collisions under concurrent publishing, and never minted twice for identical data."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, connections, transaction
from django.urls import reverse

from annotation.importing.services import import_posts
from annotation.models import FinalLabel, Post, Release
from core.errors import DomainError

ROWS = [(f"第{i}条：{'支持平等' if i % 3 else '他们真恶心'}", 1 + i % 5, 1 + (i + 1) % 5, 1 + (i + 2) % 5) for i in range(24)]


def labelled_csv(rows=ROWS) -> bytes:
    return ("Sentences,Explicit,Implicit,Emotional\n" + "".join(f"{t},{e},{i},{m}\n" for t, e, i, m in rows)).encode()


@pytest.fixture(autouse=True)
def media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


def publish(**kwargs) -> Release:
    from annotation.releases.services import release_publish

    return release_publish(bootstrap=0, **kwargs)


# --------------------------------------------------------------------------- immutable in the database


@pytest.mark.django_db
def test_queryset_update_of_a_release_fails_in_the_database():
    import_posts(labelled_csv(), with_labels=True)
    release = publish()
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        Release.objects.filter(pk=release.pk).update(content_hash="0" * 64, manifest={})
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE annotation_release SET directory = '/elsewhere'")
    stored = Release.objects.get(pk=release.pk)
    assert (stored.content_hash, stored.manifest, stored.directory) == (
        release.content_hash, release.manifest, release.directory)


@pytest.mark.django_db
def test_queryset_delete_of_a_release_fails_in_the_database():
    import_posts(labelled_csv(), with_labels=True)
    release = publish()
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        Release.objects.all().delete()
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        Release.objects.get(pk=release.pk).delete()
    assert Release.objects.filter(pk=release.pk).exists()


# --------------------------------------------------------------------------- files checked against the manifest


@pytest.mark.django_db
def test_a_tampered_file_is_not_served(client, make_user):
    import_posts(labelled_csv(), with_labels=True)
    release = publish()
    path = Path(release.directory) / "release.csv"
    path.write_bytes(path.read_bytes().replace("支持平等".encode(), "反对平等".encode()))
    client.force_login(make_user("res", role="researcher"))
    response = client.get(reverse("review:release-file", args=[release.number, "release.csv"]))
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.status_code == 409
    assert "反对平等".encode() not in body
    assert b"does not match" in body
    # The untouched files are still served.
    ok = client.get(reverse("review:release-file", args=[release.number, "split.csv"]))
    assert ok.status_code == 200


@pytest.mark.django_db
def test_a_tampered_release_is_not_trained_on():
    from modeling import services

    import_posts(labelled_csv(), with_labels=True)
    release = publish()
    path = Path(release.directory) / "release.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"explicit": 1', '"explicit": 5'), encoding="utf-8")
    with pytest.raises(DomainError, match="does not match"):
        services.training_run_launch(created_by=None, release_id=release.pk, dimensions=["explicit"],
                                     variants=["baseline"], seeds=[0])


# --------------------------------------------------------------------------- identical data is not minted again


@pytest.mark.django_db
def test_publishing_identical_data_says_so_and_force_publishes_anyway():
    import_posts(labelled_csv(), with_labels=True)
    first = publish()
    with pytest.raises(DomainError, match="identical to release 1"):
        publish()
    assert Release.objects.count() == 1
    copy = publish(force=True)
    assert copy.number == 2 and copy.content_hash == first.content_hash
    FinalLabel.objects.filter(post=Post.objects.order_by("id").first()).update(explicit=5)
    assert publish().number == 3  # changed data publishes without force


@pytest.mark.django_db
def test_release_page_and_command_say_identical_and_accept_force(client, make_user, tmp_path):
    import_posts(labelled_csv(), with_labels=True)
    client.force_login(make_user("res", role="researcher"))
    client.post(reverse("review:releases"), {"seed": "0"})
    page = client.post(reverse("review:releases"), {"seed": "0"}, follow=True).content.decode()
    assert "identical to release 1" in page and Release.objects.count() == 1
    client.post(reverse("review:releases"), {"seed": "0", "force": "on"})
    assert Release.objects.count() == 2

    out = tmp_path / "out"
    from io import StringIO

    stdout = StringIO()
    call_command("export_release", str(out), "--bootstrap", "0", stdout=stdout)
    assert "identical to release 2" in stdout.getvalue() and Release.objects.count() == 2
    assert "add --force to publish a new number anyway" in stdout.getvalue()  # names the flag, not a button
    assert (out / "release.csv").read_bytes() == (Path(Release.objects.get(number=2).directory) / "release.csv").read_bytes()
    call_command("export_release", str(tmp_path / "out2"), "--bootstrap", "0", "--force", stdout=StringIO())
    assert Release.objects.count() == 3


@pytest.mark.django_db
def test_admin_publish_says_identical_and_accepts_force(client, make_user):
    import_posts(labelled_csv(), with_labels=True)
    client.force_login(make_user("res", role="researcher", is_staff=True, is_superuser=True))
    client.post(reverse("admin:annotation_release_publish"))
    page = client.post(reverse("admin:annotation_release_publish"), follow=True).content.decode()
    assert "identical to release 1" in page and Release.objects.count() == 1
    client.post(reverse("admin:annotation_release_publish"), {"force": "on"})
    assert Release.objects.count() == 2


# --------------------------------------------------------------------------- concurrent publishes


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_publishes_get_distinct_numbers(require_postgres):
    import_posts(labelled_csv(), with_labels=True)
    start = threading.Barrier(2, timeout=10)

    def work(seed: int) -> int:
        try:
            start.wait()
            return publish(seed=seed).number  # different split seeds: different data
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        numbers = sorted(f.result() for f in [pool.submit(work, s) for s in (1, 2)])
    assert numbers == [1, 2]
    assert len({r.directory for r in Release.objects.all()}) == 2
    for release in Release.objects.all():
        assert (Path(release.directory) / "release.csv").is_file()
