"""Adjudication: the queue (ordinal span or flags), rounded-mean final labels (half up),
adjudicated labels with optimistic locking, and cross-dimension consistency checks."""
from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, Exists, F, Max, Min, OuterRef, Q, QuerySet

from core.errors import Conflict, DomainError, NotFound

from .models import DIMENSIONS, FinalLabel, Judgment, Post, Provenance, WorkbenchSettings


def round_half_up(value: float) -> int:
    """Rounded mean with halves going up (2.5 -> 3), unlike Python's round (banker's rounding)."""
    return int(math.floor(value + 0.5))


def rounded_mean(values: list[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return round_half_up(sum(present) / len(present)) if present else None


def _with_spans(qs: QuerySet[Post]) -> QuerySet[Post]:
    annotations = {}
    for d in DIMENSIONS:
        annotations[f"{d}_max"] = Max(f"judgments__{d}")
        annotations[f"{d}_min"] = Min(f"judgments__{d}")
        annotations[f"{d}_mean"] = Avg(f"judgments__{d}")
    return qs.annotate(n_judgments=Count("judgments"), n_flags=Count("judgments", filter=Q(judgments__flagged=True)),
                       **annotations)


def adjudication_queue(*, span: int | None = None) -> QuerySet[Post]:
    """Posts whose judgments span >= `span` points on any dimension, or that an annotator
    flagged, and that no adjudicator has settled yet. A 4-vs-5 split is not a disagreement."""
    span = span if span is not None else WorkbenchSettings.current().adjudication_span
    disagreement = Q(n_flags__gt=0)
    for d in DIMENSIONS:
        disagreement |= Q(**{f"{d}_max__gte": F(f"{d}_min") + span})
    settled = FinalLabel.objects.filter(post=OuterRef("pk"), provenance=Provenance.ADJUDICATED)
    return (_with_spans(Post.objects.filter(judgments__isnull=False).distinct())
            .filter(disagreement).filter(~Exists(settled)).order_by("id"))


@dataclass
class PostSummary:
    post: Post
    judgments: list[Judgment]
    means: dict[str, int | None]
    label: FinalLabel | None


def post_summary(*, post_id: int) -> PostSummary:
    post = Post.objects.filter(pk=post_id).first()
    if post is None:
        raise NotFound("No such post.")
    judgments = list(post.judgments.select_related("annotator__annotator_profile").order_by("id"))
    means = {d: rounded_mean([getattr(j, d) for j in judgments]) for d in DIMENSIONS}
    label = FinalLabel.objects.filter(post=post).select_related("adjudicator").first()
    return PostSummary(post, judgments, means, label)


@transaction.atomic
def post_adjudicate(*, adjudicator, post_id: int, scores: dict[str, int], rationale: str,
                    expected_version: int) -> FinalLabel:
    """Set the final label. `expected_version` is the label version the adjudicator saw (0 when
    there was none); if someone changed it since, Conflict - never a silent overwrite."""
    for d in DIMENSIONS:
        value = scores.get(d)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
            raise DomainError(f"{d} must be an integer from 1 to 5.")
    if not rationale.strip():
        raise DomainError("Write a rationale: adjudicated labels must record why.")
    if not Post.objects.filter(pk=post_id).exists():
        raise NotFound("No such post.")
    label = FinalLabel.objects.select_for_update().filter(post_id=post_id).first()
    current = label.version if label else 0
    if label is not None and label.provenance == Provenance.AUTO and expected_version == 0:
        current = 0  # an automatic label may be replaced by whoever adjudicates first
    if current != expected_version:
        who = label.adjudicator.username if label and label.adjudicator else "someone"
        raise Conflict(f"{who} changed this label while you were looking (now {label.scores()}, "
                       f"version {label.version}). Reload to see it before deciding.")
    if label is None:
        try:
            with transaction.atomic():
                return FinalLabel.objects.create(post_id=post_id, provenance=Provenance.ADJUDICATED,
                                                 adjudicator=adjudicator, rationale=rationale.strip(), version=1,
                                                 **{d: scores[d] for d in DIMENSIONS})
        except IntegrityError:
            raise Conflict("Another adjudicator labelled this post at the same moment. Reload to see their label.")
    for d in DIMENSIONS:
        setattr(label, d, scores[d])
    label.provenance = Provenance.ADJUDICATED
    label.adjudicator = adjudicator
    label.rationale = rationale.strip()
    label.version = label.version + 1
    label.save()
    return label


def post_set_context(*, post_id: int, tone: str = "", identity: str = "", stance: str = "") -> Post:
    """Manual C-I-S tags (Funny/General/Serious, Ingroup/Outgroup/Uncertain, Pro/Anti/Neutral);
    calibration prefers them to inferred states. Empty strings clear a tag."""
    from .models import Identity, Stance, Tone

    for value, choices, name in ((tone, Tone, "tone"), (identity, Identity, "identity"), (stance, Stance, "stance")):
        if value and value not in choices.values:
            raise DomainError(f"{name} must be one of {', '.join(choices.values)}.")
    updated = Post.objects.filter(pk=post_id).update(tone=tone, identity=identity, stance=stance)
    if not updated:
        raise NotFound("No such post.")
    return Post.objects.get(pk=post_id)


@transaction.atomic
def final_labels_refresh(*, batch_id: int | None = None) -> int:
    """Give every judged post without an adjudicated or imported label its rounded mean (auto)."""
    qs = Post.objects.filter(judgments__isnull=False).distinct()
    if batch_id is not None:
        qs = qs.filter(batch_id=batch_id)
    keep = set(FinalLabel.objects.exclude(provenance=Provenance.AUTO).values_list("post_id", flat=True))
    sums: dict[int, dict[str, list[int]]] = {}
    for row in Judgment.objects.filter(post__in=qs).values_list("post_id", *DIMENSIONS):
        entry = sums.setdefault(row[0], {d: [] for d in DIMENSIONS})
        for d, v in zip(DIMENSIONS, row[1:]):
            if v is not None:
                entry[d].append(v)
    existing = {fl.post_id: fl for fl in FinalLabel.objects.filter(post_id__in=list(sums), provenance=Provenance.AUTO)}
    create, update = [], []
    for post_id, values in sums.items():
        if post_id in keep or any(not values[d] for d in DIMENSIONS):
            continue
        means = {d: rounded_mean(values[d]) for d in DIMENSIONS}
        if post_id in existing:
            fl = existing[post_id]
            if fl.scores() != means:
                for d in DIMENSIONS:
                    setattr(fl, d, means[d])
                fl.version += 1
                update.append(fl)
        else:
            create.append(FinalLabel(post_id=post_id, provenance=Provenance.AUTO, **means))
    FinalLabel.objects.bulk_create(create, batch_size=2000)
    FinalLabel.objects.bulk_update(update, [*DIMENSIONS, "version"], batch_size=2000)
    return len(create) + len(update)


CONSISTENCY_RULES = (
    ("explicit", "implicit", 4, "explicit and implicit bias are four points apart"),
    ("explicit", "emotional", 4, "explicit bias and emotional intensity are four points apart"),
)


def consistency_warnings() -> list[dict]:
    """Final labels whose dimensions contradict each other enough to deserve a second look."""
    out = []
    q = Q()
    for a, b, gap, _ in CONSISTENCY_RULES:
        q |= Q(**{f"{a}__gte": F(b) + gap}) | Q(**{f"{b}__gte": F(a) + gap})
    for label in FinalLabel.objects.filter(q).select_related("post").order_by("post_id"):
        reasons = [text for a, b, gap, text in CONSISTENCY_RULES if abs(getattr(label, a) - getattr(label, b)) >= gap]
        out.append({"post": label.post, "label": label, "reasons": reasons})
    return out
