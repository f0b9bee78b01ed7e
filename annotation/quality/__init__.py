"""Annotator quality control without Django: model-based aggregation of ordinal scores
(`aggregation`) and per-annotator quality figures and alert rules (`metrics`).

Both take plain numpy arrays so the Django side (selectors, tasks, the quality panel, releases)
can load judgments however it likes and hand them over; nothing here imports Django or Celery.
"""

SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)
