"""Researchers' personal-data report: per batch, what the rules found at import (counts per kind,
posts affected), the masked texts of affected posts, and whether names were looked for at all."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render

from annotation.models import Batch
from core.permissions import Role, require_role

from .services import personal_data_overview, personal_data_report, recogniser_name


@login_required
def overview(request):
    require_role(request, Role.RESEARCHER)
    return render(request, "publication/personal_data_overview.html",
                  {"rows": personal_data_overview(), "recogniser": recogniser_name()})


@login_required
def batch_report(request, batch_id: int | None = None):
    require_role(request, Role.RESEARCHER)
    batch = get_object_or_404(Batch, pk=batch_id) if batch_id is not None else None
    return render(request, "publication/personal_data_report.html",
                  {"report": personal_data_report(batch=batch), "recogniser": recogniser_name()})
