"""The checks every text meant for publication passes, on the page, at import and at release:
personal data masked (publication/personal_data.py, the import's detector), then its longest exact
span shared with the original post (publication/spans.py)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import personal_data
from ..spans import longest_shared_span_any, max_shared_span_setting

# Placeholders are where personal data was, not text of the post: a run of characters never
# continues through one (a kept `[手机号]` does not make a rewrite searchable). The text's
# placeholders and the original's become two different private-use characters.
PLACEHOLDER_PATTERN = re.compile("|".join(re.escape(p) for p in personal_data.PLACEHOLDERS.values()))
TEXT_BREAK, ORIGINAL_BREAK = "\ue000", "\ue001"


def _recogniser():
    """The named-entity recogniser the import uses, when a group configured one."""
    try:
        from ..personal_data_services import personal_data_recogniser
    except ImportError:  # pragma: no cover - the import's services not installed
        return None
    return personal_data_recogniser()


def release_span(text: str, *, raw_text: str, cleaned_text: str) -> int:
    """The longest span `text` shares with the post as imported or as cleaned (and masked)."""
    return longest_shared_span_any(PLACEHOLDER_PATTERN.sub(TEXT_BREAK, text),
                                   (PLACEHOLDER_PATTERN.sub(ORIGINAL_BREAK, raw_text),
                                    PLACEHOLDER_PATTERN.sub(ORIGINAL_BREAK, cleaned_text)))


@dataclass
class RewriteCheck:
    text: str  # masked
    personal_data: dict[str, int] = field(default_factory=dict)
    shared_span: int = 0
    threshold: int = 15

    @property
    def searchable(self) -> bool:
        return self.shared_span >= self.threshold


def rewrite_check(text: str, *, raw_text: str, cleaned_text: str, ner=None) -> RewriteCheck:
    """Mask the personal data in `text` and measure what it still shares with the original."""
    masked = personal_data.mask_text(text.strip(), ner=ner if ner is not None else _recogniser())
    return RewriteCheck(text=masked.text, personal_data=masked.counts,
                        shared_span=release_span(masked.text, raw_text=raw_text, cleaned_text=cleaned_text),
                        threshold=max_shared_span_setting())


def unmasked_personal_data(text: str) -> dict[str, int]:
    """Personal data still in a text (kind -> count); placeholders are not personal data."""
    return personal_data.mask_text(text, ner=_recogniser()).counts
