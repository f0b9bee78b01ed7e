"""Backup drill: a campaign's data (8,120 posts x 6 judgments, final labels, a published release, a
trained model's artefact), `backup`, destroy the database and the media files, `restore`, and check
that judgments, final labels, release hashes (and each release file against its manifest) and the
model artefact's checksum are identical. A damaged copy of the backup must be refused with nothing
changed. Prints the time and size figures as JSON.

    python bench/drill_backup.py [--postgres] [--posts N] [--smoke] [--json-out FILE]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import PG_ADMIN_URL, setup_django, synthetic_posts  # noqa: E402

DATABASE_NAME = "chlgbt_drill_backup"


def populate(n_posts: int) -> None:
    from annotation.importing.services import import_posts
    from annotation.models import Judgment, Post
    from annotation.releases.services import release_publish
    from annotation.services import annotator_ensure
    from chlgbt_site.celery import tasks_inline
    from modeling.services import training_run_launch

    rng = random.Random(0)
    body = "Sentences,Explicit,Implicit,Emotional\r\n" + "".join(
        f"{t},{rng.randint(1, 5)},{rng.randint(1, 5)},{rng.randint(1, 5)}\r\n" for t in synthetic_posts(n_posts))
    import_posts(body.encode(), with_labels=True, batch_name="drill")
    annotators = [annotator_ensure(username=f"drill{i}") for i in range(6)]
    posts = list(Post.objects.values_list("id", "final_label__explicit", "final_label__implicit", "final_label__emotional"))
    Judgment.objects.bulk_create([
        Judgment(post_id=pid, annotator=a, explicit=max(1, min(5, e + rng.choice([-1, 0, 1]))),
                 implicit=max(1, min(5, i + rng.choice([-1, 0, 1]))), emotional=max(1, min(5, m + rng.choice([-1, 0, 1]))),
                 seconds_spent=rng.randint(8, 90))
        for pid, e, i, m in posts for a in annotators], batch_size=5000)
    with tasks_inline():  # the release's prior rebuild and the run, done before the backup
        release = release_publish(bootstrap=0)
        (run,) = training_run_launch(created_by=None, release_id=release.pk, dimensions=["explicit"],
                                     variants=["baseline"], seeds=[0], backbone="char-ngram")
    run.refresh_from_db()
    assert run.status == "succeeded", run.error


def state() -> dict:
    """What must survive: digests of the judgments and final labels, each release's content hash
    with its files checked against its manifest, each run's artefact checksum recomputed."""
    from annotation.models import FinalLabel, Judgment, Release
    from annotation.releases.selectors import release_file_bytes
    from modeling.maam.train import directory_checksum
    from modeling.models import TrainingRun

    def digest(rows) -> str:
        return hashlib.sha256(json.dumps([list(map(str, r)) for r in rows]).encode()).hexdigest()

    releases = []
    for release in Release.objects.order_by("number"):
        files = {name: hashlib.sha256(release_file_bytes(release, name)).hexdigest()
                 for name in sorted(release.manifest)}
        releases.append({"number": release.number, "content_hash": release.content_hash, "files": files})
    runs = [{"id": r.pk, "stored": r.artifact_checksum, "on_disk": directory_checksum(Path(r.artifact_path))}
            for r in TrainingRun.objects.filter(status="succeeded").order_by("pk")]
    return {
        "judgments": Judgment.objects.count(),
        "judgments_digest": digest(Judgment.objects.order_by("post_id", "annotator_id").values_list(
            "post_id", "annotator_id", "explicit", "implicit", "emotional", "seconds_spent")),
        "final_labels_digest": digest(FinalLabel.objects.order_by("post_id").values_list(
            "post_id", "explicit", "implicit", "emotional", "provenance")),
        "releases": releases, "runs": runs}


def destroy(postgres: bool) -> None:
    """Lose everything: the database and both media folders."""
    from django.conf import settings
    from django.db import connections

    connections.close_all()
    if postgres:
        import psycopg

        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {DATABASE_NAME} WITH (FORCE)")
    else:
        Path(settings.DATABASES["default"]["NAME"]).unlink()
    for root in (settings.MEDIA_ROOT, settings.ARTIFACT_ROOT):
        shutil.rmtree(root)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--posts", type=int, default=8120)
    parser.add_argument("--smoke", action="store_true", help="a tiny campaign (60 posts): checks the drill still runs")
    parser.add_argument("--json-out")
    args = parser.parse_args(argv)
    n_posts = 60 if args.smoke else args.posts
    work = Path(tempfile.mkdtemp(prefix="drill-backup-"))
    os.environ["MEDIA_ROOT"], os.environ["ARTIFACT_ROOT"] = str(work / "media"), str(work / "artifacts")
    database = setup_django(args.postgres, name=DATABASE_NAME)
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from annotation.models import Judgment
    from backups.services import MANIFEST

    populate(n_posts)
    before = state()
    assert before["runs"] and all(r["stored"] == r["on_disk"] for r in before["runs"])
    assert before["releases"] and all(r["files"] for r in before["releases"])
    results: dict = {"database": database, "posts": n_posts, "judgments": before["judgments"]}

    backup = work / "backup"
    start = time.perf_counter()
    call_command("backup", str(backup), stdout=open(os.devnull, "w"))
    results["backup_s"] = round(time.perf_counter() - start, 2)
    results["backup_mb"] = round(folder_bytes(backup) / 1e6, 2)
    manifest = json.loads((backup / MANIFEST).read_text())
    results["backup_files"] = len(manifest["files"])

    # A damaged copy (one release file changed by one byte) is refused, and nothing changes.
    damaged = work / "damaged"
    shutil.copytree(backup, damaged)
    victim = next(damaged / e["path"] for e in manifest["files"] if e["kind"] == "media" and "releases" in e["path"])
    victim.write_bytes(bytes([victim.read_bytes()[0] ^ 1]) + victim.read_bytes()[1:])
    Judgment.objects.filter(pk=Judgment.objects.order_by("pk").values("pk")[:1]).update(note="after the backup")
    try:
        call_command("restore", str(damaged), "--yes", stdout=open(os.devnull, "w"))
        raise AssertionError("a damaged backup was restored")
    except CommandError as exc:
        assert "damaged" in str(exc) and victim.name in str(exc), exc
    assert Judgment.objects.filter(note="after the backup").count() == 1  # the database was not touched
    Judgment.objects.filter(note="after the backup").update(note="")

    destroy(args.postgres)
    start = time.perf_counter()
    call_command("restore", str(backup), "--yes", stdout=open(os.devnull, "w"))
    results["restore_s"] = round(time.perf_counter() - start, 2)
    from auditlog.models import LogEntry

    # the restored database's audit log says it was restored (issue 31 item 4)
    results["audit_after_restore"] = [[e.additional_data["what"], e.changes["files"]] for e in LogEntry.objects.filter(
        additional_data__event="backup").order_by("pk")]
    after = state()
    results["identical"] = after == before
    if not results["identical"]:
        for key in before:
            if before[key] != after[key]:
                print(f"differs after restore: {key}", file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results, indent=1))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1) + "\n")
    if not results["identical"]:
        raise SystemExit(1)
    return results


if __name__ == "__main__":
    main()
