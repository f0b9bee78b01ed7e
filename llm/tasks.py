"""The Celery task of an LLM run: on the default queue (it waits on HTTP; settings CELERY_TASK_ROUTES),
or on the gpu queue for a local checkpoint (llm/services.py sends it there). Takes the run's id;
the service runs it once (core.jobs), so a redelivered message does nothing."""
from __future__ import annotations

from celery import Task, shared_task

from core.jobs import TRANSIENT_ERRORS, failure_reason

from . import services


class LLMRunTask(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        services.llm_run_fail(run_id=args[0], reason=failure_reason(exc))


@shared_task(base=LLMRunTask, bind=True, acks_late=True, reject_on_worker_lost=True, autoretry_for=TRANSIENT_ERRORS,
             retry_backoff=5, retry_jitter=True, max_retries=3, soft_time_limit=12 * 3600, time_limit=12 * 3600 + 300)
def run_llm_baseline(self, run_id: int) -> str:
    return services.llm_run_execute(run_id=run_id).status
