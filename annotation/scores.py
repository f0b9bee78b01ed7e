"""The 1-5 ordinal score that judgments, final labels and imported labels carry: the one rule for
what a valid score is, applied to typed values (services, the API, forms) and to a file's text cells."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.utils.translation import gettext as _

from core.errors import DomainError

from .models import DIMENSIONS, SCORE_RANGE

SCORE_MIN, SCORE_MAX = SCORE_RANGE[0], SCORE_RANGE[-1]


def is_score(value: object) -> bool:
    """An int from 1 to 5; booleans, floats and numeric strings are not scores."""
    return isinstance(value, int) and not isinstance(value, bool) and value in SCORE_RANGE


def scores_validate(scores: Mapping[str, object], *, dimensions: Iterable[str] = DIMENSIONS) -> dict[str, int]:
    """Every one of `dimensions` holds a score, or DomainError names the first that does not."""
    clean: dict[str, int] = {}
    for dim in dimensions:
        value = scores.get(dim)
        if not is_score(value):
            raise DomainError(_("%(dimension)s must be an integer from %(min)s to %(max)s (got %(value)r).")
                              % {"dimension": dim, "min": SCORE_MIN, "max": SCORE_MAX, "value": value})
        clean[dim] = value  # type: ignore[assignment]
    return clean


def score_from_text(cell: str, column: str) -> tuple[int | None, str | None]:
    """A file's cell as a score: (score, None), or (None, the reason it is not one)."""
    value = cell.strip()
    try:
        number = int(value)
    except ValueError:
        return None, _("%(column)s must be an integer %(min)s-%(max)s, got %(value)r") % {
            "column": column, "min": SCORE_MIN, "max": SCORE_MAX, "value": value[:20]}
    if not is_score(number):
        return None, _("%(column)s must be between %(min)s and %(max)s, got %(value)s") % {
            "column": column, "min": SCORE_MIN, "max": SCORE_MAX, "value": number}
    return number, None
