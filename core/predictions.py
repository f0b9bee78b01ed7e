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
