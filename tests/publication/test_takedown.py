"""Takedown: a post leaves the next release (internal and public) and shows in its diff by id
only; its predictions are dropped; the request is kept; earlier releases stay byte-identical and
the releases page says which release superseded them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.importing.services import import_posts
from annotation.models import Post
from annotation.releases.selectors import release_rows
from annotation.releases.services import release_publish
from publication.rewrite_models import Takedown
from publication.takedowns import releases_superseded

from .test_public_release import ORIGINALS, labelled_csv, rewrites_csv

pytestmark = pytest.mark.django_db


def folder_bytes(release) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in Path(release.directory).iterdir()}


def test_takedown_leaves_the_next_releases_and_keeps_the_old_ones(rewriters, media, tmp_path, client):
    import_posts(labelled_csv(), with_labels=True)
    path = tmp_path / "rewrites.csv"
    path.write_bytes(rewrites_csv("confirm"))
    call_command("import_rewrites", str(path), "--confirm", "--user", "res")
    internal1, public1 = release_publish(bootstrap=0), release_publish(kind="public", bootstrap=0)
    before = {r.number: folder_bytes(r) for r in (internal1, public1)}
    victim = Post.objects.get(raw_text=ORIGINALS["good"][0])
    text_file = tmp_path / "request.txt"
    text_file.write_text(victim.raw_text, encoding="utf-8")
    call_command("takedown", "--text-file", str(text_file), "--reason", "the author asked by e-mail", "--user", "res")
    request = Takedown.objects.get()
    assert request.post == victim and request.requested_by.username == "res" and "e-mail" in request.reason
    internal2, public2 = release_publish(bootstrap=0), release_publish(kind="public", bootstrap=0)
    assert victim.text not in {r["text"] for r in release_rows(internal2)}
    assert len(release_rows(internal2)) == len(release_rows(internal1)) - 1
    assert len(release_rows(public2)) == len(release_rows(public1)) - 1
    for old, new in ((internal1, internal2), (public1, public2)):
        diff = json.loads((Path(new.directory) / "diff.json").read_text())
        assert diff["previous"] == old.number and diff["removed"] == 1 and len(diff["taken_down_ids"]) == 1
        assert diff["taken_down_ids"] == diff["removed_ids"]
        assert victim.raw_text[:10] not in json.dumps(diff, ensure_ascii=False)
        assert folder_bytes(old) == before[old.number]  # byte-identical
    assert public2.diff["taken_down_ids"] == [f"p{victim.pk}"]
    assert releases_superseded() == {internal1.number: internal2.number, public1.number: public2.number}


def test_takedown_drops_predictions_and_refuses_bad_requests(rewriters, media, tmp_path):
    from modeling.models import Prediction, TrainingRun

    import_posts(labelled_csv(), with_labels=True)
    post = Post.objects.first()
    run = TrainingRun.objects.create(launch_group="g", variant="baseline", dimensions=["explicit"])
    Prediction.objects.create(post=post, run=run, explicit=1, probabilities={})
    with pytest.raises(CommandError, match="reason"):
        call_command("takedown", "--post", str(post.pk), "--reason", "  ")
    with pytest.raises(CommandError, match="No post"):
        call_command("takedown", "--post", "999999", "--reason", "x")
    call_command("takedown", "--post", str(post.pk), "--reason", "court order")
    assert not Prediction.objects.filter(post=post).exists() and Takedown.objects.get().predictions_dropped == 1


def test_the_admin_records_a_takedown_through_the_service(rewriters, media, client):
    import_posts(labelled_csv(), with_labels=True)
    post = Post.objects.first()
    researcher = rewriters["researcher"]
    researcher.is_staff = True
    researcher.save()
    client.force_login(researcher)
    response = client.post("/admin/publication/takedown/add/", {"post": post.pk, "reason": "asked by the author"})
    assert response.status_code == 302
    request = Takedown.objects.get()
    assert request.post == post and request.requested_by == researcher and request.post_key
