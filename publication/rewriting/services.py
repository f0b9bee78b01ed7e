"""Writes for rewrites: save a draft, submit it, confirm or re-score it (a second person), and the
bulk import. Every text passes `checks.rewrite_check` before it is stored."""
from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record

from annotation.models import DIMENSIONS, FinalLabel, Post
from annotation.visibility import HIDDEN_MESSAGE, is_hidden
from core.errors import Conflict, DomainError, NotFound

from ..rewrite_models import REWRITE_PERMISSION, Rewrite, RewriteSource, RewriteStatus
from .checks import kept_digits_message, rewrite_check

MAX_REWRITE_CHARS = 10_000


def can_rewrite(user) -> bool:
    """Researchers and adjudicators hold `publication.rewrite_post` (granted on their groups)."""
    return bool(user.is_authenticated and user.is_active and user.has_perm(REWRITE_PERMISSION))


def require_rewriter(user) -> None:
    if not can_rewrite(user):
        raise DomainError(_("Rewriting posts needs the permission to rewrite posts (researchers and adjudicators "
                            "have it)."))


def _require_visible(user, post_id: int) -> None:
    """A rewrite carries the post's final labels (and a confirmation compares scores with them): not
    for someone from whom the post is hidden (annotation/visibility)."""
    if is_hidden(user, post_id):
        raise DomainError(HIDDEN_MESSAGE)


def _labels_of(post: Post) -> dict[str, int] | None:
    label = FinalLabel.objects.filter(post=post).first()
    return label.scores() if label is not None else None


def _check_text(text: str, post: Post):
    text = (text or "").strip()
    if not text:
        raise DomainError(_("The rewrite is empty."))
    if len(text) > MAX_REWRITE_CHARS:
        raise DomainError(_("The rewrite is %(length)s characters; the limit is %(limit)s.")
                          % {"length": f"{len(text):,}", "limit": f"{MAX_REWRITE_CHARS:,}"})
    check = rewrite_check(text, raw_text=post.raw_text, cleaned_text=post.text)
    if check.kept_digits:
        raise DomainError(kept_digits_message(check.kept_digits))
    return check


def _latest(post: Post, *, lock: bool = False) -> Rewrite | None:
    qs = Rewrite.objects.filter(post=post)
    if lock:
        qs = qs.select_for_update()
    return qs.order_by("-version").first()


def _next_version(post: Post) -> int:
    return (Rewrite.objects.filter(post=post).aggregate(v=Max("version"))["v"] or 0) + 1


@transaction.atomic
def rewrite_save_draft(*, post_id: int, author, text: str) -> Rewrite:
    """Save `text` as the post's draft: the open draft is updated in place (by its author), else
    a new version starts. A rewrite waiting for confirmation cannot be edited."""
    require_rewriter(author)
    post = Post.objects.select_for_update().filter(pk=post_id).first()
    if post is None:
        raise NotFound(_("No such post."))
    _require_visible(author, post.pk)
    check = _check_text(text, post)
    latest = _latest(post)
    if latest is not None and latest.status == RewriteStatus.SUBMITTED:
        raise Conflict(_("Version %(version)s of this rewrite is waiting for confirmation; it can be changed once "
                         "it has been confirmed or sent back.") % {"version": latest.version})
    if latest is not None and latest.status == RewriteStatus.DRAFT:
        if latest.author_id != author.pk:
            raise Conflict(_("%(user)s is drafting a rewrite of this post.") % {"user": latest.author})
        latest.text, latest.shared_span, latest.personal_data = check.text, check.shared_span, check.personal_data
        latest.save(update_fields=["text", "shared_span", "personal_data", "updated_at"])
        return latest
    return Rewrite.objects.create(post=post, version=_next_version(post), text=check.text, author=author,
                                  created_by=author, shared_span=check.shared_span,
                                  personal_data=check.personal_data, source=RewriteSource.PAGE)


@transaction.atomic
def rewrite_submit(*, post_id: int, author, text: str | None = None) -> Rewrite:
    """Submit the post's draft (saving `text` first when given) for a second person to confirm."""
    if text is not None:
        rewrite_save_draft(post_id=post_id, author=author, text=text)
    else:
        require_rewriter(author)
    post = Post.objects.select_for_update().get(pk=post_id)
    _require_visible(author, post.pk)
    latest = _latest(post)
    if latest is None or latest.status != RewriteStatus.DRAFT or latest.author_id != author.pk:
        raise Conflict(_("There is no draft of yours to submit for this post."))
    labels = _labels_of(post)
    if labels is None:
        raise DomainError(_("This post has no final label yet: a rewrite is confirmed against the post's labels, so "
                            "label it first."))
    latest.status, latest.labels, latest.submitted_at = RewriteStatus.SUBMITTED, labels, timezone.now()
    latest.save(update_fields=["status", "labels", "submitted_at", "updated_at"])
    audit_record(actor=author, instances=[latest], event="rewrite",
                 changes={"status": (RewriteStatus.DRAFT, RewriteStatus.SUBMITTED)})
    return latest


def _scores(scores: dict | None) -> dict[str, int] | None:
    if scores is None:
        return None
    try:
        out = {d: int(scores[d]) for d in DIMENSIONS}
    except (KeyError, TypeError, ValueError):
        raise DomainError(_("A re-score needs a score from 1 to 5 on each of the three dimensions."))
    if not all(1 <= v <= 5 for v in out.values()):
        raise DomainError(_("A re-score needs a score from 1 to 5 on each of the three dimensions."))
    return out


@transaction.atomic
def rewrite_confirm(*, rewrite_id: int, confirmer, scores: dict | None = None) -> Rewrite:
    """The second person's answer on a submitted rewrite: `scores=None` - the labels still hold
    (confirmed); otherwise their own scores of the rewritten text: equal to the labels confirms it,
    any difference sends the post back to rewriting with both kept."""
    require_rewriter(confirmer)
    rewrite = Rewrite.objects.select_for_update().filter(pk=rewrite_id).first()
    if rewrite is None:
        raise NotFound(_("No such rewrite."))
    _require_visible(confirmer, rewrite.post_id)
    if rewrite.status != RewriteStatus.SUBMITTED:
        raise Conflict(_("This rewrite is not waiting for confirmation (it is %(status)s).")
                       % {"status": rewrite.get_status_display()})
    if rewrite.author_id == confirmer.pk or (rewrite.author_id is None and rewrite.created_by_id == confirmer.pk):
        raise DomainError(_("A rewrite is confirmed by a second person: you wrote this one."))
    scores = _scores(scores)
    agrees = scores is None or scores == rewrite.labels
    rewrite.status = RewriteStatus.CONFIRMED if agrees else RewriteStatus.SENT_BACK
    rewrite.confirmer, rewrite.confirmer_scores, rewrite.decided_at = confirmer, scores, timezone.now()
    rewrite.save(update_fields=["status", "confirmer", "confirmer_scores", "decided_at", "updated_at"])
    audit_record(actor=confirmer, instances=[rewrite], event="rewrite",
                 changes={"status": (RewriteStatus.SUBMITTED, rewrite.status), "confirmer": (None, confirmer.pk)})
    return rewrite


def rewrite_permission_grant(*, role_names=("researcher", "adjudicator")) -> None:
    """Give the role groups the rewrite permission, as the migration does on install (for a database
    whose groups were made afresh, e.g. after a flush)."""
    from django.contrib.auth.models import Group, Permission

    permission = Permission.objects.get(content_type__app_label="publication", codename="rewrite_post")
    for name in role_names:
        Group.objects.get_or_create(name=name)[0].permissions.add(permission)
