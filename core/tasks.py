"""Periodic work every app's jobs share (celery beat, on the `default` queue)."""
from __future__ import annotations

from celery import shared_task

from .jobs import jobs_fail_lost


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def fail_lost_jobs() -> dict[str, int]:
    """Every JOB_CHECK_SECONDS: running jobs of any kind whose worker died are failed with the reason."""
    return jobs_fail_lost()
