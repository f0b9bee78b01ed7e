"""`make run`'s server: Django's development server and, beside it, the Celery worker that runs
every background job of the embedded default (training, scoring, agreement intervals, prior
rebuilds) on the filesystem broker under var/broker/ - no Redis, and no request waits on a job.

Stopping it (Ctrl-C) stops both. A job the worker was running is then interrupted; the next start
fails it with that reason and sends queued jobs again (core.jobs.jobs_recover_after_restart).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

STOP_GRACE_SECONDS = 10


def worker_argv(*, concurrency: int = 2, loglevel: str = "INFO") -> list[str]:
    """The embedded worker: both queues (the `gpu` queue is the CPU here), beat for the stale-run
    check, and a pidfile so a second `make run` cannot start a second worker on the same folder."""
    folder = Path(settings.EMBEDDED_BROKER_DIR)
    return [sys.executable, "-m", "celery", "-A", "chlgbt_site", "worker", "-Q", "default,gpu", "-B",
            "-s", str(folder / "celerybeat-schedule"), "--pidfile", str(folder / "worker.pid"),
            "-c", str(concurrency), "--without-gossip", "--without-mingle", "--loglevel", loglevel,
            "-n", "embedded@%h"]


def broker_folders_ensure() -> Path:
    folder = Path(settings.EMBEDDED_BROKER_DIR)
    for name in ("messages", "control"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    return folder


class Command(BaseCommand):
    help = ("Serve the embedded default: the development web server and a Celery worker on the filesystem "
            "broker (no Redis), side by side. Ctrl-C stops both.")

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--noreload", action="store_true", help="Do not restart the web server when code changes.")
        parser.add_argument("--concurrency", type=int, default=2, help="Jobs the worker runs at once (default 2).")

    def handle(self, *args, addrport: str, noreload: bool, concurrency: int, **options):
        if not settings.CELERY_EMBEDDED_BROKER:
            raise CommandError("CELERY_BROKER_URL names a broker server; start its workers yourself (README: "
                               "'Running with PostgreSQL, Redis and GPU workers') and serve with runserver or gunicorn.")
        folder = broker_folders_ensure()
        log_path = folder.parent / "worker.log"
        # Own sessions: Ctrl-C reaches this process only, which then stops both in order.
        with open(log_path, "ab") as log:
            worker = subprocess.Popen(worker_argv(concurrency=concurrency), cwd=settings.BASE_DIR, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        web = subprocess.Popen([sys.executable, "manage.py", "runserver", addrport, *(["--noreload"] if noreload else [])],
                               cwd=settings.BASE_DIR, start_new_session=True)
        self.stdout.write(f"Background jobs: Celery worker (pid {worker.pid}) on the filesystem broker {folder}; "
                          f"its log: {log_path}")
        stopping = []
        signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        code = 0
        try:
            while not stopping:
                if worker.poll() is not None:
                    self.stderr.write(f"The background worker stopped (exit {worker.returncode}); see {log_path}. "
                                      "Stopping the web server too.")
                    code = 1
                    break
                if web.poll() is not None:
                    code = web.returncode or 0
                    break
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            _stop(web)
            _stop(worker)
        if code:
            raise CommandError("serve_embedded stopped.", returncode=code)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the process group (the worker then finishes nothing new and exits; the web
    server stops), SIGKILL after a grace period (a long job is then interrupted)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass
