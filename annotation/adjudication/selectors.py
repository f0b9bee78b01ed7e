"""Reads for adjudication: the disagreement queue, a post's judgments and mean, consistency warnings.
`viewer` leaves out what that person may not see or settle (blindness, their own judgments)."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Avg, Count, Exists, F, Max, Min, OuterRef, Q, QuerySet
from django.utils.translation import gettext_lazy as _

from core.errors import NotFound

from ..visibility import visible_to
from ..visibility.withdrawn import in_queues
from ..models import DIMENSIONS, FinalLabel, Judgment, Post, Provenance, WorkbenchSettings
from ..quality.selectors import aggregate_annotations, aggregate_disagreement
from ..selectors import annotator_pseudonyms, pseudonym_fallback
from .rounding import rounded_mean


def _with_spans(qs: QuerySet[Post]) -> QuerySet[Post]:
    counted = Q(judgments__gold=False)  # answers to gold items never count
    annotations = {}
    for d in DIMENSIONS:
        annotations[f"{d}_max"] = Max(f"judgments__{d}", filter=counted)
        annotations[f"{d}_min"] = Min(f"judgments__{d}", filter=counted)
        annotations[f"{d}_mean"] = Avg(f"judgments__{d}", filter=counted)
    return qs.annotate(n_judgments=Count("judgments", filter=counted),
                       n_flags=Count("judgments", filter=counted & Q(judgments__flagged=True)), **annotations)


def disagreement_post_ids(*, viewer=None, span: int | None = None, after: int = 0) -> QuerySet:
    """Ids of the posts needing adjudication, ascending, from `after` on: their counted judgments
    span >= `span` points on some dimension, or one of them is flagged, and no adjudicator has
    settled them; never a withdrawn (taken-down) post. Grouped straight off the judgments' (post,
    annotator) index in post order, so asking for the first N ids after a cursor reads a page's worth
    of judgments, not all of them."""
    span = span if span is not None else WorkbenchSettings.current().adjudication_span
    disagreement = Q(n_flags__gt=0) | aggregate_disagreement()
    for d in DIMENSIONS:
        disagreement |= Q(**{f"{d}_max__gte": F(f"{d}_min") + span})
    settled = FinalLabel.objects.filter(post=OuterRef("post_id"), provenance=Provenance.ADJUDICATED)
    judgments = in_queues(Judgment.objects.counted().filter(post_id__gt=after).filter(~Exists(settled)))
    if viewer is not None:
        judgments = visible_to(viewer, judgments).exclude(
            post_id__in=Judgment.objects.filter(annotator=viewer).values("post_id"))
    spans = {f"{d}_{agg.__name__.lower()}": agg(d) for d in DIMENSIONS for agg in (Max, Min)}
    spans.update(aggregate_annotations())  # the model-based label beside the rounded mean (issue 12)
    return (judgments.order_by().values("post_id")
            .annotate(n_flags=Count("id", filter=Q(flagged=True)), **spans)
            .filter(disagreement).order_by("post_id").values_list("post_id", flat=True))


def adjudication_queue(*, viewer=None, span: int | None = None, after: int = 0,
                       limit: int | None = None) -> QuerySet[Post]:
    """Posts whose judgments span >= `span` points on any dimension, that an annotator flagged, or
    whose model-based aggregate differs from their rounded mean (annotation/quality), and that no
    adjudicator has settled yet. A 4-vs-5 split is not a disagreement.
    For a `viewer`, without the posts hidden from them and those they judged themselves.
    Pages: the first `limit` posts with an id above `after`, with their spans (bounded work)."""
    ids = disagreement_post_ids(viewer=viewer, span=span, after=after)
    if limit is not None:
        ids = list(ids[:limit])
    return _with_spans(Post.objects.filter(pk__in=ids)).order_by("id")


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
        raise NotFound(_("No such post."))
    judgments = list(post.judgments.counted().select_related("annotator").order_by("id"))
    means = {d: rounded_mean([getattr(j, d) for j in judgments]) for d in DIMENSIONS}
    label = FinalLabel.objects.filter(post=post).select_related("adjudicator").first()
    return PostSummary(post, judgments, means, label)


CONSISTENCY_RULES = (
    ("explicit", "implicit", 4, _("explicit and implicit bias are four points apart")),
    ("explicit", "emotional", 4, _("explicit bias and emotional intensity are four points apart")),
)


def consistency_warnings(*, viewer=None) -> list[dict]:
    """Final labels whose dimensions contradict each other enough to deserve a second look (not of
    withdrawn posts)."""
    q = Q()
    for a, b, gap, _reason in CONSISTENCY_RULES:
        q |= Q(**{f"{a}__gte": F(b) + gap}) | Q(**{f"{b}__gte": F(a) + gap})
    labels = in_queues(FinalLabel.objects.filter(q))
    if viewer is not None:
        labels = visible_to(viewer, labels)
    out = []
    for label in labels.select_related("post").order_by("post_id"):
        reasons = [text for a, b, gap, text in CONSISTENCY_RULES if abs(getattr(label, a) - getattr(label, b)) >= gap]
        out.append({"post": label.post, "label": label, "reasons": reasons})
    return out
