"""Reads for rewrites: the queue (what is left to rewrite and to confirm, most searchable first),
a post's versions, and the confirmed rewrite a public release uses."""
from __future__ import annotations

from django.db.models import IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Length

from annotation.models import Post

from ..rewrite_models import Rewrite, RewriteStatus
from ..spans import max_shared_span_setting


def _latest(field: str):
    return Subquery(Rewrite.objects.filter(post=OuterRef("pk")).order_by("-version").values(field)[:1])


def posts_to_rewrite() -> QuerySet[Post]:
    """Labelled posts not taken down that still need a (better) rewrite: none yet, a draft, sent
    back, or a confirmed one that is searchable. Most searchable first: the span the current text
    shares with the original (a post without a rewrite shares all of itself)."""
    threshold = max_shared_span_setting()
    return (Post.objects.filter(final_label__isnull=False, takedowns__isnull=True)
            .annotate(rewrite_status=_latest("status"), rewrite_version=_latest("version"),
                      rewrite_author=_latest("author__username"),
                      rewrite_span=_latest("shared_span"))
            .filter(Q(rewrite_status__isnull=True) | Q(rewrite_status__in=[RewriteStatus.DRAFT, RewriteStatus.SENT_BACK])
                    | Q(rewrite_status=RewriteStatus.CONFIRMED, rewrite_span__gte=threshold))
            .annotate(span=Coalesce("rewrite_span", Length("text"), output_field=IntegerField()))
            .order_by("-span", "pk"))


def rewrites_to_confirm(user) -> QuerySet[Rewrite]:
    """Submitted rewrites someone other than `user` wrote, most searchable first."""
    return (Rewrite.objects.filter(status=RewriteStatus.SUBMITTED, post__takedowns__isnull=True)
            .exclude(author=user).select_related("post", "author").order_by("-shared_span", "submitted_at", "pk"))


def rewrite_history(post: Post) -> list[Rewrite]:
    return list(Rewrite.objects.filter(post=post).select_related("author", "confirmer", "created_by")
                .order_by("-version"))


def rewrite_latest(post: Post) -> Rewrite | None:
    return Rewrite.objects.filter(post=post).select_related("author").order_by("-version").first()


def confirmed_rewrites(post_ids=None) -> dict[int, Rewrite]:
    """post id -> the newest confirmed version of its rewrite (a later draft or submission does not
    replace it until it is confirmed itself)."""
    qs = Rewrite.objects.filter(status=RewriteStatus.CONFIRMED)
    if post_ids is not None:
        qs = qs.filter(post_id__in=list(post_ids))
    out: dict[int, Rewrite] = {}
    for rewrite in qs.order_by("post_id", "version"):
        out[rewrite.post_id] = rewrite
    return out
