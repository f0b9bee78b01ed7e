"""Issue 30: the Dockerfile copies the whole tree (`COPY . .`); without a .dockerignore a checkout's
var/secret_key, database and media would end up in the image. The build context's exclusions, read as
Docker reads them (patterns from the root, `**/` into every folder, a folder's match covers its files)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def _regex(pattern: str) -> re.Pattern:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def excluded(path: str) -> bool:
    patterns = [line.strip().strip("/") for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert not any(p.startswith("!") for p in patterns)  # (no re-inclusions to interpret)
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    return any(_regex(p).match(prefix) for p in patterns for prefix in prefixes)


@pytest.mark.parametrize("path", ["var/secret_key", "var/backup_signing_key", "var/broker/in/x.msg", "db.sqlite3",
                                  "db.sqlite3-journal", "db.sqlite3-wal", "media/releases/1/release.csv",
                                  "artifacts/runs/run-000001/model.pkl", ".venv/bin/python", ".git/HEAD",
                                  "annotation/__pycache__/models.cpython-311.pyc", "locale/zh_Hans/LC_MESSAGES/django.mo",
                                  ".env", "staticfiles/admin/css/base.css"])
def test_secrets_data_and_build_output_stay_out_of_the_image(path):
    assert excluded(path), path


@pytest.mark.parametrize("path", ["manage.py", "requirements.txt", "backups/services.py", "annotation/models.py",
                                  "templates/base.html", "static/js/autosubmit.js", "locale/zh_Hans/LC_MESSAGES/django.po",
                                  "chlgbt_site/settings/production.py", "docker-compose.yml"])
def test_the_code_the_image_runs_goes_in(path):
    assert (ROOT / path).exists() and not excluded(path), path
