"""Run list with live progress, run page, and the Table 2 comparison view."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.converters import parse_id
from core.errors import DomainError
from core.permissions import Role, require_role

from . import selectors, services
from .models import TrainingRun, Variant


@login_required
def runs(request):
    require_role(request, Role.RESEARCHER)
    qs = TrainingRun.objects.select_related("release", "created_by")
    if request.GET.get("group"):
        qs = qs.filter(launch_group=request.GET["group"])
    return render(request, "modeling/runs.html", {"runs": qs[:200], "group": request.GET.get("group", "")})


@login_required
def run_detail(request, run_id: int):
    require_role(request, Role.RESEARCHER)
    run = TrainingRun.objects.filter(pk=run_id).select_related("release").first()
    if run is None:
        raise Http404(_("No such run."))
    return render(request, "modeling/run.html", {"run": run})


@login_required
@require_POST
def run_action(request, run_id: int, action: str):
    require_role(request, Role.RESEARCHER)
    try:
        if action == "cancel":
            services.training_run_cancel(run_id=run_id)
            messages.success(request, _("Run %(id)s cancelled.") % {"id": run_id})
        elif action == "rerun":
            new = services.training_run_rerun(run_id=run_id, created_by=request.user)
            messages.success(request, _("Run %(id)s launched.") % {"id": new.pk})
            return redirect("modeling:run", new.pk)
        else:
            raise Http404(_("Unknown action."))
    except DomainError as exc:
        messages.error(request, str(exc))
    return redirect("modeling:run", run_id)


@login_required
def compare(request):
    require_role(request, Role.RESEARCHER)
    ids = [i for i in (parse_id(x) for x in request.GET.get("ids", "").split(",")) if i]
    group = request.GET.get("group")
    qs = TrainingRun.objects.filter(pk__in=ids) if ids else TrainingRun.objects.filter(launch_group=group) if group else None
    if qs is None:
        latest = TrainingRun.objects.filter(status="succeeded").first()
        qs = TrainingRun.objects.filter(launch_group=latest.launch_group) if latest else TrainingRun.objects.none()
    table = selectors.comparison_table(list(qs))
    rows = []
    for row in table["rows"]:
        cells = []
        for d in table["dims"]:
            for metric in ("accuracy", "macro_f1"):
                cells.append(row["cells"].get((d, metric)))
        brier = [row["cells"][(d, "brier")]["mean"] for d in table["dims"] if (d, "brier") in row["cells"]]
        ece = [row["cells"][(d, "ece")]["mean"] for d in table["dims"] if (d, "ece") in row["cells"]]
        rows.append({"variant": Variant(row["variant"]).label, "cells": cells, "seeds": row["seeds"],
                     "brier": sum(brier) / len(brier) if brier else None, "ece": sum(ece) / len(ece) if ece else None})
    return render(request, "modeling/compare.html", {"dims": table["dims"], "rows": rows, "runs": list(qs)})
