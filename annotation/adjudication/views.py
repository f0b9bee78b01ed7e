"""Adjudicators' pages: the disagreement queue, a post to settle, cross-dimension consistency warnings."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.converters import parse_id
from core.errors import Conflict, DomainError, NotFound
from core.permissions import Role, require_role
from core.predictions import latest_prediction, pseudo_raters_for_post

from ..visibility import ensure_visible
from ..models import AUTOMATIC, DIMENSIONS, WorkbenchSettings
from ..quality.selectors import aggregate_for_post
from . import selectors, services
from .forms import AdjudicationForm, context_choices

QUEUE_PAGE = 50
WARNINGS_SHOWN = 500


@login_required
def adjudication_queue(request):
    require_role(request, Role.ADJUDICATOR, Role.RESEARCHER)
    # Keyset pages: the next QUEUE_PAGE posts after the last id shown (bounded work on every page).
    # An unreadable or out-of-range id (parse_id: ASCII digits within bigint) starts at the first page.
    after = parse_id(request.GET.get("after")) or 0
    posts = list(selectors.adjudication_queue(viewer=request.user, after=after, limit=QUEUE_PAGE + 1))
    more = len(posts) > QUEUE_PAGE
    posts = posts[:QUEUE_PAGE]
    return render(request, "annotation/adjudication_queue.html", {
        "posts": posts, "dims": DIMENSIONS, "after": after,
        "next_after": posts[-1].pk if more else None})


@login_required
def adjudicate(request, post_id: int):
    require_role(request, Role.ADJUDICATOR, Role.RESEARCHER)
    ensure_visible(request.user, post_id)
    conflict = None
    if request.method == "POST":
        form = AdjudicationForm(request.POST)
        if not form.is_valid():
            messages.error(request, _("Every dimension needs a score from 1 to 5."))
        else:
            try:
                services.post_resolve(adjudicator=request.user, post_id=post_id, **form.resolve_arguments())
            except NotFound:
                raise Http404(_("No such post."))
            except Conflict as exc:
                conflict = str(exc)
            except DomainError as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, _("Post #%(id)s adjudicated.") % {"id": post_id})
                nxt = (selectors.disagreement_post_ids(viewer=request.user, after=post_id).first()
                       or selectors.disagreement_post_ids(viewer=request.user).exclude(post_id=post_id).first())
                return redirect("review:adjudicate", nxt) if nxt else redirect("review:adjudication")
    try:
        summary = selectors.post_summary(post_id=post_id)
    except NotFound:
        raise Http404(_("No such post."))
    label = summary.label
    settled = label is not None and label.provenance not in AUTOMATIC
    return render(request, "annotation/adjudicate.html", {
        "post": summary.post, "means": summary.means, "label": label, "dims": DIMENSIONS, "conflict": conflict,
        "rows": summary.rows(show_names=WorkbenchSettings.current().show_annotator_names_to_adjudicators),
        "version": label.version if settled else 0, "initial": label.scores() if settled else summary.means,
        "context_choices": context_choices(summary.post), "prediction": latest_prediction(post_id=post_id),
        "pseudo_raters": pseudo_raters_for_post(post_id=post_id),  # LLM runs kept as raters (llm/rater.py)
        "aggregate": aggregate_for_post(post_id=post_id, means=summary.means),
        "own_judgment": services.OWN_JUDGMENT_MESSAGE if selectors.judged_by(request.user, post_id) else None,
    })


@login_required
def consistency(request):
    require_role(request, Role.ADJUDICATOR, Role.RESEARCHER)
    rows = selectors.consistency_warnings(viewer=request.user)[:WARNINGS_SHOWN]
    return render(request, "annotation/consistency.html", {"rows": rows})
