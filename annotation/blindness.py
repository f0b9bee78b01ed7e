"""Blindness for people who hold two roles. While a batch is open, someone who annotates it sees no
judgment of one of its posts that they have not judged themselves - nor anything made from those
judgments: spans, final labels, release rows, model predictions. Every route that shows such data
(pages, API, downloads, the admin) asks here, so the rule is written once."""
from __future__ import annotations

import csv
import io

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from core.permissions import Role, user_has_role

from .models import Batch, Judgment, Post

HIDDEN_MESSAGE = _("This post is still waiting in your annotation queue (its batch is open and you have not "
                  "judged it), so its judgments, labels and predictions stay hidden from you until you judge it "
                  "or the batch is locked.")
RELEASE_HIDDEN_MESSAGE = _("This file holds judgments or labels of posts still waiting in your annotation queue "
                          "(their batch is open and you have not judged them). It can be downloaded once you "
                          "have judged them or the batch is locked.")


def hidden_posts(user) -> QuerySet[Post]:
    """Posts whose judgments `user` may not see yet: in an open batch they annotate, not judged by them."""
    if not user_has_role(user, Role.ANNOTATOR):
        return Post.objects.none()
    pools = Batch.objects.filter(locked_at__isnull=True).filter(Q(annotators=user) | Q(annotators__isnull=True))
    return Post.objects.filter(batch__in=pools.values("pk")).exclude(
        pk__in=Judgment.objects.filter(annotator=user).values("post_id"))


def without_hidden(user, queryset: QuerySet, *, post_field: str = "post") -> QuerySet:
    """`queryset` less the rows about posts hidden from `user` (`post_field` leads to the post;
    "pk" when the queryset is of posts). No extra query for someone who is not an annotator."""
    if not user_has_role(user, Role.ANNOTATOR):
        return queryset
    return queryset.exclude(**{f"{post_field}__in": hidden_posts(user).values("pk")})


def is_hidden(user, post_id: int) -> bool:
    return user_has_role(user, Role.ANNOTATOR) and hidden_posts(user).filter(pk=post_id).exists()


def ensure_visible(user, post_id: int) -> None:
    """For page views: 403 with the reason when the post is hidden from `user`."""
    if is_hidden(user, post_id):
        raise PermissionDenied(HIDDEN_MESSAGE)


# Release files that carry per-post judgments or labels, and how to read their post keys.
def _judgments_csv_keys(data: bytes) -> set[str]:
    rows = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    next(rows, None)
    return {row[0] for row in rows if row}


def release_file_reveals_hidden(user, *, name: str, data: bytes, release_keys) -> bool:
    """Whether the release file `name` (its verified bytes `data`) shows a judgment or label of a post
    hidden from `user`. `release_keys()` gives the keys of the release's labelled posts."""
    if name not in ("judgments.csv", "release.csv", "release.jsonl") or not user_has_role(user, Role.ANNOTATOR):
        return False
    from .releases.files import post_key

    hidden = {post_key(ext, sha) for ext, sha in hidden_posts(user).values_list("external_id", "text_sha256")}
    if not hidden:
        return False
    keys = _judgments_csv_keys(data) if name == "judgments.csv" else set(release_keys())
    return not hidden.isdisjoint(keys)


class HideFromTwoRolesAdmin(admin.ModelAdmin):
    """Admin lists and pages of judgment-derived rows leave out posts hidden from the viewer."""

    blind_post_field = "post"

    def get_queryset(self, request):
        return without_hidden(request.user, super().get_queryset(request), post_field=self.blind_post_field)


# Gold items (annotation/quality): their labels are the answers annotators are measured against, so
# no list of them (page, API, a release's gold.csv) is shown to anyone who also annotates.
GOLD_HIDDEN_MESSAGE = ("Gold labels are the answers annotators are measured against, so they are not shown to "
                       "anyone who also annotates.")


def gold_hidden_from(user) -> bool:
    return user_has_role(user, Role.ANNOTATOR)
