"""The agreement dashboard (researchers) and its background bootstrap intervals."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.errors import QueueUnavailable
from core.permissions import Role, require_role

from ..models import DIMENSIONS
from . import figures
from .forms import BootstrapForm
from .selectors import dashboard_report, interval_report_latest, interval_report_pending
from .services import agreement_report_request


@login_required
def agreement_dashboard(request):
    require_role(request, Role.RESEARCHER)
    report = dashboard_report()
    return render(request, "annotation/agreement.html", {
        "report": report, "figures": figures.dashboard(report), "cached": interval_report_latest(),
        "pending": interval_report_pending(), "dims": DIMENSIONS})


@login_required
@require_POST
def agreement_bootstrap(request):
    require_role(request, Role.RESEARCHER)
    try:
        agreement_report_request(bootstrap=BootstrapForm(request.POST).resamples())
    except QueueUnavailable as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Bootstrap intervals are being computed; reload in a moment.")
    return redirect("review:agreement")
