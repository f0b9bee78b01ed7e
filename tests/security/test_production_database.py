"""Issue 31, item 9: production settings refuse to start without DATABASE_URL (no silent SQLite
fallback, whose file would be lost with the container), with a message saying what to set."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODE = "import chlgbt_site.settings.production as s; print(s.DATABASES['default']['ENGINE'])"


@pytest.mark.parametrize("url, refused, engine", [
    (None, True, None), ("", True, None),
    ("postgres://chlgbt:pw@db.example.org:5432/chlgbt", False, "django.db.backends.postgresql"),
    ("sqlite:////srv/chlgbt/db.sqlite3", False, "django.db.backends.sqlite3"),  # SQLite by name, on purpose
])
def test_production_needs_a_database_url(url, refused, engine):
    env = {**os.environ, "DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "DJANGO_ALLOWED_HOSTS": "chlgbt.example.org",
           "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}
    env.pop("DATABASE_URL", None)
    if url is not None:
        env["DATABASE_URL"] = url
    out = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert (out.returncode != 0) == refused, out.stderr[-2000:]
    if refused:
        assert "Set DATABASE_URL" in out.stderr and "does not fall back to SQLite" in out.stderr
    else:
        assert out.stdout.strip().splitlines()[-1] == engine
