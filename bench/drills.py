"""Fault drills on one machine; writes bench/drills.md.

    python bench/drills.py            # the drills (PostgreSQL, Redis, gunicorn on loopback)
    python bench/drills.py --smoke    # no services: the report from a committed load-test result, and the
                                      # drill tests collected (the test suite runs this)

1. PostgreSQL restarted mid-load (bench/loadtest.py --restart-postgres-at): clients get clean 503s,
   retry, and the database holds exactly the acknowledged judgments.
2. Redis stopped: annotation through gunicorn keeps working; launching a run is refused with a
   clear message; after Redis returns, launching works and the job waits in the queue.
3. A Celery worker killed mid-run, and a read-only / full disk during a release export: these are
   automated tests (tests/modeling/test_celery_worker.py, tests/annotation/test_releases.py),
   run here and their outcome recorded."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import requests
from common import ROOT, SUBMIT_STEP, setup_django, synthetic_posts

REDIS_START = ["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379", "--save", "",
               "--appendonly", "no", "--dir", "/var/lib/redis", "--logfile", "/var/log/redis/ci.log"]
PORT = 8767
out: list[str] = ["# Fault drills", "", f"Run by `make drills` on {time.strftime('%Y-%m-%d %H:%M')}.", ""]


def section(title: str, lines: list[str]) -> None:
    out.extend([f"## {title}", "", *lines, ""])
    print(f"== {title}\n" + "\n".join(lines), flush=True)


def drill_postgres() -> None:
    result_file = "/tmp/drill-postgres.json"
    subprocess.run([sys.executable, "loadtest.py", "--annotators", "50", "--duration", "40", "--restart-postgres-at",
                    "15", "--json-out", result_file], cwd=ROOT / "bench", check=True, capture_output=True)
    section("PostgreSQL restarted mid-load", postgres_lines(json.loads(Path(result_file).read_text())))


def postgres_lines(r: dict) -> list[str]:
    """The PostgreSQL drill's report from the load test's result (bench/loadtest.py --json-out)."""
    restart = (r.get("drill") or {}).get("restart_took_s")
    step = r["endpoints"][SUBMIT_STEP]
    return [
        f"- 50 annotators for {r['duration_s']} s; PostgreSQL restarted at 15 s"
        + (f" (took {restart:.1f} s)" if restart is not None else " (no restart in this result)"),
        f"- requests {r['requests']}, failed attempts {sum(e['errors'] for e in r['endpoints'].values())} "
        f"(clean 503 + Retry-After), client retries {r.get('client_retries', 0)}",
        f"- acknowledged judgments {r['acknowledged_judgments']}, stored {r['stored_judgments']}, "
        f"identical: **{r['db_equals_acknowledged']}**",
        f"- submit + next p50/p95/p99: {step['p50_ms']} / {step['p95_ms']} / {step['p99_ms']} ms"]


def drill_redis() -> None:
    setup_django(postgres=True, name="chlgbt_drill")
    from rest_framework.authtoken.models import Token

    from annotation.releases.services import release_publish
    from annotation.importing.services import import_posts
    from annotation.models import Batch
    from annotation.services import annotator_ensure
    from chlgbt_site.celery import app
    from core.errors import QueueUnavailable
    from modeling import services
    from modeling.models import TrainingRun

    rows = "".join(f"{t},{1 + i % 5},{1 + (i // 2) % 5},{1 + (i // 3) % 5}\n" for i, t in enumerate(synthetic_posts(200)))
    import_posts(("Sentences,Explicit,Implicit,Emotional\n" + rows).encode(), with_labels=True, batch_name="drill",
                 as_work=True)  # the drill scores them through the queue
    release = release_publish(bootstrap=0)
    batch = Batch.objects.get(name="drill")
    user = annotator_ensure(username="drill-annotator")
    token = Token.objects.create(user=user).key
    broker = "redis://127.0.0.1:6379/12"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.base", "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
           "CELERY_BROKER_URL": broker, "CACHE_URL": "redis://127.0.0.1:6379/11"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "chlgbt_site.wsgi", "--bind", f"127.0.0.1:{PORT}",
                               "--workers", "2"], cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    headers = {"Authorization": f"Token {token}"}
    lines = []
    app.conf.update(task_always_eager=False, broker_url=broker)
    try:
        time.sleep(3)
        subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", "6379", "shutdown", "nosave"], capture_output=True)
        time.sleep(1)
        lines.append("- Redis stopped (`redis-cli shutdown nosave`).")
        submitted = 0
        for _ in range(5):
            item = requests.post(f"http://127.0.0.1:{PORT}/api/queue/{batch.id}/next/", headers=headers, timeout=10).json()
            r = requests.post(f"http://127.0.0.1:{PORT}/api/judgments/", headers=headers, timeout=10,
                              json={"item": item["item"], "explicit": 2, "implicit": 2, "emotional": 3})
            submitted += r.status_code == 201
        lines.append(f"- annotation while Redis is down: {submitted}/5 submits acknowledged (201).")
        try:
            services.training_run_launch(created_by=None, release_id=release.pk, dimensions=["explicit"],
                                         variants=["full"], seeds=[0])
            lines.append("- launching a run: UNEXPECTEDLY ACCEPTED")
        except QueueUnavailable as exc:
            lines.append(f"- launching a run is refused: “{exc}” — runs created: {TrainingRun.objects.count()}")
        subprocess.run(REDIS_START, check=True, capture_output=True)
        time.sleep(1)
        lines.append("- Redis started again.")
        from kombu import pools

        pools.reset()
        app._pool = None
        app.amqp._producer_pool = None
        (run,) = services.training_run_launch(created_by=None, release_id=release.pk, dimensions=["explicit"],
                                              variants=["full"], seeds=[0])
        run.refresh_from_db()
        lines.append(f"- launching again: run {run.pk} is `{run.status}` with task id {run.celery_task_id[:8]}…, "
                     "waiting for a worker in the queue.")
    finally:
        server.terminate()
        if subprocess.run(["redis-cli", "ping"], capture_output=True).returncode != 0:
            subprocess.run(REDIS_START, capture_output=True)
    section("Redis stopped", lines)


DRILL_TESTS = ["tests/modeling/test_celery_worker.py::test_killing_the_worker_mid_run_never_leaves_it_running",
               "tests/core/test_worker_killed.py::test_production_workers_killed_during_each_job_kind",
               "tests/annotation/test_releases.py::test_failed_write_publishes_nothing",
               "tests/annotation/test_releases.py::test_read_only_media_publishes_nothing"]


def drill_tests() -> None:
    env = {**os.environ, "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test", "TEST_REDIS_URL": "redis://127.0.0.1:6379/15",
           "REQUIRE_POSTGRES": "1", "REQUIRE_REDIS": "1"}
    tests = DRILL_TESTS
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", *tests], cwd=ROOT, env=env, capture_output=True, text=True)
    tail = [line for line in r.stdout.splitlines() if line.strip()][-4:]
    section("Worker killed mid-run (each job kind); disk full / read-only during export", [
        "- `" + t.split("::")[1] + "`" for t in tests] + ["", "```", *tail, "```"])


def smoke() -> None:
    """What can break without the services: the report reads the load test's result format (the
    committed run), and every drill test still exists under its name."""
    lines = postgres_lines(json.loads((ROOT / "bench" / "loadtest-50.json").read_text()))
    assert len(lines) == 4, lines
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *DRILL_TESTS], cwd=ROOT,
                       capture_output=True, text=True)
    collected = [line for line in r.stdout.splitlines() if "::" in line]
    assert r.returncode == 0 and len(collected) == len(DRILL_TESTS), r.stdout[-2000:] + r.stderr[-2000:]
    print("drills smoke: report and drill tests OK")


if __name__ == "__main__":
    if "--smoke" in sys.argv[1:]:
        smoke()
        raise SystemExit(0)
    drill_postgres()
    drill_redis()
    drill_tests()
    (ROOT / "bench" / "drills.md").write_text("\n".join(out), encoding="utf-8")
    print("wrote bench/drills.md")
