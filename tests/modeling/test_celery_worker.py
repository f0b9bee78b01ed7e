"""A real Celery worker against the real Redis broker and PostgreSQL: launch from the admin, wait,
check metrics, artefacts and predictions; kill the worker mid-run and see the run end failed."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse

from annotation.importing.services import import_posts
from core.jobs import WORKER_LOST, jobs_fail_lost
from modeling import services
from modeling.maam.train import MAAMModel
from modeling.models import Prediction, ScoringJob, TrainingRun

from .conftest import synthetic_csv

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.celery_worker, pytest.mark.postgres,
              pytest.mark.redis]
DIMS = ["explicit", "implicit", "emotional"]


def database_url() -> str:
    s = connection.settings_dict
    user = s.get("USER") or "postgres"
    auth = f"{user}:{s['PASSWORD']}@" if s.get("PASSWORD") else f"{user}@"
    return f"postgresql://{auth}{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


@pytest.fixture
def worker(require_postgres, redis_url, tmp_path):
    """A solo-pool worker on the gpu and default queues; the web side publishes to the same broker."""
    import redis

    from chlgbt_site.celery import app

    redis.Redis.from_url(redis_url).flushdb()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.base", "DATABASE_URL": database_url(),
           "CELERY_BROKER_URL": redis_url, "MEDIA_ROOT": settings.MEDIA_ROOT, "ARTIFACT_ROOT": settings.ARTIFACT_ROOT,
           "DATABASE_CONN_MAX_AGE": "0"}
    log = open(tmp_path / "worker.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "chlgbt_site", "worker", "-Q", "gpu,default",
                             "-P", "solo", "-c", "1", "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
                            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=settings.BASE_DIR)
    old = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    use_broker(app, task_always_eager=False, broker_url=redis_url)
    deadline = time.time() + 60
    while time.time() < deadline and "ready" not in (tmp_path / "worker.log").read_text():
        assert proc.poll() is None, (tmp_path / "worker.log").read_text()
        time.sleep(0.5)
    proc.log_path = tmp_path / "worker.log"
    yield proc
    use_broker(app, **old)
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    log.close()


def use_broker(app, **conf) -> None:
    """Point the in-process app at another broker; drop pooled connections made for the old one
    (an eager call earlier in the session may have opened a producer pool)."""
    from kombu import pools

    app.conf.update(**conf)
    pools.reset()  # closes and forgets every pooled connection, so none is reused closed
    app._pool = None
    app.amqp._producer_pool = None


def wait_for(predicate, timeout: float = 120, what: str = "condition", proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.3)
    detail = proc.log_path.read_text()[-3000:] if proc is not None else ""
    raise AssertionError(f"timed out waiting for {what}\n{detail}")


@pytest.fixture
def release(tmp_path, settings):
    from annotation.releases.services import release_publish

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    import_posts(synthetic_csv(120), with_labels=True)
    return release_publish(bootstrap=0)


def test_admin_launch_runs_on_a_real_worker_then_scoring(release, worker, client, make_user):
    client.force_login(make_user("res", role="researcher", is_staff=True, is_superuser=True))
    response = client.post(reverse("admin:modeling_launch"), {
        "release": release.pk, "variants": ["baseline", "full"], "dimensions": DIMS, "seeds": "0",
        "backbone": "char-ngram", "epochs": 3, "learning_rate": 2e-5, "batch_size": 16, "C": 2.0, "device": "auto"})
    assert response.status_code == 302
    assert TrainingRun.objects.count() == 2
    wait_for(lambda: TrainingRun.objects.filter(status="succeeded").count() == 2, what="two runs", proc=worker)
    for run in TrainingRun.objects.all():
        assert run.celery_task_id and run.metrics["test"]["emotional"]["after"]["accuracy"] >= 0
        assert MAAMModel.load(run.artifact_path).config.variant == run.variant
    full = TrainingRun.objects.get(variant="full")
    client.post(reverse("admin:modeling_trainingrun_changelist"), {"action": "score_all", "_selected_action": [full.pk]})
    wait_for(lambda: ScoringJob.objects.filter(status="succeeded").exists(), what="scoring", proc=worker)
    assert Prediction.objects.filter(run=full).count() == 120


def test_killing_the_worker_mid_run_never_leaves_it_running(release, worker, settings):
    # enough work that the run is still going when the worker dies
    import_posts(synthetic_csv(3000, seed=1, prefix="更多"), with_labels=True)
    (run,) = services.training_run_launch(created_by=None, release_id=None, dimensions=DIMS, variants=["full"], seeds=[0],
                                          hyperparameters={"C": 2.0})
    wait_for(lambda: TrainingRun.objects.get(pk=run.pk).status == "running", proc=worker,
             what=f"the run to start ({TrainingRun.objects.filter(pk=run.pk).values_list('status', 'error').first()})")
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    run.refresh_from_db()
    assert run.status == "running"  # the row cannot know yet...
    time.sleep(1.5)
    # ...until the lost-job check notices its heartbeat stopped
    assert jobs_fail_lost(stale_seconds=1)["modeling.TrainingRun"] == 1
    run.refresh_from_db()
    assert run.status == "failed" and run.error == WORKER_LOST and not run.artifact_path
    artifacts = Path(settings.ARTIFACT_ROOT) / "runs"
    assert not (artifacts / f"run-{run.pk:06d}").exists()  # no half-written artefact under the real name
