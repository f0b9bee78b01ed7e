"""A backup's manifest is signed (HMAC-SHA256) with a key kept apart from the backup, so a backup whose
files were changed and whose manifest was recomputed to match is refused (issue 30, hole 4): sha256
sums alone prove only that a backup is self-consistent, not that this installation made it.

The key: `BACKUP_SIGNING_KEY` (the key itself, from the environment) when set; otherwise the file
`BACKUP_SIGNING_KEY_FILE` (default `var/backup_signing_key`), made on the first backup (random, 0600,
created atomically as the installation's secret key is) and read on every later backup and restore.
It never goes into a backup: a backup of MEDIA_ROOT / ARTIFACT_ROOT that would hold the key file is
refused. Restoring elsewhere needs the same key (copy the file, or set the variable, by another way
than the backup itself).

`MANIFEST.sig` holds the signature of the manifest's exact bytes and the key's id (a fingerprint that
does not reveal the key), so a refusal can say whether the backup was signed with another key."""
from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

from django.conf import settings

from chlgbt_site.installation_secret import installation_secret_key

from .database import BackupError

SIGNATURE = "MANIFEST.sig"
ALGORITHM = "hmac-sha256"


def key_file() -> Path:
    return Path(settings.BACKUP_SIGNING_KEY_FILE)


def signing_key(*, create: bool) -> bytes:
    """The configured key; made in `key_file()` when `create` (a backup) and none is configured yet."""
    configured = (getattr(settings, "BACKUP_SIGNING_KEY", "") or "").strip()
    if configured:
        return configured.encode("utf-8")
    path = key_file()
    if create:
        return installation_secret_key(path).encode("ascii")
    try:
        key = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        key = ""
    if not key:
        raise BackupError(f"No backup signing key: BACKUP_SIGNING_KEY is not set and {path} does not exist. A backup "
                          f"is restored only with the key it was signed with: put that key file there (or set "
                          f"BACKUP_SIGNING_KEY); nothing was restored.")
    return key.encode("ascii")


def key_id(key: bytes) -> str:
    """A fingerprint of the key that tells keys apart without revealing them."""
    return hmac.new(key, b"chlgbt-backup-key-id", hashlib.sha256).hexdigest()[:16]


def ensure_outside(roots: list[Path]) -> None:
    """Refuse to back up a tree that holds the key file (the key must stay apart from the backup)."""
    if (getattr(settings, "BACKUP_SIGNING_KEY", "") or "").strip():
        return
    path = key_file().resolve()
    for root in roots:
        if root.resolve() == path or root.resolve() in path.parents:
            raise BackupError(f"The backup signing key {path} lies inside {root}, which a backup copies: move it "
                              f"(BACKUP_SIGNING_KEY_FILE) outside MEDIA_ROOT and ARTIFACT_ROOT.")


def sign(manifest_bytes: bytes) -> bytes:
    """The contents of MANIFEST.sig for these manifest bytes."""
    key = signing_key(create=True)
    signature = hmac.new(key, manifest_bytes, hashlib.sha256).hexdigest()
    return json.dumps({"algorithm": ALGORITHM, "key_id": key_id(key), "signature": signature}, indent=1).encode()


def verify(folder: Path, manifest_bytes: bytes) -> None:
    """BackupError unless MANIFEST.sig in `folder` is this installation's signature of `manifest_bytes`."""
    try:
        recorded = json.loads((folder / SIGNATURE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackupError(f"{folder} holds no {SIGNATURE}: the backup is unsigned (made before backups were signed, "
                          f"or its signature was removed), so it cannot be trusted; nothing was restored.") from None
    except (ValueError, UnicodeDecodeError):
        raise BackupError(f"{folder / SIGNATURE} is damaged; this backup cannot be trusted; nothing was restored.") \
            from None
    if not isinstance(recorded, dict) or recorded.get("algorithm") != ALGORITHM:
        raise BackupError(f"{folder / SIGNATURE} is not a {ALGORITHM} signature; nothing was restored.")
    key = signing_key(create=False)
    expected = hmac.new(key, manifest_bytes, hashlib.sha256).hexdigest()
    if hmac.compare_digest(expected, str(recorded.get("signature", ""))):
        return
    if recorded.get("key_id") != key_id(key):
        raise BackupError(f"The backup in {folder} was signed with another key (id {recorded.get('key_id')}; this "
                          f"installation's is {key_id(key)}): restore it with the key it was made with "
                          f"(BACKUP_SIGNING_KEY or {key_file()}); nothing was restored.")
    raise BackupError(f"The signature of {folder / 'MANIFEST.json'} does not verify: the manifest was changed after "
                      f"the backup was made (tampered or damaged); nothing was restored.")
