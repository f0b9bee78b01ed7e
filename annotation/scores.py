"""The 1-5 ordinal score that judgments, final labels and imported labels carry: the one rule for
what a valid score is, applied to typed values (services, the API, forms) and to a file's text cells."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

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
            raise DomainError(f"{dim} must be an integer from {SCORE_MIN} to {SCORE_MAX} (got {value!r}).")
        clean[dim] = value  # type: ignore[assignment]
    return clean


def score_from_text(cell: str, column: str) -> tuple[int | None, str | None]:
    """A file's cell as a score: (score, None), or (None, the reason it is not one)."""
    value = cell.strip()
    try:
        number = int(value)
    except ValueError:
        return None, f"{column} must be an integer {SCORE_MIN}-{SCORE_MAX}, got {value[:20]!r}"
    if not is_score(number):
        return None, f"{column} must be between {SCORE_MIN} and {SCORE_MAX}, got {number}"
    return number, None
