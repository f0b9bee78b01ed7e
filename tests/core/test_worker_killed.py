"""A worker killed during each kind of background job - agreement bootstrap, aggregation, prior
rebuild, training, scoring - never leaves the job running: the job's heartbeat stops with its
process, and the periodic check (celery beat) marks it failed with the translated reason.

Real workers (tests/blocking_worker.py: the project's own worker whose jobs wait in the middle of
their work, so the kill lands while each one runs), in both shapes the workbench runs in:
production (PostgreSQL, Redis, docker-compose's `worker` with beat and `gpu-worker`) and the
embedded default (SQLite, the filesystem broker, `serve_embedded`'s one worker with beat inside)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from core.jobs import WORKER_LOST
from tests.embedded_site import ROOT, EmbeddedSite
from tests.modeling.conftest import synthetic_csv

# Short clocks so each kill is noticed within seconds; the defaults are 15 s / 120 s / 60 s.
FAST_CHECK = {"JOB_HEARTBEAT_SECONDS": "1", "JOB_STALE_SECONDS": "4", "JOB_CHECK_SECONDS": "1"}
TABLES = {"agreementreport": "annotation_agreementreport", "aggregationrun": "annotation_aggregationrun",
          "rebuildrequest": "calibration_rebuildrequest", "trainingrun": "modeling_trainingrun",
          "scoringjob": "modeling_scoringjob"}
LAUNCH = {
    "agreementreport": "from annotation.agreement.services import agreement_report_request as f; "
                       "pk = f(bootstrap=50).pk",
    "aggregationrun": "from annotation.quality.services import aggregation_request as f; pk = f().pk",
    "rebuildrequest": "from calibration.services import rebuild_request as f; pk = f(release_id=None).pk",
    "trainingrun": "from modeling.services import training_run_launch as f; pk = f(created_by=None, release_id=None, "
                   "dimensions=['explicit'], variants=['baseline'], seeds=[0])[0].pk",
    "scoringjob": "from modeling.models import TrainingRun; from modeling.services import scoring_job_launch as f; "
                  "run = TrainingRun.objects.create(launch_group='g', variant='baseline', dimensions=['explicit'], "
                  "status='succeeded', artifact_path='/nowhere'); pk = f(created_by=None, run_id=run.pk).pk",
}


def wait_for(predicate, *, what: str, log: Path | None = None, timeout: float = 120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}\n{log.read_text()[-4000:] if log else ''}")


def blocking_worker(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "tests.blocking_worker", *args], cwd=ROOT, env=env,
                            stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: "ready." in log.read_text(errors="replace"), what=f"the worker {args}", log=log, timeout=90)
    except BaseException:
        stop(proc)
        raise
    return proc


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def kill_during(kind: str, job_id: int, pids: Path, *, status, log: Path) -> int:
    """Wait until the job is running and its work blocked, then SIGKILL the process running it."""
    pid = int(wait_for(lambda: (pids / f"{kind}-{job_id}").exists() and (pids / f"{kind}-{job_id}").read_text(),
                       what=f"{kind} {job_id} to run", log=log))
    assert status() == "running"
    os.kill(pid, signal.SIGKILL)
    return pid


def assert_failed_with_the_reason(status_error, kind: str, log: Path) -> None:
    wait_for(lambda: status_error()[0] != "running", what=f"the check to fail the killed {kind}", log=log)
    status, error = status_error()
    assert (status, error) == ("failed", WORKER_LOST), kind
    with translation.override("zh-hans"):
        assert translation.gettext(error) != error  # shown translated (the pages' trans_value)


# --------------------------------------------------------------------------- production shape


def database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    user = s.get("USER") or "postgres"
    auth = f"{user}:{s['PASSWORD']}@" if s.get("PASSWORD") else f"{user}@"
    return f"postgresql://{auth}{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


@pytest.mark.django_db(transaction=True)
@pytest.mark.celery_worker
@pytest.mark.postgres
@pytest.mark.redis
def test_production_workers_killed_during_each_job_kind(require_postgres, redis_url, tmp_path, settings):
    import redis

    from annotation.importing.services import import_posts
    from chlgbt_site.celery import app
    from core.jobs import job_models
    from tests.modeling.test_celery_worker import use_broker

    redis.Redis.from_url(redis_url).flushdb()
    settings.MEDIA_ROOT, settings.ARTIFACT_ROOT = str(tmp_path / "media"), str(tmp_path / "artifacts")
    import_posts(synthetic_csv(40), with_labels=True)
    pids = tmp_path / "pids"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.base", "DATABASE_URL": database_url(),
           "CELERY_BROKER_URL": redis_url, "MEDIA_ROOT": settings.MEDIA_ROOT, "ARTIFACT_ROOT": settings.ARTIFACT_ROOT,
           "DATABASE_CONN_MAX_AGE": "0", "BLOCKING_PID_DIR": str(pids), **FAST_CHECK}
    old = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    use_broker(app, task_always_eager=False, broker_url=redis_url)
    # docker-compose's two workers: `worker` (default queue, prefork, beat inside) and `gpu-worker` (solo).
    default_log, gpu_log = tmp_path / "default.log", tmp_path / "gpu.log"
    default = blocking_worker(["worker", "-Q", "default", "-c", "2", "-B", "-s", str(tmp_path / "beat"),
                               "--without-gossip", "--without-mingle", "--loglevel", "INFO", "-n", "default@%h"], env, default_log)
    gpu = None
    try:
        for kind in ("agreementreport", "aggregationrun", "rebuildrequest", "trainingrun", "scoringjob"):
            if kind in ("trainingrun", "scoringjob"):
                gpu = blocking_worker(["worker", "-Q", "gpu", "-P", "solo", "-c", "1", "--without-gossip",
                                       "--without-mingle", "--loglevel", "INFO", "-n", f"gpu-{kind}@%h"], env, gpu_log)
            namespace: dict = {}
            exec(LAUNCH[kind], namespace)  # the services, as a page or the admin calls them
            model = next(m for m in job_models() if m._meta.model_name == kind)
            row = model.objects.filter(pk=namespace["pk"])
            killed = kill_during(kind, namespace["pk"], pids, status=lambda row=row: row.get().status,
                                 log=gpu_log if gpu else default_log)
            if gpu is not None:
                assert killed == gpu.pid  # the whole gpu worker died
                gpu.wait(timeout=10)
                gpu = None
            else:
                assert default.poll() is None  # a pool process died; the worker and its beat live on
            assert_failed_with_the_reason(lambda row=row: row.values_list("status", "error").get(), kind, default_log)
        for model in job_models():
            assert not model.objects.filter(status="running").exists(), model
    finally:
        use_broker(app, **old)
        for proc in (default, gpu):
            if proc is not None:
                stop(proc)


# --------------------------------------------------------------------------- the embedded default


@pytest.mark.celery_worker
def test_embedded_worker_killed_during_each_job_kind(tmp_path):
    """serve_embedded's worker exactly as it starts it (both queues, prefork, beat inside, the
    filesystem broker, SQLite): the pool process running each job is killed in turn."""
    from core.management.commands.serve_embedded import broker_folders_ensure, worker_argv

    site = EmbeddedSite(tmp_path)
    (tmp_path / "posts.csv").write_bytes(synthetic_csv(40))
    site.manage("import_posts", str(tmp_path / "posts.csv"), "--with-labels")
    pids = tmp_path / "pids"
    site.env.update(BLOCKING_PID_DIR=str(pids), **FAST_CHECK)
    broker = tmp_path / "var" / "broker"
    old = settings.EMBEDDED_BROKER_DIR
    settings.EMBEDDED_BROKER_DIR = str(broker)
    try:
        broker_folders_ensure()
        argv = worker_argv()
    finally:
        settings.EMBEDDED_BROKER_DIR = old
    assert argv[1:5] == ["-m", "celery", "-A", "chlgbt_site"] and "-B" in argv
    log = tmp_path / "var" / "worker.log"
    worker = blocking_worker(argv[5:], site.env, log)
    try:
        for kind, table in TABLES.items():
            pk = int(site.shell(LAUNCH[kind] + "\nprint(pk)").split()[-1])

            def status_error(table=table, pk=pk):
                return site.query(f"SELECT status, error FROM {table} WHERE id = ?", (pk,))[0]

            killed = kill_during(kind, pk, pids, status=lambda: status_error()[0], log=log)
            assert killed != worker.pid and worker.poll() is None  # a pool process; the worker and beat live on
            assert_failed_with_the_reason(status_error, kind, log)
        for table in TABLES.values():
            assert site.query(f"SELECT count(*) FROM {table} WHERE status = 'running'")[0][0] == 0, table
    finally:
        stop(worker)
