"""Quality pages: the researchers' panel (annotators ranked, alerts, plots), one annotator's figures
and recent judgments, gold items, qualification resets and aggregation runs; the annotator's
qualification round."""
from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.errors import DomainError, NotFound, QueueUnavailable
from core.permissions import Role, require_role
from wellbeing import selectors as wellbeing

from ..assignment.selectors import batch_for_annotator
from ..visibility import ensure_gold_visible, gold_hidden_from, qualification_gold_withheld, report_visible_to
from ..models import DIMENSIONS
from . import figures, selectors, services
from .forms import (
    GoldFromAdjudicatedForm,
    GoldFromReleaseForm,
    GoldUploadForm,
    QualificationForm,
    QualificationResetForm,
    score_field_name,
)

JUDGMENTS_SHOWN = 200
GOLD_SHOWN = 500


def _epoch(value: str | None) -> float | None:
    try:
        number = float(value) if value else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) and 0 <= number < 1e11 else None


@login_required
def panel(request):
    require_role(request, Role.RESEARCHER)
    stored = selectors.report_latest()  # computed by the newest quality run: the page computes nothing
    report = report_visible_to(request.user, stored.report if stored else None)
    latest = selectors.aggregation_latest()
    return render(request, "annotation/quality/panel.html", {
        "report": report, "stored": stored, "figures": figures.overview(report) if report else {}, "dims": DIMENSIONS,
        "aggregation": latest, "aggregation_current": selectors.aggregation_is_current(latest),
        "aggregation_pending": selectors.aggregation_pending()})


@login_required
def annotator(request, annotator_id: int):
    require_role(request, Role.RESEARCHER)
    user = get_user_model().objects.filter(pk=annotator_id).first()
    if user is None:
        raise Http404("No such annotator.")
    stored = selectors.report_latest()
    report = report_visible_to(request.user, stored.report if stored else None)
    row = selectors.annotator_row(report, annotator_id) if report else None
    since, until = _epoch(request.GET.get("since")), _epoch(request.GET.get("until"))
    return render(request, "annotation/quality/annotator.html", {
        "person": user, "row": row, "stored": stored, "withheld": (report or {}).get("withheld"),
        "figures": figures.annotator(report, annotator_id) if row else {}, "dims": DIMENSIONS,
        "since": since, "until": until,
        "judgments": selectors.annotator_judgments(viewer=request.user, annotator_id=annotator_id, since=since,
                                                   until=until, limit=JUDGMENTS_SHOWN),
        "show_gold": not gold_hidden_from(request.user),
        "attempts": list(selectors.qualification_attempts(annotator_id=annotator_id).prefetch_related(
            "answers__gold_item__post"))})


@login_required
@require_POST
def qualification_reset(request):
    require_role(request, Role.RESEARCHER)
    form = QualificationResetForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a batch and an annotator."))
        return redirect("review:quality")
    annotator_id = form.cleaned_data["annotator"]
    try:
        services.qualification_reset(batch_id=form.cleaned_data["batch"], annotator_id=annotator_id,
                                     reset_by=request.user)
    except DomainError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Reset: the annotator may try the qualification again."))
    return redirect("review:quality-annotator", annotator_id)


@login_required
@require_POST
def aggregation_request(request):
    require_role(request, Role.RESEARCHER)
    try:
        services.aggregation_request(requested_by=request.user)
    except QueueUnavailable as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("The figures and the model-based aggregation are being computed in the background; "
                                    "reload in a moment."))
    return redirect("review:quality")


