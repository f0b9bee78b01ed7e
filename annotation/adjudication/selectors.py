"""Reads for adjudication: the disagreement queue, a post's judgments and mean, consistency warnings.
`viewer` leaves out what that person may not see or settle (blindness, their own judgments)."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, Count, Exists, F, Max, Min, OuterRef, Q, QuerySet

from core.errors import NotFound

from ..blindness import without_hidden
from ..models import DIMENSIONS, FinalLabel, Judgment, Post, Provenance, WorkbenchSettings
from ..selectors import annotator_pseudonyms, pseudonym_fallback
from .rounding import rounded_mean


def _with_spans(qs: QuerySet[Post]) -> QuerySet[Post]:
    annotations = {}
    for d in DIMENSIONS:
        annotations[f"{d}_max"] = Max(f"judgments__{d}")
        annotations[f"{d}_min"] = Min(f"judgments__{d}")
        annotations[f"{d}_mean"] = Avg(f"judgments__{d}")
    return qs.annotate(n_judgments=Count("judgments"), n_flags=Count("judgments", filter=Q(judgments__flagged=True)),
                       **annotations)


def adjudication_queue(*, viewer=None, span: int | None = None) -> QuerySet[Post]:
    """Posts whose judgments span >= `span` points on any dimension, or that an annotator
    flagged, and that no adjudicator has settled yet. A 4-vs-5 split is not a disagreement.
    For a `viewer`, without the posts hidden from them and those they judged themselves."""
    span = span if span is not None else WorkbenchSettings.current().adjudication_span
    disagreement = Q(n_flags__gt=0)
    for d in DIMENSIONS:
        disagreement |= Q(**{f"{d}_max__gte": F(f"{d}_min") + span})
    settled = FinalLabel.objects.filter(post=OuterRef("pk"), provenance=Provenance.ADJUDICATED)
    posts = Post.objects.filter(judgments__isnull=False)
    if viewer is not None:
        posts = without_hidden(viewer, posts, post_field="pk").exclude(
            pk__in=Judgment.objects.filter(annotator=viewer).values("post_id"))
    return _with_spans(posts.distinct()).filter(disagreement).filter(~Exists(settled)).order_by("id")


def judged_by(user, post_id: int) -> bool:
    return Judgment.objects.filter(post_id=post_id, annotator=user).exists()


@dataclass
class JudgmentRow:
    name: str
    judgment: Judgment


@dataclass
class PostSummary:
    post: Post
    judgments: list[Judgment]
    means: dict[str, int | None]
    label: FinalLabel | None

    def rows(self, *, show_names: bool) -> list[JudgmentRow]:
        """The judgments with the name an adjudicator sees: a pseudonym unless names are switched on."""
        if show_names:
            return [JudgmentRow(j.annotator.username, j) for j in self.judgments]
        pseudonyms = annotator_pseudonyms([j.annotator_id for j in self.judgments])
        return [JudgmentRow(pseudonyms.get(j.annotator_id) or pseudonym_fallback(j.annotator_id), j)
                for j in self.judgments]


def post_summary(*, post_id: int) -> PostSummary:
    post = Post.objects.filter(pk=post_id).first()
    if post is None:
        raise NotFound("No such post.")
    judgments = list(post.judgments.select_related("annotator").order_by("id"))
    means = {d: rounded_mean([getattr(j, d) for j in judgments]) for d in DIMENSIONS}
    label = FinalLabel.objects.filter(post=post).select_related("adjudicator").first()
    return PostSummary(post, judgments, means, label)


CONSISTENCY_RULES = (
    ("explicit", "implicit", 4, "explicit and implicit bias are four points apart"),
    ("explicit", "emotional", 4, "explicit bias and emotional intensity are four points apart"),
)


def consistency_warnings(*, viewer=None) -> list[dict]:
    """Final labels whose dimensions contradict each other enough to deserve a second look."""
    q = Q()
    for a, b, gap, _ in CONSISTENCY_RULES:
        q |= Q(**{f"{a}__gte": F(b) + gap}) | Q(**{f"{b}__gte": F(a) + gap})
    labels = FinalLabel.objects.filter(q)
    if viewer is not None:
        labels = without_hidden(viewer, labels)
    out = []
    for label in labels.select_related("post").order_by("post_id"):
        reasons = [text for a, b, gap, text in CONSISTENCY_RULES if abs(getattr(label, a) - getattr(label, b)) >= gap]
        out.append({"post": label.post, "label": label, "reasons": reasons})
    return out
