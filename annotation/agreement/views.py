"""The agreement dashboard (researchers) and its background bootstrap intervals."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.errors import QueueUnavailable
from core.permissions import Role, require_role

from ..models import DIMENSIONS, AgreementReport, Dimension
from . import figures
from .forms import BootstrapForm
from .selectors import dashboard_report, interval_report_pending
from .services import agreement_report_request


def figure_text() -> figures.FigureText:
    """The dashboard figures' words in the active language (the figures module stays Django-free)."""
    return figures.FigureText(
        alpha_title=_("Krippendorff's alpha per dimension"), pairs_title=_("Pairwise ordinal α — %(dimension)s"),
        severity_title=_("Rater severity (mean offset from the others)"),
        distribution_title=_("Score distribution (all judgments)"),
        trend_title=_("Ordinal α as batches complete (cumulative)"),
        levels={"ordinal": _("ordinal"), "interval": _("interval"), "nominal": _("nominal")},
        dimensions={d.value: str(d.label) for d in Dimension})


def dashboard_figures(report: AgreementReport) -> dict:
    """The report's figures in the reader's language, built once per report and language."""
    key = f"agreement-figures:{report.pk}:{get_language()}"
    try:
        built = cache.get(key)
    except Exception:  # the cache (Redis) is down: build them, do not fail the page
        built = None
    if built is None:
        built = figures.dashboard(report.payload, figure_text())
        try:
            cache.set(key, built, 3600)
        except Exception:
            pass
    return built


@login_required
def agreement_dashboard(request):
    """Bounded work: reads the newest computed report (a background job computes α) and its figures."""
    require_role(request, Role.RESEARCHER)
    latest = dashboard_report()
    return render(request, "annotation/agreement.html", {
        "report": latest.payload if latest else None, "figures": dashboard_figures(latest) if latest else {},
        "cached": latest, "pending": interval_report_pending(), "dims": DIMENSIONS})


@login_required
@require_POST
def agreement_bootstrap(request):
    require_role(request, Role.RESEARCHER)
    try:
        agreement_report_request(bootstrap=BootstrapForm(request.POST).resamples())
    except QueueUnavailable as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Bootstrap intervals are being computed; reload in a moment."))
    return redirect("review:agreement")
