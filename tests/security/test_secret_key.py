"""Finding 5 (issue 20): the embedded default makes its own SECRET_KEY per installation (kept, 0600), and
production refuses to start without a strong one."""
from __future__ import annotations

import os
import secrets
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from chlgbt_site.installation_secret import installation_secret_key, secret_key_weakness

ROOT = Path(__file__).resolve().parent.parent.parent
PRINT_KEY = "from django.conf import settings; print(settings.SECRET_KEY)"


def _local_key(key_file: Path) -> str:
    """SECRET_KEY as a fresh process of the embedded default (`make run`'s settings) sees it."""
    env = {key: value for key, value in os.environ.items() if key not in ("DJANGO_SECRET_KEY", "DATABASE_URL")}
    env.update(DJANGO_SETTINGS_MODULE="chlgbt_site.settings.local", SECRET_KEY_FILE=str(key_file))
    out = subprocess.run([sys.executable, "manage.py", "shell", "--no-imports", "-c", PRINT_KEY], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_two_fresh_installations_get_different_keys_that_persist_across_restarts(tmp_path):
    first, second = tmp_path / "one" / "var" / "secret_key", tmp_path / "two" / "var" / "secret_key"
    key_one = _local_key(first)
    key_two = _local_key(second)
    assert key_one != key_two
    assert secret_key_weakness(key_one) is None and secret_key_weakness(key_two) is None
    assert key_one != "dev-insecure-change-me"
    assert _local_key(first) == key_one  # a restart reads the same key
    assert first.read_text().strip() == key_one
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    assert [p.name for p in first.parent.iterdir()] == ["secret_key"]  # no temporary file left behind


def test_processes_starting_together_agree_on_one_key(tmp_path):
    path = tmp_path / "secret_key"
    keys, start = [], threading.Barrier(8)

    def make():
        start.wait()
        keys.append(installation_secret_key(path))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(keys) == 8 and len(set(keys)) == 1 and path.read_text().strip() == keys[0]


def test_an_empty_key_file_is_an_error_that_says_what_to_do(tmp_path):
    path = tmp_path / "secret_key"
    path.write_text("")
    with pytest.raises(RuntimeError, match="delete it"):
        installation_secret_key(path)


@pytest.mark.parametrize("key, refused", [
    (None, True), ("", True), ("dev-insecure-change-me", True), ("django-insecure-" + "a1b2c3d4e5" * 6, True),
    ("short-but-random-Xy7", True), ("x" * 60, True), (secrets.token_urlsafe(50), False)])
def test_production_refuses_a_weak_or_missing_secret_key(key, refused):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.production",
           "DJANGO_ALLOWED_HOSTS": "chlgbt.example.org", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
           "DATABASE_URL": "postgres://chlgbt:pw@db.example.org:5432/chlgbt"}
    env.pop("DJANGO_SECRET_KEY", None)
    if key is not None:
        env["DJANGO_SECRET_KEY"] = key
    out = subprocess.run([sys.executable, "-c", "import chlgbt_site.settings.production"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert (out.returncode != 0) == refused, out.stderr[-2000:]
    if refused:
        assert "DJANGO_SECRET_KEY is too weak for production" in out.stderr
