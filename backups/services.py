"""Backups that can be proven: the database (backups/database.py) and the media files - releases,
uploads (MEDIA_ROOT) and model artefacts (ARTIFACT_ROOT) - with a manifest of every file's size and
sha256. A restore verifies the whole manifest before it touches anything and refuses a damaged
backup; then it replaces the database in one step and swaps each file tree into place.

Layout of a backup folder:

    MANIFEST.json              format, when, which database, every file with its size and sha256
    MANIFEST.sig               the manifest's HMAC-SHA256 with a key kept apart (backups/signing.py)
    database.pgdump | database.sqlite3
    files/media/...            a copy of MEDIA_ROOT
    files/artifacts/...        a copy of ARTIFACT_ROOT

The database is dumped first, the files copied after: releases and artefacts are written before the
rows that name them commit and never change afterwards, so the files hold at least every file the
dumped rows refer to.

A backup holds sessions and password hashes: its folders are 0700 and its files 0600 (issue 30),
whatever the umask, from the moment they are created (the staging folder is private before anything
is written into it).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from . import signing
from .database import BackupError, database_dump, database_restore

MANIFEST = "MANIFEST.json"
FORMAT = "chlgbt-backup/1"
CHUNK = 1 << 20
FOLDER_MODE, FILE_MODE = 0o700, 0o600


def file_roots() -> dict[str, Path]:
    """The file trees a backup holds, by the name they have inside it."""
    return {"media": Path(settings.MEDIA_ROOT), "artifacts": Path(settings.ARTIFACT_ROOT)}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class BackupSummary:
    folder: Path
    database: dict
    files: int
    bytes: int


def backup_create(*, outdir: Path) -> BackupSummary:
    """Write a backup into `outdir` (which must not exist or be empty). It is assembled in a hidden
    folder beside it and renamed into place when complete, so `outdir` never holds half a backup."""
    outdir = Path(outdir)
    if outdir.exists() and any(outdir.iterdir()):
        raise BackupError(f"{outdir} is not empty; give a new folder for each backup (e.g. one named by the date).")
    signing.ensure_outside(list(file_roots().values()))
    outdir.parent.mkdir(parents=True, exist_ok=True)
    staging = outdir.parent / f".{outdir.name}.partial-{uuid.uuid4().hex[:8]}"
    staging.mkdir(mode=FOLDER_MODE)
    os.chmod(staging, FOLDER_MODE)  # exactly, whatever the umask
    try:
        db_file, db_info = database_dump(staging)
        os.chmod(staging / db_file, FILE_MODE)
        entries = [_entry(staging, db_file, "database")]
        for root_name, root in file_roots().items():
            for source in sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []:
                relative = source.relative_to(root).as_posix()
                target = staging / "files" / root_name / relative
                _private_folders(staging, target.parent)
                shutil.copy2(source, target)
                os.chmod(target, FILE_MODE)
                entries.append(_entry(staging, f"files/{root_name}/{relative}", root_name))
        manifest = {"format": FORMAT, "created_at": timezone.now().isoformat(), "database": {**db_info, "file": db_file},
                    "files": entries}
        raw = json.dumps(manifest, indent=1, ensure_ascii=False).encode("utf-8")
        _write_private(staging / MANIFEST, raw)
        _write_private(staging / signing.SIGNATURE, signing.sign(raw))
        if outdir.exists():
            outdir.rmdir()  # empty (checked above)
        os.replace(staging, outdir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BackupSummary(folder=outdir, database=manifest["database"], files=len(entries) - 1,
                         bytes=sum(e["size"] for e in entries))


def _private_folders(top: Path, folder: Path) -> None:
    """Make `folder` and the folders between it and `top`, each 0700."""
    missing = []
    while folder != top and not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(mode=FOLDER_MODE)
        os.chmod(path, FOLDER_MODE)


def _write_private(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(path, FILE_MODE)


def _entry(folder: Path, relative: str, kind: str) -> dict:
    path = folder / relative
    return {"path": relative, "kind": kind, "size": path.stat().st_size, "sha256": sha256_of(path)}


def backup_verify(*, folder: Path) -> dict:
    """The manifest, once its signature verifies with this installation's backup signing key
    (backups/signing.py) and every file it lists is present with its size and sha256; BackupError
    listing every problem otherwise."""
    folder = Path(folder)
    try:
        raw = (folder / MANIFEST).read_bytes()
        manifest = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise BackupError(f"{folder} holds no {MANIFEST}: it is not a backup, or an incomplete one.") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BackupError(f"{folder / MANIFEST} is damaged ({exc}); this backup cannot be trusted.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(manifest.get("files"), list):
        raise BackupError(f"{folder / MANIFEST} is not a {FORMAT} manifest.")
    signing.verify(folder, raw)
    problems = []
    for entry in manifest["files"]:
        relative = str(entry.get("path", ""))
        path = (folder / relative).resolve()
        if not relative or folder.resolve() not in path.parents:
            problems.append(f"{relative!r}: a path outside the backup")
        elif not path.is_file():
            problems.append(f"{relative}: missing")
        elif path.stat().st_size != entry.get("size"):
            problems.append(f"{relative}: {path.stat().st_size} bytes, the manifest says {entry.get('size')}")
        elif sha256_of(path) != entry.get("sha256"):
            problems.append(f"{relative}: its sha256 differs from the manifest's (damaged or changed)")
    if not any(e.get("kind") == "database" for e in manifest["files"]):
        problems.append("the manifest lists no database file")
    if problems:
        raise BackupError(f"The backup in {folder} is damaged; nothing was restored. " + "; ".join(problems[:20])
                          + (f"; and {len(problems) - 20} more" if len(problems) > 20 else ""))
    return manifest


def backup_restore(*, folder: Path) -> dict:
    """Restore a verified backup: each file tree is copied beside its root (and checked again), the
    database replaced in one step, then each tree swapped into place. A damaged backup or a failed
    database restore leaves the database and the files as they were."""
    folder = Path(folder)
    manifest = backup_verify(folder=folder)
    staged: dict[str, Path] = {}
    try:
        for root_name, root in file_roots().items():
            stage = root.parent / f".{root.name}.restoring-{uuid.uuid4().hex[:8]}"
            stage.mkdir(parents=True)
            staged[root_name] = stage
            for entry in manifest["files"]:
                if entry["kind"] != root_name:
                    continue
                relative = entry["path"].split("/", 2)[2]
                target = stage / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(folder / entry["path"], target)
                if sha256_of(target) != entry["sha256"]:
                    raise BackupError(f"{target} was not copied intact (disk full or failing?); nothing was restored.")
        database = manifest["database"]
        database_restore(folder / database["file"], database["vendor"])
    except BaseException:
        for stage in staged.values():
            shutil.rmtree(stage, ignore_errors=True)
        raise
    for root_name, stage in staged.items():
        root = file_roots()[root_name]
        old = root.parent / f".{root.name}.replaced-{uuid.uuid4().hex[:8]}"
        if root.exists():
            os.replace(root, old)
        os.replace(stage, root)
        shutil.rmtree(old, ignore_errors=True)
    return manifest
