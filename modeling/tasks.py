"""Celery tasks on the `gpu` queue: take ids, call services, retry only transient errors. The
services run each job once (core.jobs), so a redelivered message does nothing."""
from __future__ import annotations

from celery import Task, shared_task

from core.jobs import TRANSIENT_ERRORS, failure_reason

from . import services


class RunTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        services.training_run_fail(run_id=args[0], reason=failure_reason(exc))


class ScoringTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        services.scoring_job_fail(job_id=args[0], reason=failure_reason(exc))


@shared_task(base=RunTask, bind=True, acks_late=True, reject_on_worker_lost=True, autoretry_for=TRANSIENT_ERRORS,
             retry_backoff=5, retry_jitter=True, max_retries=3, soft_time_limit=6 * 3600, time_limit=6 * 3600 + 300)
def run_training(self, run_id: int) -> str:
    return services.training_run_execute(run_id=run_id).status


@shared_task(base=ScoringTask, bind=True, acks_late=True, reject_on_worker_lost=True, autoretry_for=TRANSIENT_ERRORS,
             retry_backoff=5, retry_jitter=True, max_retries=3, soft_time_limit=3600, time_limit=3900)
def run_scoring(self, job_id: int) -> str:
    return services.scoring_job_execute(job_id=job_id).status
