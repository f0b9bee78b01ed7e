"""A job runs once: a task delivered twice (acks-late redelivery, a retry, two workers racing for
the same message) never runs the same agreement report, training run, scoring job or prior
rebuild twice, and never overwrites a finished row."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import numpy as np
import pytest
from django.db import connections
from django.db.models.query import QuerySet
from django.utils import translation

from annotation.agreement import mathematics as agreement_mathematics
from annotation.importing.services import import_posts
from annotation.models import AgreementReport, Post
from annotation.tasks import agreement_bootstrap_task
from calibration import services as calibration_services
from calibration.models import PriorSnapshot, RebuildRequest
from modeling import services as modeling_services
from modeling.maam.train import DimensionModel
from modeling.models import Prediction, ScoringJob, TrainingRun
from tests.modeling.conftest import labelled_release  # noqa: F401  (fixture)

LABELLED = "Sentences,Explicit,Implicit,Emotional\n" + "".join(
    f"第{i}条帖子{'真恶心' if i % 2 else '支持平等'},{1 + i % 5},{1 + (i + 1) % 5},{1 + (i + 2) % 5}\n" for i in range(12))


class CountingModel:
    """Stands in for a trained MAAM model (the baseline variant: no Astigmatism fusion) with MAAMModel's
    interface - per-dimension models in `dims`, and predict's per-dimension before / after / steps / states /
    labels - and counts how often a job predicts with it."""

    calls = 0
    lock = threading.Lock()
    DIMS = ("explicit", "implicit", "emotional")

    def __init__(self):
        self.dims = {d: DimensionModel(backbone=None) for d in self.DIMS}  # no fusion, like a baseline run

    @classmethod
    def load(cls, path):
        return cls()

    def predict(self, texts, tags=None, progress=None):
        with CountingModel.lock:
            CountingModel.calls += 1
        probs = np.full((len(texts), 5), 0.2)
        labels = probs.argmax(axis=1) + 1  # MAAMModel.predict's contract: decoded labels beside the probabilities
        return {d: {"before": probs, "after": probs, "steps": [], "states": None, "labels": labels} for d in self.dims}


@pytest.fixture
def counting_model(monkeypatch):
    CountingModel.calls = 0
    monkeypatch.setattr("modeling.maam.train.MAAMModel", CountingModel)
    return CountingModel


def scoring_job() -> ScoringJob:
    import_posts(LABELLED.encode(), with_labels=True)
    run = TrainingRun.objects.create(launch_group="g", variant="baseline", dimensions=["explicit", "implicit", "emotional"],
                                     status="succeeded", artifact_path="/nowhere")
    return ScoringJob.objects.create(run=run)


# --------------------------------------------------------------------------- one delivery after another


@pytest.mark.django_db
def test_agreement_report_delivered_again_after_it_finished_is_not_recomputed(make_annotators, make_batch):
    report = AgreementReport.objects.create(bootstrap=20)
    agreement_bootstrap_task(report.pk)
    report.refresh_from_db()
    assert report.status == "succeeded" and report.payload is not None
    finished_at, payload = report.finished_at, report.payload

    agreement_bootstrap_task(report.pk)  # the broker redelivers the message
    report.refresh_from_db()
    assert report.status == "succeeded"
    assert report.finished_at == finished_at and report.payload == payload


@pytest.mark.django_db
def test_agreement_report_delivered_while_running_is_refused():
    report = AgreementReport.objects.create(bootstrap=20, status="running")
    agreement_bootstrap_task(report.pk)  # a second worker got the message the first is working on
    report.refresh_from_db()
    assert report.status == "running" and report.payload is None and report.finished_at is None


@pytest.mark.django_db
def test_failed_agreement_report_is_never_overwritten():
    report = AgreementReport.objects.create(bootstrap=20, status="failed", error="worker lost")
    agreement_bootstrap_task(report.pk)
    report.refresh_from_db()
    assert report.status == "failed" and report.error == "worker lost" and report.payload is None


@pytest.mark.django_db
def test_scoring_job_delivered_again_does_not_score_again(counting_model):
    job = scoring_job()
    modeling_services.scoring_job_execute(job_id=job.pk)
    modeling_services.scoring_job_execute(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded" and counting_model.calls == 1
    assert Prediction.objects.count() == Post.objects.count()


@pytest.mark.django_db
def test_scoring_job_delivered_while_running_is_refused(counting_model):
    job = scoring_job()
    ScoringJob.objects.filter(pk=job.pk).update(status="running")
    modeling_services.scoring_job_execute(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "running" and counting_model.calls == 0 and not Prediction.objects.exists()


@pytest.mark.django_db
def test_prior_rebuild_delivered_again_builds_one_snapshot():
    import_posts(LABELLED.encode(), with_labels=True)
    request = RebuildRequest.objects.create()
    calibration_services.rebuild_execute(request_id=request.pk)
    calibration_services.rebuild_execute(request_id=request.pk)
    request.refresh_from_db()
    assert request.status == "succeeded" and PriorSnapshot.objects.count() == 1


# --------------------------------------------------------------------------- two deliveries at once


def race(model, deliver, n: int = 2) -> None:
    """Run `deliver` in n threads, holding each thread's first UPDATE of `model` until all n have
    reached theirs: every delivery has read the row as queued before any of them moves it on."""
    barrier = threading.Barrier(n, timeout=10)
    local = threading.local()
    original = QuerySet.update

    def held_update(self, **kwargs):
        if self.model is model and not getattr(local, "held", False):
            local.held = True
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                pass
        return original(self, **kwargs)

    def worker():
        try:
            deliver()
        finally:
            connections.close_all()

    with mock.patch.object(QuerySet, "update", held_update), ThreadPoolExecutor(max_workers=n) as pool:
        for future in [pool.submit(worker) for _ in range(n)]:
            future.result()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_scoring_job_score_once(require_postgres, counting_model):
    job = scoring_job()
    race(ScoringJob, lambda: modeling_services.scoring_job_execute(job_id=job.pk))
    job.refresh_from_db()
    assert job.status == "succeeded" and counting_model.calls == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_agreement_report_compute_once(require_postgres, make_annotators):
    report = AgreementReport.objects.create(bootstrap=20)
    with mock.patch.object(agreement_mathematics, "bootstrap_interval", wraps=agreement_mathematics.bootstrap_interval) as spy:
        race(AgreementReport, lambda: agreement_bootstrap_task(report.pk))
    report.refresh_from_db()
    assert report.status == "succeeded"
    assert spy.call_count == 9  # 3 dimensions x 3 levels, computed once


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_rebuild_build_one_snapshot(require_postgres):
    import_posts(LABELLED.encode(), with_labels=True)
    request = RebuildRequest.objects.create()
    race(RebuildRequest, lambda: calibration_services.rebuild_execute(request_id=request.pk))
    request.refresh_from_db()
    assert request.status == "succeeded" and PriorSnapshot.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_training_run_train_once(require_postgres, labelled_release, monkeypatch):  # noqa: F811
    from modeling.maam import train as maam_train

    calls = []
    real_train = maam_train.train

    def counting_train(*args, **kwargs):
        calls.append(1)
        return real_train(*args, **kwargs)

    monkeypatch.setattr(maam_train, "train", counting_train)
    run = TrainingRun.objects.create(launch_group="g", release=labelled_release, variant="baseline",
                                     dimensions=["explicit"], seed=0)
    race(TrainingRun, lambda: modeling_services.training_run_execute(run_id=run.pk))
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert len(calls) == 1


# --------------------------------------------------------------------------- the guarded run itself


@pytest.mark.django_db
def test_a_transient_error_puts_the_job_back_for_the_retry_and_a_real_error_fails_it():
    from django.db import OperationalError

    from core.jobs import job_run

    report = AgreementReport.objects.create(bootstrap=20)
    attempts = []

    def flaky(row):
        attempts.append(row.status)
        if len(attempts) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return {"payload": {"ok": True}}

    with pytest.raises(OperationalError):
        job_run(AgreementReport, report.pk, flaky, retry_on=(OperationalError,))
    report.refresh_from_db()
    assert report.status == "queued" and report.finished_at is None
    assert job_run(AgreementReport, report.pk, flaky, retry_on=(OperationalError,)).status == "succeeded"
    assert attempts == ["running", "running"]

    broken = AgreementReport.objects.create(bootstrap=20)
    with pytest.raises(ZeroDivisionError):
        job_run(AgreementReport, broken.pk, lambda row: 1 / 0, retry_on=(OperationalError,))
    broken.refresh_from_db()
    assert broken.status == "failed" and "ZeroDivisionError" in broken.error and broken.finished_at


@pytest.mark.django_db
def test_a_job_cancelled_while_it_works_stores_nothing(counting_model):
    from core.jobs import job_cancel

    job = scoring_job()
    real_predict = CountingModel.predict

    def cancelled_meanwhile(self, texts, tags=None, progress=None):
        job_cancel(ScoringJob, job.pk)  # a researcher cancels while the model predicts
        return real_predict(self, texts, tags, progress)

    with mock.patch.object(CountingModel, "predict", cancelled_meanwhile):
        modeling_services.scoring_job_execute(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == "cancelled" and job.scored == 0 and not Prediction.objects.exists()


@pytest.mark.django_db
def test_a_job_whose_worker_is_told_to_stop_fails_with_a_reason_a_person_can_read():
    """Stopping `make run` sends SIGTERM to the worker's processes; the job running there then sees a
    SystemExit. The row says it was interrupted (not 'SystemExit: -15'), and propagates the exit."""
    from core.jobs import INTERRUPTED_BY_RESTART, job_run

    for exc in (SystemExit(-15), KeyboardInterrupt()):
        report = AgreementReport.objects.create(bootstrap=20)

        def stopped(row, exc=exc):
            raise exc

        with pytest.raises(type(exc)):
            job_run(AgreementReport, report.pk, stopped)
        report.refresh_from_db()
        assert report.status == "failed" and report.error == INTERRUPTED_BY_RESTART and report.finished_at


@pytest.mark.django_db
def test_the_run_page_shows_the_stored_reason_and_the_log_in_the_readers_language(client, make_user):
    from core.jobs import INTERRUPTED_BY_RESTART

    client.force_login(make_user("res", role="researcher"))
    run = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"], status="failed",
                                     error=INTERRUPTED_BY_RESTART, log_tail="parsing\nweighting\nepoch 1: 0.25")
    page = client.get(f"/runs/{run.pk}/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    with translation.override("zh-hans"):
        reason = translation.gettext(INTERRUPTED_BY_RESTART)  # tests/core/test_translations.py: it has one
    assert reason in page and "parsing" not in page and "weighting" not in page
    assert "epoch 1: 0.25" in page  # a line the catalogue does not know stays as logged
    page = client.get(f"/runs/{run.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert INTERRUPTED_BY_RESTART in page and "parsing\nweighting\nepoch 1: 0.25" in page


def test_every_job_row_names_a_registered_task_so_a_restart_can_send_it_again():
    """jobs_recover_after_restart re-sends queued rows by their model's task_name: a job kind without
    one (or with a name no task has) would stay queued forever after a restart of `make run`."""
    from django.apps import apps

    from chlgbt_site.celery import app
    from core.jobs import Job

    app.loader.import_default_modules()
    kinds = [model for model in apps.get_models() if issubclass(model, Job)]
    assert len(kinds) >= 5
    assert [m.__name__ for m in kinds if m.task_name not in app.tasks] == []
