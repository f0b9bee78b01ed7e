"""Annotator quality control without Django: model-based aggregation of ordinal scores
(`aggregation`) and per-annotator quality figures and alert rules (`metrics`).

Both take plain numpy arrays so the Django side (selectors, tasks, the quality panel, releases)
can load judgments however it likes and hand them over; nothing here imports Django or Celery.
"""

from annotation.agreement.mathematics import VALUE_DOMAIN

SCORES: tuple[int, ...] = tuple(VALUE_DOMAIN)  # the 1-5 scale, defined once beside alpha
