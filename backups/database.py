"""The database half of a backup: PostgreSQL through its own dump tools (pg_dump / pg_restore, whose
major version must match the server's), SQLite through its online backup API (a consistent copy
while the site keeps writing). Each function takes Django's connection settings; nothing here
knows about manifests or media files."""
from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

from django.db import connections


class BackupError(Exception):
    """A backup or restore that cannot go on; the message says what to do."""


def vendor(alias: str = "default") -> str:
    return connections[alias].vendor


# --------------------------------------------------------------------------- SQLite


def sqlite_path(alias: str = "default") -> Path:
    name = str(connections[alias].settings_dict["NAME"])
    if name == ":memory:" or name.startswith("file:"):
        raise BackupError(f"The SQLite database {name!r} is not a file; nothing to back up.")
    return Path(name)


def sqlite_dump(target: Path, alias: str = "default") -> dict:
    """A consistent copy of the live database file (sqlite3's online backup: pages copied under the
    database's lock, so a write in progress is either wholly in or wholly out)."""
    source_path = sqlite_path(alias)
    if not source_path.exists():
        raise BackupError(f"There is no SQLite database at {source_path}.")
    with sqlite3.connect(source_path, timeout=60) as source, sqlite3.connect(target) as copy:
        source.backup(copy)
        version = source.execute("select sqlite_version()").fetchone()[0]
    sqlite_check(target)
    return {"vendor": "sqlite", "server_version": version}


def sqlite_check(path: Path) -> None:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            result = db.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path} is not a sound SQLite database ({exc}).") from exc
    if result != "ok":
        raise BackupError(f"{path} fails SQLite's integrity check: {result}")


def sqlite_restore(source: Path, alias: str = "default") -> None:
    """Replace the live database's content with the backup's, in one step (the backup API writes
    every page under the target's lock; a reader sees the old database or the new one)."""
    sqlite_check(source)
    connections[alias].close()
    target_path = sqlite_path(alias)
    target_path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as backup, sqlite3.connect(target_path, timeout=60) as live:
        backup.backup(live)


# --------------------------------------------------------------------------- PostgreSQL


def _pg_env(alias: str) -> dict[str, str]:
    s = connections[alias].settings_dict
    env = dict(os.environ)
    for key, variable in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD"),
                          ("NAME", "PGDATABASE")):
        if s.get(key):
            env[variable] = str(s[key])
    return env


def _tool_major(tool: str) -> tuple[str, int]:
    path = shutil.which(tool)
    if path is None:
        raise BackupError(f"{tool} is not installed. Install the PostgreSQL client tools of the server's major version "
                          f"(Debian/Ubuntu: apt-get install postgresql-client-<major>; the Docker image has them).")
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout
    match = re.search(r"(\d+)(?:\.(\d+))?", out)
    if not match:
        raise BackupError(f"Could not read the version of {tool} from {out!r}.")
    return path, int(match.group(1))


def pg_server_major(alias: str = "default") -> tuple[int, str]:
    connection = connections[alias]
    connection.ensure_connection()
    number = connection.pg_version  # e.g. 150020
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        text = cursor.fetchone()[0]
    return number // 10000, text


def pg_tool(tool: str, alias: str = "default") -> str:
    """The path of pg_dump / pg_restore, refused unless its major version is the server's: an older
    client cannot dump a newer server, and a newer client's dump may not restore on this one."""
    path, client = _tool_major(tool)
    server, text = pg_server_major(alias)
    if client != server:
        raise BackupError(f"{tool} is version {client} but the PostgreSQL server is {text} (major {server}). Install "
                          f"the client tools of version {server} (postgresql-client-{server}) and put them first on PATH.")
    return path


def pg_dump(target: Path, alias: str = "default") -> dict:
    tool = pg_tool("pg_dump", alias)
    out = subprocess.run([tool, "--format=custom", "--no-owner", "--no-privileges", "--file", str(target)],
                         env=_pg_env(alias), capture_output=True, text=True)
    if out.returncode != 0:
        raise BackupError(f"pg_dump failed: {out.stderr.strip()[-2000:]}")
    major, text = pg_server_major(alias)
    return {"vendor": "postgresql", "server_version": text, "tool_major": major}


def pg_restore(source: Path, alias: str = "default") -> None:
    """Restore into the configured database (created when missing) in a single transaction: a
    dump that fails half-way leaves the database as it was."""
    tool = pg_tool("pg_restore", alias) if _database_exists(alias) else None
    if tool is None:
        _database_create(alias)
        tool = pg_tool("pg_restore", alias)
    connections[alias].close()
    out = subprocess.run([tool, "--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction",
                          "--exit-on-error", "--dbname", connections[alias].settings_dict["NAME"], str(source)],
                         env=_pg_env(alias), capture_output=True, text=True)
    if out.returncode != 0:
        raise BackupError(f"pg_restore failed; the database was left as it was: {out.stderr.strip()[-2000:]}")


def _maintenance_connection(alias: str):
    import psycopg

    s = connections[alias].settings_dict
    return psycopg.connect(dbname="postgres", host=s.get("HOST") or None, port=s.get("PORT") or None,
                           user=s.get("USER") or None, password=s.get("PASSWORD") or None, autocommit=True)


def _database_exists(alias: str) -> bool:
    with _maintenance_connection(alias) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            [connections[alias].settings_dict["NAME"]]).fetchone() is not None


def _database_create(alias: str) -> None:
    from psycopg import sql

    with _maintenance_connection(alias) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(connections[alias].settings_dict["NAME"])))


# --------------------------------------------------------------------------- either


def database_dump(target_dir: Path, alias: str = "default") -> tuple[str, dict]:
    """Write the database into target_dir; returns the file's name and what to record about it."""
    if vendor(alias) == "postgresql":
        name = "database.pgdump"
        return name, pg_dump(target_dir / name, alias)
    if vendor(alias) == "sqlite":
        name = "database.sqlite3"
        return name, sqlite_dump(target_dir / name, alias)
    raise BackupError(f"Backups support PostgreSQL and SQLite, not {vendor(alias)}.")


def database_restore(source: Path, recorded_vendor: str, alias: str = "default") -> None:
    if recorded_vendor != vendor(alias):
        raise BackupError(f"This backup holds a {recorded_vendor} database but the configured one is "
                          f"{vendor(alias)}; restore it where DATABASE_URL names a {recorded_vendor} database.")
    if recorded_vendor == "postgresql":
        pg_restore(source, alias)
    else:
        sqlite_restore(source, alias)
