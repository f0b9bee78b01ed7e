"""Takedown requests: a post leaves every future release on request. Its model predictions are
dropped, the request is kept (who, when, why), and published releases stay byte-identical - the
releases page marks which later release superseded each one that held a taken-down post."""
from __future__ import annotations

import csv
import io

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from annotation.importing.cleaning import clean_text
from annotation.importing.parsers import sha256_text
from annotation.models import Assignment, AssignmentStatus, GoldItem, Post, Release
from annotation.releases.files import post_key
from annotation.releases.selectors import release_file_bytes
from core import csv_safe
from core.errors import DomainError, NotFound

from .rewrite_models import Takedown


def post_find(*, post_id: int | None = None, text: str | None = None) -> Post:
    """The post a request names: by database id, or by its text as imported or as cleaned."""
    if post_id is not None:
        post = Post.objects.filter(pk=post_id).first()
    elif text and text.strip():
        text = text.strip()
        post = (Post.objects.filter(raw_text=text).first()
                or Post.objects.filter(text_sha256=sha256_text(clean_text(text))).first())
    else:
        raise DomainError(_("Name the post: its id, or a file holding its text."))
    if post is None:
        raise NotFound(_("No post matches the request."))
    return post


@transaction.atomic
def takedown_record(*, post: Post, reason: str, requested_by=None) -> Takedown:
    """Take `post` out of every future release and drop its predictions; release its open claims
    (`_open_claims_release`), in the same transaction."""
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(_("A takedown needs its reason (who asked, and why)."))
    # Lock order: the gold item (if the post is one) before the post, as the gold pick does (it locks
    # the item, then writes a claim referencing the post) - the other order deadlocks with it.
    list(GoldItem.objects.select_for_update().filter(post_id=post.pk).values_list("pk", flat=True))
    post = Post.objects.select_for_update().get(pk=post.pk)
    from modeling.models import Prediction

    dropped, _by_model = Prediction.objects.filter(post=post).delete()
    _open_claims_release(post)
    Post.objects.filter(pk=post.pk).update(withdrawn=True)  # rule 4 as the claim path reads it (Post.withdrawn)
    takedown = Takedown.objects.create(post=post, post_key=post_key(post.external_id, post.text_sha256), reason=reason,
                                       requested_by=requested_by, predictions_dropped=dropped)
    if requested_by is not None:
        # The log names who recorded it, as its row does, outside a request too (auditlog records no one there).
        from auditlog.models import LogEntry

        LogEntry.objects.get_for_object(takedown).filter(actor__isnull=True).update(actor=requested_by)
    return takedown


def _open_claims_release(post: Post) -> int:
    """Under the post's row lock: the unanswered claims on the post - real ones, and gold ones on it
    as a gold item - are deleted, so no queue keeps a stale claim on a taken-down post (rule 4 of the
    visibility policy, annotation/visibility/withdrawn.py): it is not served as anyone's open item,
    cannot be answered any more, and a real claim's slot is given back (Post.live_claims recounted,
    as the claim services count it). An unanswered claim holds nothing given; answered claims
    (submitted, skipped, set aside) and every judgment stay. The gold item's row is locked first, as
    the gold pick locks it, so a gold claim being written on it commits before this delete runs (and
    none is written after: the takedown leaves it out of `gold_items_servable`). Returns how many
    claims were released."""
    list(GoldItem.objects.select_for_update().filter(post=post).values_list("pk", flat=True))  # (held already)
    released, _by_model = Assignment.objects.filter(post=post, status=AssignmentStatus.ASSIGNED).delete()
    if released:
        live = Assignment.objects.filter(post=post, gold_batch__isnull=True).filter(
            Q(status=AssignmentStatus.SUBMITTED) | Q(status=AssignmentStatus.ASSIGNED, lapsed=False)).count()
        Post.objects.filter(pk=post.pk).update(live_claims=live)
    return released


def _release_ids(release: Release) -> set[str]:
    rows = csv.reader(io.StringIO(release_file_bytes(release, "split.csv").decode("utf-8")))
    next(rows, None)
    return {csv_safe.restore(row[0]) for row in rows if row}


def releases_superseded() -> dict[int, int]:
    """release number -> the number of the first later release of the same kind that left out a
    taken-down post it held."""
    removing = [r for r in Release.objects.order_by("number") if (r.diff or {}).get("taken_down_ids")]
    if not removing:
        return {}
    out: dict[int, int] = {}
    for release in Release.objects.filter(number__lt=removing[-1].number).order_by("number"):
        ids = None
        for later in removing:
            if later.number <= release.number or later.kind != release.kind:
                continue
            if ids is None:
                try:
                    ids = _release_ids(release)
                except DomainError:  # a damaged release: the page says so on download
                    ids = set()
            if ids & set(later.diff["taken_down_ids"]):
                out[release.number] = later.number
                break
    return out
