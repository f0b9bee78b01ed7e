"""Backups that are proven: the drill (back up, destroy, restore, compare) on SQLite always and on
PostgreSQL where it is available; a damaged backup is refused with the reason; the PostgreSQL client
tools must match the server's major version."""
from __future__ import annotations

import json
import os
import subprocess
import stat
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from backups import database, signing
from backups.database import BackupError
from backups.services import FORMAT, MANIFEST, backup_verify, sha256_of
from tests.embedded_site import ROOT


def run_drill(*args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "MEDIA_ROOT",
                                                            "ARTIFACT_ROOT", "CELERY_TASK_ALWAYS_EAGER")}
    out = subprocess.run([sys.executable, "bench/drill_backup.py", "--smoke", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return json.loads(out.stdout[out.stdout.index("{"):])


def test_backup_drill_on_sqlite_restores_everything_identical():
    result = run_drill()
    assert result["identical"] is True and result["judgments"] == 360 and result["backup_files"] > 3
    # the restored database's log says so, counting the files as `backup` did (the database apart)
    assert result["audit_after_restore"][-1] == ["Restored the backup of %(created)s from %(folder)s",
                                                  ["None", str(result["backup_files"] - 1)]]


@pytest.mark.postgres
def test_backup_drill_on_postgresql_restores_everything_identical(require_postgres):
    result = run_drill("--postgres")
    assert result["identical"] is True and result["database"].startswith("PostgreSQL")


@pytest.fixture(autouse=True)
def signing_key_file(settings, tmp_path_factory):
    """Each test its own backup signing key file, outside every backup folder."""
    settings.BACKUP_SIGNING_KEY = ""
    settings.BACKUP_SIGNING_KEY_FILE = str(tmp_path_factory.mktemp("key") / "backup_signing_key")
    return Path(settings.BACKUP_SIGNING_KEY_FILE)


def make_backup(folder, files: dict[str, bytes]) -> None:
    entries = []
    for relative, data in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        kind = "database" if relative.startswith("database") else relative.split("/")[1]
        entries.append({"path": relative, "kind": kind, "size": len(data), "sha256": sha256_of(path)})
    manifest = json.dumps({"format": FORMAT, "created_at": "now", "files": entries,
                           "database": {"vendor": "sqlite", "file": "database.sqlite3"}}).encode()
    (folder / MANIFEST).write_bytes(manifest)
    (folder / signing.SIGNATURE).write_bytes(signing.sign(manifest))


FILES = {"database.sqlite3": b"db", "files/media/releases/r1/release.csv": b"a,b\n",
         "files/artifacts/runs/run-000001/model.pkl": b"weights"}


def test_an_intact_backup_verifies(tmp_path):
    make_backup(tmp_path, FILES)
    assert len(backup_verify(folder=tmp_path)["files"]) == 3


@pytest.mark.parametrize("damage, expected", [
    (lambda f: (f / "files/media/releases/r1/release.csv").write_bytes(b"a,c\n"), "release.csv: its sha256 differs"),
    (lambda f: (f / "files/artifacts/runs/run-000001/model.pkl").unlink(), "model.pkl: missing"),
    (lambda f: (f / "database.sqlite3").write_bytes(b"db!"), "database.sqlite3: 3 bytes"),
    (lambda f: (f / MANIFEST).write_text("{not json"), "MANIFEST.json is damaged"),
    (lambda f: (f / MANIFEST).unlink(), "holds no MANIFEST.json"),
])
def test_a_damaged_backup_is_refused_with_what_is_wrong(tmp_path, damage, expected):
    make_backup(tmp_path, FILES)
    damage(tmp_path)
    with pytest.raises(BackupError, match=expected.replace(".", r"\.")):
        backup_verify(folder=tmp_path)


def test_a_manifest_cannot_point_outside_the_backup(tmp_path):
    make_backup(tmp_path / "b", FILES)
    (tmp_path / "secret").write_bytes(b"x")
    manifest = json.loads((tmp_path / "b" / MANIFEST).read_text())
    manifest["files"].append({"path": "../secret", "kind": "media", "size": 1, "sha256": sha256_of(tmp_path / "secret")})
    raw = json.dumps(manifest).encode()
    (tmp_path / "b" / MANIFEST).write_bytes(raw)
    (tmp_path / "b" / signing.SIGNATURE).write_bytes(signing.sign(raw))  # even a signed one
    with pytest.raises(BackupError, match="outside the backup"):
        backup_verify(folder=tmp_path / "b")


def test_postgresql_tools_of_another_major_version_are_refused(monkeypatch):
    monkeypatch.setattr(database, "_tool_major", lambda tool: (f"/usr/bin/{tool}", 14))
    monkeypatch.setattr(database, "pg_server_major", lambda alias="default": (15, "15.20"))
    with pytest.raises(BackupError, match="pg_dump is version 14 but the PostgreSQL server is 15.20.*postgresql-client-15"):
        database.pg_tool("pg_dump")
    monkeypatch.setattr(database, "_tool_major", lambda tool: (f"/usr/bin/{tool}", 15))
    assert database.pg_tool("pg_restore") == "/usr/bin/pg_restore"


def test_missing_postgresql_tools_say_what_to_install(monkeypatch):
    monkeypatch.setattr(database.shutil, "which", lambda tool: None)
    with pytest.raises(BackupError, match="pg_dump is not installed.*postgresql-client"):
        database._tool_major("pg_dump")


# --- Issue 30, hole 4: private backups, signed manifests ------------------------------------------

def sqlite_file_dump(target_dir, alias="default"):
    """The SQLite half of a backup from a real database file written with the process's umask (the
    test database is in memory, which `backup` refuses)."""
    import sqlite3

    with sqlite3.connect(target_dir / "database.sqlite3") as db:
        db.execute("create table auth_user (password text)")
        db.execute("insert into auth_user values ('pbkdf2_sha256$hash')")
    return "database.sqlite3", {"vendor": "sqlite", "server_version": sqlite3.sqlite_version}


@pytest.fixture
def media(db, settings, tmp_path, monkeypatch):  # (db: the commands write their audit entries)
    from backups import services

    monkeypatch.setattr(services, "database_dump", sqlite_file_dump)
    settings.MEDIA_ROOT, settings.ARTIFACT_ROOT = str(tmp_path / "media"), str(tmp_path / "artifacts")
    for relative, data in (("media/releases/1/release.csv", b"a,b\n"), ("media/uploads/x.jsonl", b"{}"),
                           ("artifacts/runs/run-000001/model.pkl", b"weights")):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(data)
        os.chmod(tmp_path / relative, 0o644)
    old = os.umask(0o022)  # the usual umask: new files 0644, folders 0755
    yield tmp_path
    os.umask(old)


def test_backup_folders_are_0700_and_files_0600(media, signing_key_file):
    """Issue 30, hole 4: a backup holds sessions and password hashes; nobody but its owner reads it."""
    call_command("backup", str(media / "backup"), stdout=open(os.devnull, "w"))
    folders = [media / "backup", *(p for p in (media / "backup").rglob("*") if p.is_dir())]
    files = [p for p in (media / "backup").rglob("*") if p.is_file()]
    assert len(folders) >= 6 and {p.name for p in files} >= {"database.sqlite3", MANIFEST, signing.SIGNATURE,
                                                            "release.csv", "model.pkl"}
    assert {str(p.relative_to(media)): oct(stat.S_IMODE(p.stat().st_mode)) for p in folders} == \
        {str(p.relative_to(media)): "0o700" for p in folders}
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {p.name: "0o600" for p in files}
    # the key is kept apart from the backup, readable by its owner only
    assert signing_key_file.exists() and stat.S_IMODE(signing_key_file.stat().st_mode) == 0o600
    assert not any(signing_key_file.read_bytes().strip() in p.read_bytes() for p in files)


def test_a_backup_writes_an_audit_entry_naming_its_folder_not_its_path(media, signing_key_file):
    """Issue 31 item 4: backups are in the audit log, readable: the folder's name and what it holds."""
    from auditlog.models import LogEntry

    call_command("backup", str(media / "backup"), stdout=open(os.devnull, "w"))
    (entry,) = LogEntry.objects.filter(additional_data__event="backup")
    manifest = json.loads((media / "backup" / MANIFEST).read_text())
    assert entry.additional_data["params"] == {"folder": "backup"}
    assert entry.changes["files"] == ["None", str(len(manifest["files"]) - 1)]  # the media files, database apart
    assert str(media) not in json.dumps(entry.additional_data) and str(media) not in entry.object_repr
    assert entry.actor is None  # the command line: the system


def tamper_and_recompute(folder) -> None:
    """Change the database file and recompute its manifest entry, as someone who can write the backup
    but does not hold the key would."""
    (folder / "database.sqlite3").write_bytes((folder / "database.sqlite3").read_bytes() + b"\0" * 512)
    manifest = json.loads((folder / MANIFEST).read_text())
    for entry in manifest["files"]:
        if entry["path"] == "database.sqlite3":
            entry["size"], entry["sha256"] = (folder / "database.sqlite3").stat().st_size, \
                sha256_of(folder / "database.sqlite3")
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1))


