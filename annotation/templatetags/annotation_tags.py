"""Template filters for annotation pages: dimension names and rubric text in the reader's language."""
from django import template
from django.utils.translation import get_language, gettext

from annotation.models import Dimension
from annotation.rubric import rubric_explanation as _rubric_explanation

register = template.Library()


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
