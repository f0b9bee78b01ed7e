"""Background work for the annotation app. Tasks take ids and call services."""
from __future__ import annotations

from celery import shared_task

from .agreement.services import agreement_report_compute


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
def agreement_bootstrap_task(report_id: int) -> str:
    return agreement_report_compute(report_id=report_id).status
