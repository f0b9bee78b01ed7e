"""Every job kind recovers: the heartbeat keeps a working job's row alive however long it goes
without progress, the lost-job check fails only rows whose heartbeat stopped (or that outlived their
task's time limit) and never a finished one, and a job's outputs exist only with its success."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone, translation

from annotation.importing.services import import_posts
from annotation.importing.models import PostImport
from annotation.models import AgreementReport, AggregationRun, Release
from calibration import services as calibration_services
from calibration.models import PriorSnapshot, RebuildRequest
from core.jobs import (
    TIME_LIMIT_EXCEEDED,
    WORKER_LOST,
    Heartbeat,
    job_cancel,
    job_max_run_seconds,
    job_models,
    job_run,
    jobs_fail_lost,
)
from llm.models import LLMRun, PromptTemplate
from llm.prompts import PAPER_PROMPT, PAPER_TEMPLATE_NAME
from modeling.models import ScoringJob, TrainingRun

LABELLED = "Sentences,Explicit,Implicit,Emotional\n" + "".join(
    f"第{i}条帖子{'真恶心' if i % 2 else '支持平等'},{1 + i % 5},{1 + (i + 1) % 5},{1 + (i + 2) % 5}\n" for i in range(12))


def one_of_each() -> list:
    """One row of every job kind there is (a new kind must be added here: the check below says so)."""
    run = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"])
    release, _ = Release.objects.get_or_create(number=1, defaults={
        "content_hash": "0" * 64, "directory": "", "manifest": {}, "summary": {}, "diff": {}})
    # The paper's prompt, seeded by migration.
    template, _ = PromptTemplate.objects.get_or_create(name=PAPER_TEMPLATE_NAME, version=1, defaults={"text": PAPER_PROMPT})
    rows = [AgreementReport.objects.create(), AggregationRun.objects.create(), RebuildRequest.objects.create(), run,
            ScoringJob.objects.create(run=run), PostImport.objects.create(filename="posts.csv"),
            LLMRun.objects.create(release=release, template=template, template_text=template.text,
                                  endpoint="http://127.0.0.1:9/v1", model_name="qwen3-max")]
    assert {type(row) for row in rows} == set(job_models()), "one_of_each() must make a row of every job kind"
    return rows


def test_every_job_kind_is_checked():
    assert {m._meta.label for m in job_models()} >= {"annotation.AgreementReport", "annotation.AggregationRun",
                                                     "annotation.PostImport", "calibration.RebuildRequest",
                                                     "modeling.TrainingRun", "modeling.ScoringJob", "llm.LLMRun"}
    # the hard bound follows each task's own time limit
    assert job_max_run_seconds(TrainingRun) > 6 * 3600 > job_max_run_seconds(ScoringJob) > job_max_run_seconds(AgreementReport)


@pytest.mark.django_db
def test_the_check_fails_silent_jobs_of_every_kind_and_nothing_else():
    now = timezone.now()
    silent, alive, finished, overdue = one_of_each(), one_of_each(), one_of_each(), one_of_each()
    for rows, fields in ((silent, {"status": "running", "started_at": now, "heartbeat_at": now - timedelta(minutes=5)}),
                         (alive, {"status": "running", "started_at": now - timedelta(minutes=5), "heartbeat_at": now}),
                         (finished, {"status": "succeeded", "heartbeat_at": now - timedelta(hours=9)}),
                         (overdue, {"status": "running", "heartbeat_at": now})):
        for row in rows:
            type(row).objects.filter(pk=row.pk).update(**fields)
    for row in overdue:
        type(row).objects.filter(pk=row.pk).update(started_at=now - timedelta(seconds=job_max_run_seconds(type(row)) + 60))

    counts = jobs_fail_lost(stale_seconds=120)
    assert counts == {m._meta.label: 2 for m in job_models()}  # per kind: the silent one and the overdue one
    for row in silent:
        row.refresh_from_db()
        assert (row.status, row.error) == ("failed", WORKER_LOST) and row.finished_at
    for row in overdue:
        row.refresh_from_db()
        assert (row.status, row.error) == ("failed", TIME_LIMIT_EXCEEDED)
    for row in alive:
        row.refresh_from_db()
        assert row.status == "running"
    for row in finished:
        row.refresh_from_db()
        assert row.status == "succeeded" and row.error == ""
    with translation.override("zh-hans"):
        assert translation.gettext(WORKER_LOST) != WORKER_LOST


@pytest.mark.django_db
def test_a_row_from_before_heartbeats_is_judged_by_its_last_update():
    report = AgreementReport.objects.create()
    AgreementReport.objects.filter(pk=report.pk).update(status="running", heartbeat_at=None,
                                                        updated_at=timezone.now() - timedelta(minutes=10))
    assert jobs_fail_lost(stale_seconds=120)["annotation.AgreementReport"] == 1


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_beats_while_the_work_reports_nothing():
    report = AgreementReport.objects.create()
    beats = []

    def quiet_work(row):
        # Long, silent work: only the heartbeat thread touches the row meanwhile.
        first = AgreementReport.objects.get(pk=row.pk).heartbeat_at
        deadline = threading.Event()
        for _ in range(100):
            deadline.wait(0.1)
            latest = AgreementReport.objects.get(pk=row.pk).heartbeat_at
            if latest > first:
                beats.append(latest)
                break
        return {"payload": {}}

    original = Heartbeat.__init__

    def fast(self, model, job_id, *, every=None):
        original(self, model, job_id, every=0.2)

    Heartbeat.__init__ = fast
    try:
        job_run(AgreementReport, report.pk, quiet_work)
    finally:
        Heartbeat.__init__ = original
    report.refresh_from_db()
    assert beats and report.status == "succeeded"
    assert not [t for t in threading.enumerate() if t.name.startswith("heartbeat")]  # the thread ended with the job


@pytest.mark.django_db
def test_a_prior_rebuild_stores_its_snapshot_only_with_its_success(monkeypatch):
    import_posts(LABELLED.encode(), with_labels=True)
    request = RebuildRequest.objects.create()
    build = calibration_services.prior_snapshot_build

    def cancelled_meanwhile(**kwargs):
        snapshot = build(**kwargs)
        job_cancel(RebuildRequest, request.pk)  # a researcher cancels (or the check fails it) before the end
        return snapshot

    monkeypatch.setattr(calibration_services, "prior_snapshot_build", cancelled_meanwhile)
    calibration_services.rebuild_execute(request_id=request.pk)
    request.refresh_from_db()
    assert request.status == "cancelled" and request.snapshot is None and not PriorSnapshot.objects.exists()

    monkeypatch.setattr(calibration_services, "prior_snapshot_build", build)
    second = RebuildRequest.objects.create()
    calibration_services.rebuild_execute(request_id=second.pk)
    second.refresh_from_db()
    assert second.status == "succeeded" and second.snapshot == PriorSnapshot.objects.get()
