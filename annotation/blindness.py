"""Moved: the visibility policy lives in annotation/visibility/ (issue 20). These names stay importable
for code written against the old module; new code imports from annotation.visibility."""
from __future__ import annotations

from .visibility import (  # noqa: F401
    GOLD_HIDDEN_MESSAGE,
    HIDDEN_MESSAGE,
    RELEASE_HIDDEN_MESSAGE,
    ensure_visible,
    gold_hidden_from,
    hidden_posts,
    is_hidden,
)
from .visibility import VisibleRowsAdmin as HideFromTwoRolesAdmin  # noqa: F401
from .visibility import visible_to as without_hidden  # noqa: F401