@login_required
def gold(request):
    """Gold items, and the three ways to mark them."""
    require_role(request, Role.RESEARCHER)
    ensure_gold_visible(request.user)
    forms = {"adjudicated": GoldFromAdjudicatedForm(prefix="adj"), "release": GoldFromReleaseForm(prefix="rel"),
             "upload": GoldUploadForm(prefix="up")}
    problems = []
    if request.method == "POST":
        source = request.POST.get("source")
        try:
            if source == "adjudicated":
                form = forms["adjudicated"] = GoldFromAdjudicatedForm(request.POST, prefix="adj")
                made = services.gold_mark_from_adjudicated(post_ids=form.post_ids(), created_by=request.user) \
                    if form.is_valid() else None
            elif source == "release":
                form = forms["release"] = GoldFromReleaseForm(request.POST, prefix="rel")
                made = services.gold_mark_from_release(**form.options(), created_by=request.user) \
                    if form.is_valid() else None
            elif source == "upload":
                form = forms["upload"] = GoldUploadForm(request.POST, request.FILES, prefix="up")
                made = None
                if form.is_valid():
                    upload = form.cleaned_data["file"]
                    made = services.gold_upload(data=upload.read(), filename=upload.name, created_by=request.user)
            else:
                made = None
                messages.error(request, _("Choose where the gold labels come from."))
        except NotFound as exc:
            messages.error(request, str(exc))
        except DomainError as exc:
            messages.error(request, str(exc))
        except services.ImportFailed as exc:
            problems = exc.problems
            messages.error(request, _("Nothing was marked: %(n)d problem(s) in the file.") % {"n": len(problems)})
        else:
            if made is not None:
                messages.success(request, _("%(n)d gold item(s) added.") % {"n": len(made)})
                return redirect("review:quality-gold")
    items = list(selectors.gold_items()[:GOLD_SHOWN])
    return render(request, "annotation/quality/gold.html", {"items": items, "forms": forms, "problems": problems,
                                                             "dims": DIMENSIONS})


@login_required
def qualification(request, batch_id: int):
    """The annotator's qualification round: score the fixed set; pass -> the queue opens; fail ->
    their scores beside the gold labels and the rubric, and a retry once a researcher resets it."""
    require_role(request, Role.ANNOTATOR)
    try:
        batch = batch_for_annotator(request.user, batch_id)
    except NotFound:
        raise Http404("No such batch in your queue.")
    if wellbeing.notice_pending(annotator=request.user, batch_id=batch.pk):
        return redirect("wellbeing:notice", batch.pk)  # its posts come after the batch's content notice
    state = selectors.qualification_state(annotator=request.user, batch=batch)
    if not state.required:
        return redirect("annotation:annotate", batch.pk)
    items = list(selectors.qualification_items(state.quality))
    form = QualificationForm(request.POST or None, items=items)
    if request.method == "POST":
        if form.is_valid():
            try:
                attempt = services.qualification_submit(annotator=request.user, batch_id=batch.pk,
                                                        answers=form.answers())
            except DomainError as exc:
                messages.error(request, str(exc))
            else:
                if attempt.passed:
                    messages.success(request, _("You passed the qualification: your queue is open."))
                    return redirect("annotation:annotate", batch.pk)
                messages.error(request, _("Not passed this time. Compare your scores with the gold labels below."))
            return redirect("annotation:qualification", batch.pk)
        messages.error(request, _("Score every post on all three dimensions."))
    from ..selectors import guideline_current

    latest = state.attempts[-1] if state.attempts else None
    review = None
    if latest is not None and state.awaiting_reset:  # never beside a new attempt (visibility rule 3)
        withheld = qualification_gold_withheld(request.user)
        answers = {a.gold_item.post_id: a for a in latest.answers.select_related("gold_item__post")}
        review = [{"post": a.gold_item.post, "mine": a.scores(),
                   "gold": None if a.gold_item_id in withheld else a.gold} for a in answers.values()]
    rows = [{"item": item, "fields": [(d, form[score_field_name(item.post_id, d)]) for d in DIMENSIONS]}
            for item in items]
    return render(request, "annotation/quality/qualification.html", {
        "batch": batch, "state": state, "rows": rows, "form": form, "latest": latest, "review": review,
        "dims": DIMENSIONS, "guideline": guideline_current()})
