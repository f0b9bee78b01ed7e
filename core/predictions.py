"""Model predictions shown beside human labels (to adjudicators, never to annotators).

The modeling app registers its selector here when it is ready; pages ask through
`latest_prediction`, so annotation never imports modeling (modeling depends on annotation, not the
other way round). Without the modeling app installed there is simply no prediction."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

_provider: Callable[..., Any] | None = None


def prediction_provider_register(provider: Callable[..., Any]) -> None:
    """`provider(post_id=...)` returns the newest prediction for a post, or None."""
    global _provider
    _provider = provider


def latest_prediction(*, post_id: int) -> Any | None:
    return _provider(post_id=post_id) if _provider is not None else None


# Pseudo-raters: an LLM run a researcher kept as a rater (llm/rater.py registers itself here, so
# annotation never imports llm). Shown to adjudicators beside the model's prediction; counted by the
# model-based aggregation only for runs a researcher opted in (off by default); never in the crowd's
# alpha, final labels or releases otherwise. Without the llm app there is none.
_pseudo_raters: Any | None = None


def pseudo_raters_register(provider: Any) -> None:
    """`provider` has `for_post(*, post_id)` -> [rows with a label and three scores],
    `for_aggregation()` -> [(rater id < 0, post id, explicit, implicit, emotional)], and
    `fingerprint()` -> str (changes when the rows for_aggregation gives change)."""
    global _pseudo_raters
    _pseudo_raters = provider


def pseudo_raters_for_post(*, post_id: int) -> list:
    return _pseudo_raters.for_post(post_id=post_id) if _pseudo_raters is not None else []


def pseudo_raters_for_aggregation() -> list[tuple]:
    return _pseudo_raters.for_aggregation() if _pseudo_raters is not None else []


def pseudo_raters_fingerprint() -> str:
    return _pseudo_raters.fingerprint() if _pseudo_raters is not None else ""
