"""Background work for the annotation app. Tasks take ids and call services."""
from __future__ import annotations

from celery import shared_task

from .agreement.services import agreement_report_compute


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
def agreement_bootstrap_task(report_id: int) -> str:
    return agreement_report_compute(report_id=report_id).status


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
def aggregation_task(run_id: int) -> str:
    from .quality.services import aggregation_compute

    return aggregation_compute(run_id=run_id).status


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
def quality_refresh_task() -> str:
    """Beat: keep the quality panel's report and the aggregate current while annotation goes on."""
    from .quality.services import quality_refresh

    run = quality_refresh()
    return run.status if run else "current"


@shared_task(acks_late=True, soft_time_limit=1800, time_limit=1900)
def post_import_task(job_id: int) -> str:
    """A post import too large for the upload request (annotation/importing/background.py)."""
    from .importing.background import post_import_run
    from .importing.parsers import ImportFailed

    try:
        return post_import_run(job_id).status
    except ImportFailed:
        return "failed"  # recorded on the row with its problems
