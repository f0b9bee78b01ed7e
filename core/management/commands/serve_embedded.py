"""`make run`'s server: Django's development server and, beside it, the Celery worker that runs
every background job of the embedded default (training, scoring, agreement intervals, prior
rebuilds) on the filesystem broker under var/broker/ - no Redis, and no request waits on a job.

Stopping it (Ctrl-C, closing its terminal, or SIGTERM) stops both. A job the worker was running is
then interrupted and marked failed with that reason (at the stop, or at the latest by the next start,
which also sends queued jobs again: core.jobs.jobs_recover_after_restart).

The web server runs with DEBUG off unless DJANGO_DEBUG says otherwise, so a newcomer sees the site's
own error pages (templates/404.html ...), never Django's debug page; static files are still served
(runserver --insecure).
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


def web_argv(addrport: str, *, noreload: bool = False) -> list[str]:
    """runserver; --insecure serves the static files although DEBUG is off (web_env)."""
    return [sys.executable, "manage.py", "runserver", addrport, "--insecure", *(["--noreload"] if noreload else [])]


def web_env() -> dict[str, str]:
    """The web server's environment: DEBUG off unless DJANGO_DEBUG is set, so pages that fail or are
    missing are the site's error pages in the reader's language, not the debug page."""
    env = dict(os.environ)
    env.setdefault("DJANGO_DEBUG", "0")
    return env


def worker_running(folder: Path) -> int | None:
    """The pid of a worker already serving this broker folder (an earlier `make run` still up), if any."""
    try:
        pid = int((folder / "worker.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None  # a stale pidfile: Celery replaces it
    except PermissionError:
        pass
    return pid


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
        running = worker_running(folder)
        if running is not None:
            raise CommandError(f"A background worker already serves {folder} (pid {running}): another `make run` is "
                               f"still up. Stop it (Ctrl-C in its terminal, or `kill {running}`) and start again.")
        stopping = []
        # SIGHUP too: closing the terminal must not leave the worker and the web server behind, where
        # the next `make run` would find the port taken and the worker's pidfile held.
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, lambda *_: stopping.append(True))
        log_path = folder.parent / "worker.log"
        # Own sessions: Ctrl-C reaches this process only, which then stops both in order.
        with open(log_path, "ab") as log:
            worker = subprocess.Popen(worker_argv(concurrency=concurrency), cwd=settings.BASE_DIR, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        web = subprocess.Popen(web_argv(addrport, noreload=noreload), cwd=settings.BASE_DIR, env=web_env(),
                               start_new_session=True)
        self.stdout.write(f"Background jobs: Celery worker (pid {worker.pid}) on the filesystem broker {folder}; "
                          f"its log: {log_path}")
        if web_env()["DJANGO_DEBUG"] == "0":
            self.stdout.write("The web server runs with DEBUG off (the site's own error pages); DJANGO_DEBUG=1 shows "
                              "Django's debug pages instead.")
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
