"""The embedded default's SECRET_KEY: generated once per installation and kept in a file only its owner can
read, so no two installations share a key (a shared, published development key let anyone compute every
keyed gold draw offline: issue 20, finding 5). Production takes its key from DJANGO_SECRET_KEY and refuses a
weak one (`secret_key_weakness`)."""
from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

# Django's own bar for a key (django.core.checks.security.base, W009), made an error here.
MIN_LENGTH = 50
MIN_UNIQUE_CHARACTERS = 5
WEAK_PREFIXES = ("django-insecure-", "dev-")


def secret_key_weakness(key: str) -> str | None:
    """Why `key` is not fit for production, or None when it is."""
    if not key:
        return "it is not set"
    if key.startswith(WEAK_PREFIXES):
        return f"it starts with {key.split('-')[0]}-, the mark of a development key"
    if len(key) < MIN_LENGTH:
        return f"it has {len(key)} characters; it needs at least {MIN_LENGTH}"
    if len(set(key)) < MIN_UNIQUE_CHARACTERS:
        return f"it has {len(set(key))} distinct characters; it needs at least {MIN_UNIQUE_CHARACTERS}"
    return None


def installation_secret_key(path: Path | str) -> str:
    """The key stored at `path`, created (random, 0600) on the first call. Creation is atomic: the key is
    written to a private temporary file beside `path` and linked into place only if nothing is there yet,
    so two processes starting at once (web server and worker) agree on one key and nobody reads half a
    file."""
    path = Path(path)
    existing = _read(path)
    if existing:
        return existing
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".secret_key-", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(secrets.token_urlsafe(MIN_LENGTH) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)  # fails if another process made the key first: theirs is kept
        except FileExistsError:
            pass
    finally:
        os.unlink(temporary)
    key = _read(path)
    if not key:
        raise RuntimeError(f"{path} is empty: delete it and start again to make a new secret key.")
    return key


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return ""
