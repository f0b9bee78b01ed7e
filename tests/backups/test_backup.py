"""Backups that are proven: the drill (back up, destroy, restore, compare) on SQLite always and on
PostgreSQL where it is available; a damaged backup is refused with the reason; the PostgreSQL client
tools must match the server's major version."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from backups import database
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


@pytest.mark.postgres
def test_backup_drill_on_postgresql_restores_everything_identical(require_postgres):
    result = run_drill("--postgres")
    assert result["identical"] is True and result["database"].startswith("PostgreSQL")


def make_backup(folder, files: dict[str, bytes]) -> None:
    entries = []
    for relative, data in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        kind = "database" if relative.startswith("database") else relative.split("/")[1]
        entries.append({"path": relative, "kind": kind, "size": len(data), "sha256": sha256_of(path)})
    (folder / MANIFEST).write_text(json.dumps({"format": FORMAT, "created_at": "now", "files": entries,
                                               "database": {"vendor": "sqlite", "file": "database.sqlite3"}}))


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
    (tmp_path / "b" / MANIFEST).write_text(json.dumps(manifest))
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