def test_a_tampered_backup_with_a_recomputed_manifest_is_refused_by_restore_check(media):
    """Issue 30, hole 4: sha256 sums prove only that a backup agrees with itself; the manifest's
    signature proves this installation made it."""
    call_command("backup", str(media / "backup"), stdout=open(os.devnull, "w"))
    call_command("restore", str(media / "backup"), "--check", stdout=open(os.devnull, "w"))  # intact
    tamper_and_recompute(media / "backup")
    for args in (("--check",), ("--yes",)):
        with pytest.raises(CommandError, match="signature of .*MANIFEST.json does not verify"):
            call_command("restore", str(media / "backup"), *args, stdout=open(os.devnull, "w"))


def test_an_unsigned_or_foreign_backup_is_refused(media, settings):
    call_command("backup", str(media / "backup"), stdout=open(os.devnull, "w"))
    settings.BACKUP_SIGNING_KEY = "another installation's key, long enough to be a key"
    with pytest.raises(CommandError, match="signed with another key"):
        call_command("restore", str(media / "backup"), "--check", stdout=open(os.devnull, "w"))
    settings.BACKUP_SIGNING_KEY = ""
    (media / "backup" / signing.SIGNATURE).unlink()
    with pytest.raises(CommandError, match="unsigned"):
        call_command("restore", str(media / "backup"), "--check", stdout=open(os.devnull, "w"))


def test_restore_without_the_key_says_where_it_belongs(media, settings, signing_key_file):
    call_command("backup", str(media / "backup"), stdout=open(os.devnull, "w"))
    signing_key_file.unlink()
    with pytest.raises(CommandError, match="No backup signing key.*backup_signing_key"):
        call_command("restore", str(media / "backup"), "--check", stdout=open(os.devnull, "w"))
    assert not signing_key_file.exists()  # a restore never makes a key


def test_the_key_file_may_not_lie_in_a_folder_the_backup_copies(media, settings):
    settings.BACKUP_SIGNING_KEY_FILE = str(media / "media" / "backup_signing_key")
    with pytest.raises(CommandError, match="lies inside"):
        call_command("backup", str(media / "backup"), stdout=open(os.devnull, "w"))
    assert not (media / "backup").exists()
