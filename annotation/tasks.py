"""Background work for the annotation app. Tasks take ids and call services."""
from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from .agreement import agreement_report
from .models import AgreementReport


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660)
def agreement_bootstrap_task(report_id: int) -> None:
    report = AgreementReport.objects.get(pk=report_id)
    AgreementReport.objects.filter(pk=report_id).update(status=AgreementReport.Status.RUNNING)
    try:
        payload = agreement_report(bootstrap=report.bootstrap)
    except Exception as exc:
        AgreementReport.objects.filter(pk=report_id).update(status=AgreementReport.Status.FAILED, error=str(exc)[:2000],
                                                            finished_at=timezone.now())
        raise
    AgreementReport.objects.filter(pk=report_id).update(status=AgreementReport.Status.SUCCEEDED, payload=payload,
                                                        finished_at=timezone.now())
