"""Wellbeing pages: a batch's content notice (annotators accept it before their first post) and the
researchers' exposure page."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation.assignment import selectors as assignment_selectors
from core.errors import NotFound
from core.permissions import Role, require_role

from . import figures, selectors, services

DAYS_CHOICES = (7, 30, 90)


@login_required
@require_http_methods(["GET", "POST"])
def notice(request, batch_id: int):
    require_role(request, Role.ANNOTATOR)
    try:
        batch = assignment_selectors.batch_for_annotator(request.user, batch_id)
    except NotFound:
        raise Http404(_("No such batch in your queue."))
    row = selectors.batch_wellbeing(batch.pk)
    if row.pk is None:
        return redirect("annotation:annotate", batch.pk)  # no notice for this batch
    if request.method == "POST":
        services.notice_accept(annotator=request.user, batch_id=batch.pk)
        return redirect("annotation:annotate", batch.pk)
    accepted = row.batch.notice_acceptances.filter(annotator=request.user).first()
    return render(request, "wellbeing/notice.html", {"batch": batch, "notice": row.notice(), "accepted": accepted,
                                                     "resources": row.resources_url})


@login_required
def exposure(request):
    require_role(request, Role.RESEARCHER)
    try:
        days = int(request.GET.get("days", 30))
    except ValueError:
        days = 30
    days = days if days in DAYS_CHOICES else 30
    rows = selectors.exposure(days=days)
    totals: dict[str, dict] = {}
    for row in rows:
        total = totals.setdefault(row.username, {"username": row.username, "annotator_id": row.annotator_id,
                                                 "posts": 0, "high": 0, "set_aside": 0, "days": 0, "max_day": 0})
        total["posts"] += row.posts
        total["high"] += row.high_intensity
        total["set_aside"] += row.set_aside
        total["days"] += 1 if row.posts else 0
        total["max_day"] = max(total["max_day"], row.posts)
    return render(request, "wellbeing/exposure.html", {
        "rows": rows, "totals": sorted(totals.values(), key=lambda t: -t["high"]), "days": days,
        "days_choices": DAYS_CHOICES, "figures": figures.exposure(rows) if rows else {},
        "threshold": selectors.HIGH_INTENSITY, "without_notice": selectors.batches_without_notice()})
