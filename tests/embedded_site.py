"""The embedded default as `make run` serves it, in a temporary folder: its own SQLite file, the
filesystem broker, media and artefacts; `manage.py` commands run in subprocesses against it, and
`serve()` starts `serve_embedded` (web server + Celery worker, no Redis). The test process reads
the database with the sqlite3 module, never through Django (its own database is the test one)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedSite:
    def __init__(self, folder: Path, *, template_db: Path | None = None):
        self.folder = folder
        self.db_path = folder / "db.sqlite3"
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("CELERY_BROKER_URL", "DATABASE_URL", "CELERY_TASK_ALWAYS_EAGER", "DJANGO_SETTINGS_MODULE",
                                   "DJANGO_DEBUG")}
        self.env.update(DJANGO_SETTINGS_MODULE="chlgbt_site.settings.local",
                        DATABASE_URL=f"sqlite:///{self.db_path}", EMBEDDED_BROKER_DIR=str(folder / "var" / "broker"),
                        MEDIA_ROOT=str(folder / "media"), ARTIFACT_ROOT=str(folder / "artifacts"))
        if template_db is not None:
            shutil.copy(template_db, self.db_path)
        else:
            self.manage("migrate", "--noinput")
        self.url = ""

    @property
    def worker_log(self) -> str:
        path = self.folder / "var" / "worker.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def manage(self, *args: str, timeout: float = 300) -> str:
        out = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True,
                             text=True, timeout=timeout)
        assert out.returncode == 0, f"manage.py {' '.join(args)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        return out.stdout

    def shell(self, code: str) -> str:
        """Run Python inside the site's Django (services, ORM); returns what it printed."""
        return self.manage("shell", "--no-imports", "-c", code)

    def query(self, sql: str, params=()) -> list[tuple]:
        with sqlite3.connect(self.db_path, timeout=20) as db:
            return db.execute(sql, params).fetchall()

    def wait_for(self, predicate, *, timeout: float = 180, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.3)
        raise AssertionError(f"timed out waiting for {what}\nworker log:\n{self.worker_log[-4000:]}")

    @contextmanager
    def serve(self):
        """`manage.py serve_embedded` on a free port, as `make run` runs it; stopped with SIGTERM."""
        port = free_port()
        log = open(self.folder / "serve.log", "ab")
        proc = subprocess.Popen([sys.executable, "manage.py", "serve_embedded", f"127.0.0.1:{port}", "--noreload"],
                                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{port}"
        start = len(self.worker_log)
        try:
            self.wait_for(lambda: "ready." in self.worker_log[start:] and _listening(port), timeout=90,
                          what="the web server and the worker")
            yield proc
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    proc.kill()
            log.close()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0
