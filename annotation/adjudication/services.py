"""Writes for adjudication: settling a post's final label (optimistic locking, never a silent
overwrite, never by someone who judged the post), its C-I-S context tags, and the automatic
rounded-mean labels of everything else."""
from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.errors import Conflict, DomainError, NotFound

from ..visibility import HIDDEN_MESSAGE, is_hidden
from ..models import (
    AUTOMATIC,
    DIMENSIONS,
    AggregateLabel,
    FinalLabel,
    FinalLabelMethod,
    Identity,
    Judgment,
    Post,
    Provenance,
    Stance,
    Tone,
    WorkbenchSettings,
)
from ..scores import scores_validate
from .rounding import rounded_mean
from .selectors import judged_by


class NotYours(DomainError):
    """The adjudicator may not settle this post: they judged it, or it is hidden from them."""

    status_code = 403


OWN_JUDGMENT_MESSAGE = gettext_lazy("You judged this post yourself; another adjudicator must settle it.")


@transaction.atomic
def post_adjudicate(*, adjudicator, post_id: int, scores: dict[str, int], rationale: str,
                    expected_version: int) -> FinalLabel:
    """Set the final label. `expected_version` is the label version the adjudicator saw (0 when
    there was none); if someone changed it since, Conflict - never a silent overwrite."""
    clean = scores_validate(scores)
    if not rationale.strip():
        raise DomainError(_("Write a rationale: adjudicated labels must record why."))
    if not Post.objects.filter(pk=post_id).exists():
        raise NotFound(_("No such post."))
    if judged_by(adjudicator, post_id):
        raise NotYours(OWN_JUDGMENT_MESSAGE)
    if is_hidden(adjudicator, post_id):
        raise NotYours(HIDDEN_MESSAGE)
    label = FinalLabel.objects.select_for_update().filter(post_id=post_id).first()
    current = label.version if label else 0
    if label is not None and label.provenance in AUTOMATIC and expected_version == 0:
        current = 0  # an automatic label may be replaced by whoever adjudicates first
    if current != expected_version:
        who = label.adjudicator.username if label and label.adjudicator else _("someone")
        raise Conflict(_("%(who)s changed this label while you were looking (now %(scores)s, version %(version)s). "
                         "Reload to see it before deciding.") % {
            "who": who, "scores": "/".join(str(v) for v in label.scores().values()), "version": label.version})
    if label is None:
        try:
            with transaction.atomic():
                return FinalLabel.objects.create(post_id=post_id, provenance=Provenance.ADJUDICATED,
                                                 adjudicator=adjudicator, rationale=rationale.strip(), version=1,
                                                 **clean)
        except IntegrityError:
            raise Conflict(_("Another adjudicator labelled this post at the same moment. Reload to see their label."))
    for d in DIMENSIONS:
        setattr(label, d, clean[d])
    label.provenance = Provenance.ADJUDICATED
    label.adjudicator = adjudicator
    label.rationale = rationale.strip()
    label.version = label.version + 1
    label.save()
    return label


def post_set_context(*, post_id: int, tone: str = "", identity: str = "", stance: str = "") -> Post:
    """Manual C-I-S tags (Funny/General/Serious, Ingroup/Outgroup/Uncertain, Pro/Anti/Neutral);
    calibration prefers them to inferred states. Empty strings clear a tag."""
    for value, choices, name in ((tone, Tone, "tone"), (identity, Identity, "identity"), (stance, Stance, "stance")):
        if value and value not in choices.values:
            raise DomainError(_("%(name)s must be one of %(values)s.") % {"name": name, "values": ", ".join(choices.values)})
    updated = Post.objects.filter(pk=post_id).update(tone=tone, identity=identity, stance=stance)
    if not updated:
        raise NotFound(_("No such post."))
    return Post.objects.get(pk=post_id)


@transaction.atomic
def post_resolve(*, adjudicator, post_id: int, scores: dict[str, int], rationale: str, expected_version: int,
                 tone: str = "", identity: str = "", stance: str = "") -> FinalLabel:
    """What the adjudication page saves: the final label and the context tags, both or neither."""
    label = post_adjudicate(adjudicator=adjudicator, post_id=post_id, scores=scores, rationale=rationale,
                            expected_version=expected_version)
    post_set_context(post_id=post_id, tone=tone, identity=identity, stance=stance)
    return label


@transaction.atomic
def final_labels_refresh(*, batch_id: int | None = None) -> int:
    """Give every judged post without an adjudicated or imported label its automatic label: the
    rounded mean (provenance auto), or - when the workbench setting `final_label_method` says so -
    the model-based aggregate of the latest aggregation run (provenance aggregate; the rounded mean
    where a post has no aggregate on every dimension). Releases call
    `quality.services.aggregation_ensure_current` first, so the aggregate is fitted on these judgments."""
    qs = Post.objects.filter(judgments__gold=False).distinct()  # answers to gold items never count
    if batch_id is not None:
        qs = qs.filter(batch_id=batch_id)
    aggregates: dict[int, dict[str, int]] = {}
    if WorkbenchSettings.current().final_label_method == FinalLabelMethod.AGGREGATE:
        aggregates = {row[0]: dict(zip(DIMENSIONS, row[1:])) for row in AggregateLabel.objects.filter(
            post__in=qs, **{f"{d}__isnull": False for d in DIMENSIONS}).values_list("post_id", *DIMENSIONS)}
    keep = set(FinalLabel.objects.exclude(provenance__in=AUTOMATIC).values_list("post_id", flat=True))
    sums: dict[int, dict[str, list[int]]] = {}
    for row in Judgment.objects.counted().filter(post__in=qs).values_list("post_id", *DIMENSIONS):
        entry = sums.setdefault(row[0], {d: [] for d in DIMENSIONS})
        for d, v in zip(DIMENSIONS, row[1:]):
            if v is not None:
                entry[d].append(v)
    existing = {fl.post_id: fl for fl in FinalLabel.objects.filter(post_id__in=list(sums), provenance__in=AUTOMATIC)}
    create, update = [], []
    for post_id, values in sums.items():
        if post_id in keep or any(not values[d] for d in DIMENSIONS):
            continue
        if post_id in aggregates:
            scores, provenance = aggregates[post_id], Provenance.AGGREGATE
        else:
            scores, provenance = {d: rounded_mean(values[d]) for d in DIMENSIONS}, Provenance.AUTO
        if post_id in existing:
            fl = existing[post_id]
            if fl.scores() != scores or fl.provenance != provenance:
                for d in DIMENSIONS:
                    setattr(fl, d, scores[d])
                fl.provenance = provenance
                fl.version += 1
                update.append(fl)
        else:
            create.append(FinalLabel(post_id=post_id, provenance=provenance, **scores))
    FinalLabel.objects.bulk_create(create, batch_size=2000)
    FinalLabel.objects.bulk_update(update, [*DIMENSIONS, "provenance", "version"], batch_size=2000)
    return len(create) + len(update)


