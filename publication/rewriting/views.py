"""The rewrite pages (people holding publication.rewrite_post): the queue, the rewrite page
(original and draft side by side, shared spans highlighted as one types) and the confirm page."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.views.decorators.http import require_POST
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from annotation.models import DIMENSIONS, FinalLabel, Post
from annotation.selectors import guideline_current
from annotation.visibility import ensure_visible, visible_to
from core.errors import DomainError

from .. import personal_data
from ..rewrite_models import Rewrite, RewriteStatus
from ..spans import max_shared_span_setting
from .checks import PLACEHOLDER_PATTERN, highlight_segments
from .selectors import posts_to_rewrite, rewrite_history, rewrites_to_confirm
from .services import can_rewrite, rewrite_confirm, rewrite_save_draft, rewrite_submit

QUEUE_SIZE = 50


def _require(request) -> None:
    if not can_rewrite(request.user):
        raise PermissionDenied(_("Rewriting posts needs the permission to rewrite posts (researchers and "
                                 "adjudicators have it)."))


@login_required
def queue(request):
    _require(request)
    # The visibility policy: nobody sees the labels of a post still waiting in their own queue.
    return render(request, "publication/rewrite_queue.html", {
        "to_rewrite": visible_to(request.user, posts_to_rewrite(), post_field="pk")[:QUEUE_SIZE],
        "to_confirm": visible_to(request.user, rewrites_to_confirm(request.user))[:QUEUE_SIZE],
        "threshold": max_shared_span_setting()})


def _common(post: Post) -> dict:
    label = FinalLabel.objects.filter(post=post).first()
    return {"post": post, "labels": label.scores() if label else None, "dimensions": DIMENSIONS,
            "guideline": guideline_current(), "threshold": max_shared_span_setting(),
            "placeholders": list(personal_data.PLACEHOLDERS.values()),
            "has_placeholders": bool(PLACEHOLDER_PATTERN.search(post.text))}


@login_required
def rewrite(request, post_id: int):
    _require(request)
    ensure_visible(request.user, post_id)  # the page shows the post's final labels
    post = Post.objects.filter(pk=post_id, final_label__isnull=False, takedowns__isnull=True).first()
    if post is None:
        raise Http404(_("No such post to rewrite (it needs a final label and must not be taken down)."))
    if request.method == "POST":
        text = request.POST.get("text", "")
        try:
            if request.POST.get("action") == "submit":
                saved = rewrite_submit(post_id=post.pk, author=request.user, text=text)
                messages.success(request, _("Version %(version)s submitted: a second person confirms it.")
                                 % {"version": saved.version})
                return redirect("rewriting:queue")
            saved = rewrite_save_draft(post_id=post.pk, author=request.user, text=text)
            messages.success(request, _("Draft saved (version %(version)s; longest shared span %(span)s).")
                             % {"version": saved.version, "span": saved.shared_span})
        except DomainError as exc:
            messages.error(request, str(exc))
        return redirect("rewriting:rewrite", post_id=post.pk)
    history = rewrite_history(post)
    latest = history[0] if history else None
    editable = latest is None or latest.status != RewriteStatus.SUBMITTED
    return render(request, "publication/rewrite.html", {
        **_common(post), "history": history, "latest": latest, "editable": editable,
        "draft": latest.text if latest is not None else ""})


# The longest draft the live highlight measures (a post is at most a few thousand characters).
HIGHLIGHT_MAX_CHARS = 20000


@login_required
@require_POST
def spans(request, post_id: int):
    """The live highlight of the rewrite page: the runs the draft shares with the post's masked text,
    measured by the server's own normaliser (publication/spans.py), in characters of the draft."""
    _require(request)
    ensure_visible(request.user, post_id)
    post = Post.objects.filter(pk=post_id).only("pk", "text").first()
    if post is None:
        raise Http404(_("No such post."))
    text = request.POST.get("text", "")
    if len(text) > HIGHLIGHT_MAX_CHARS:
        return JsonResponse({"error": _("The draft is too long to measure (at most %(n)s characters).")
                             % {"n": HIGHLIGHT_MAX_CHARS}}, status=400)
    longest, segments = highlight_segments(text, original=post.text)
    threshold = max_shared_span_setting()
    return JsonResponse({"longest": longest, "threshold": threshold, "searchable": longest >= threshold,
                         "segments": [{"start": s, "end": e, "length": n} for s, e, n in segments]})


@login_required
def confirm(request, rewrite_id: int):
    _require(request)
    item = Rewrite.objects.select_related("post", "author").filter(pk=rewrite_id).first()
    if item is None:
        raise Http404(_("No such rewrite."))
    ensure_visible(request.user, item.post_id)  # the labels, and the answer comparing scores with them
    if request.method == "POST":
        scores = None
        if request.POST.get("action") == "rescore":
            scores = {d: request.POST.get(d) for d in DIMENSIONS}
        try:
            decided = rewrite_confirm(rewrite_id=item.pk, confirmer=request.user, scores=scores)
        except DomainError as exc:
            messages.error(request, str(exc))
            return redirect("rewriting:confirm", rewrite_id=item.pk)
        if decided.status == RewriteStatus.CONFIRMED:
            messages.success(request, _("Rewrite confirmed."))
        else:
            messages.warning(request, _("Your scores differ from the labels: the post goes back to rewriting, with both "
                                        "kept."))
        return redirect("rewriting:queue")
    return render(request, "publication/rewrite_confirm.html", {
        **_common(item.post), "item": item, "own": item.author_id == request.user.pk,
        "scores": range(1, 6)})
