"""Template filters for annotation pages: dimension names and rubric text in the reader's language."""
from django import template
from django.utils.translation import get_language, gettext

from annotation.models import Dimension
from annotation.rubric import rubric_explanation as _rubric_explanation

register = template.Library()


@register.filter
def split_scheme_name(value, folds=None) -> str:
    """A split scheme's short name ('paper' -> 'the paper's protocol'); the counts are said beside it.
    `value` is the scheme, or a run's metrics["split"] ({"scheme", "folds", ...})."""
    from django.utils.translation import ngettext

    if isinstance(value, dict):
        value, folds = value.get("scheme", ""), value.get("folds")
    if value == "kfold":
        return ngettext("%(k)s stratified fold", "%(k)s stratified folds", folds or 0) % {"k": folds or "k"}
    names = {"paper": gettext("the paper's protocol"), "stratified": gettext("stratified 80/20")}
    return names.get(value, value)


@register.filter
def topic_label(value: str) -> str:
    """A topic of the keyword map (modeling/maam/topics.py): its own name, 'other' in the reader's language."""
    from modeling.maam.topics import OTHER

    return gettext("other topics") if value == OTHER else value


@register.filter
def release_split(release) -> dict:
    """{"train": n, "test": n} of a release: recorded at publication (summary["split"]), else counted
    once from its split.csv (releases published before the count was recorded)."""
    recorded = (release.summary or {}).get("split")
    if recorded:
        return recorded
    import csv
    from pathlib import Path

    counts = {"train": 0, "test": 0}
    try:
        with open(Path(release.directory) / "split.csv", encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                if row.get("split") in counts:
                    counts[row["split"]] += 1
    except OSError:
        return {}
    return counts


@register.filter
def dimension_label(value: str) -> str:
    """'explicit' -> 'Explicit bias' (or its translation); anything else unchanged."""
    try:
        return Dimension(value).label
    except ValueError:
        return value


@register.filter
def trans_value(value) -> str:
    """A stored English name (a C-I-S state, a subgroup, a state source) in the active language,
    when the catalogue has it; anything else (None, unknown names) unchanged."""
    return gettext(value) if isinstance(value, str) and value else value


@register.filter
def rubric_explanation(item: dict) -> str:
    return _rubric_explanation(item, get_language())
