"""The final-label rule: the rounded mean of the judgments, halves rounded up."""
from __future__ import annotations

import math


def round_half_up(value: float) -> int:
    """Rounded mean with halves going up (2.5 -> 3), unlike Python's round (banker's rounding)."""
    return int(math.floor(value + 0.5))


def rounded_mean(values: list[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return round_half_up(sum(present) / len(present)) if present else None
