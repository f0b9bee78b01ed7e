"""Bootstrap-interval reports: requested from the dashboard, computed once by a background job."""
from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import QueueUnavailable
from core.jobs import job_fail, job_run

from ..models import AgreementReport
from .selectors import agreement_report


def agreement_report_request(*, bootstrap: int) -> AgreementReport:
    """Queue a report with `bootstrap` resamples. QueueUnavailable when the broker is down (the row
    is then marked failed with the reason)."""
    from ..tasks import agreement_bootstrap_task

    report = AgreementReport.objects.create(bootstrap=bootstrap)
    try:
        transaction.on_commit(lambda: agreement_bootstrap_task.delay(report.pk))
    except Exception as exc:  # broker down (eager callbacks run right here outside a transaction)
        job_fail(AgreementReport, report.pk, reason=f"The task queue is unavailable: {exc}")
        raise QueueUnavailable(_("The task queue is unavailable; try again when Redis is back.")) from exc
    return report


def agreement_report_compute(*, report_id: int) -> AgreementReport:
    """Compute a queued report with its bootstrap intervals, once (a redelivered task does nothing)."""
    return job_run(AgreementReport, report_id, lambda report: {"payload": agreement_report(bootstrap=report.bootstrap)})
