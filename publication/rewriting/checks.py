"""The checks every text meant for publication passes, on the page, at import and at release:
personal data masked (publication/personal_data/, the import's detector), then its longest exact
span shared with the original post (publication/spans.py). On the page and at import, a rewrite that
keeps five or more digits in a row of personal data found in the original is refused."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from .. import personal_data
from ..spans import longest_shared_span_any, max_shared_span_setting, shared_segments

# Placeholders are where personal data was, not text of the post: a run of characters never
# continues through one (a kept `[手机号]` does not make a rewrite searchable). The text's
# placeholders and the original's become two different private-use characters.
PLACEHOLDER_PATTERN = re.compile("|".join(re.escape(p) for p in personal_data.PLACEHOLDERS.values()))
TEXT_BREAK, ORIGINAL_BREAK = "\ue000", "\ue001"


def _recogniser():
    """The named-entity recogniser the import uses, when a group configured one."""
    try:
        from ..personal_data.services import personal_data_recogniser
    except ImportError:  # pragma: no cover - the import's services not installed
        return None
    return personal_data_recogniser()


def release_span(text: str, *, raw_text: str, cleaned_text: str) -> int:
    """The longest span `text` shares with the post as imported or as cleaned (and masked)."""
    return longest_shared_span_any(PLACEHOLDER_PATTERN.sub(TEXT_BREAK, text),
                                   (PLACEHOLDER_PATTERN.sub(ORIGINAL_BREAK, raw_text),
                                    PLACEHOLDER_PATTERN.sub(ORIGINAL_BREAK, cleaned_text)))


def highlight_segments(text: str, *, original: str, min_length: int = 5) -> tuple[int, list[tuple[int, int, int]]]:
    """For the rewrite page as one types: the longest span `text` shares with `original` (the
    post's masked text; the raw text is never measured here, so the page cannot probe it) and the
    runs of `min_length` or more, as (start, end, length) in characters of `text`. The same measure
    as release_span: placeholders break runs (each is replaced by as many break characters, so
    offsets stay those of `text`)."""
    broken = PLACEHOLDER_PATTERN.sub(lambda m: TEXT_BREAK * len(m.group()), text)
    original = PLACEHOLDER_PATTERN.sub(ORIGINAL_BREAK, original)
    segments = shared_segments(broken, original, min_length=1)
    longest = max((n for _s, _e, n in segments), default=0)
    return longest, [seg for seg in segments if seg[2] >= min_length]


# Five digits in a row of a number found in the original (a QQ or phone number) kept in a rewrite
# are refused: the detector needs the whole number, often with its cue, to find it again.
KEPT_DIGITS = 5
# Digits separated only by these stay "in a row" (1234 5, 12-345, 1.2.3.4.5).
_DIGIT_RUN = re.compile(r"\d(?:[\s\-‐–—.·_/]*\d)*", re.ASCII)


def _digit_runs(text: str) -> list[str]:
    """The runs of digits of `text` (NFKC: full-width digits read as ASCII), separators dropped."""
    return [re.sub(r"\D", "", run) for run in _DIGIT_RUN.findall(unicodedata.normalize("NFKC", text or ""))]


def kept_personal_digits(text: str, *, raw_text: str) -> str | None:
    """The kind of the first piece of personal data found in the original (`raw_text`, the post as
    imported) of which `text` keeps KEPT_DIGITS or more digits in a row; None when it keeps none."""
    runs = [run for run in _digit_runs(text) if len(run) >= KEPT_DIGITS]
    if not runs or not raw_text:
        return None
    for finding in personal_data.mask_post(raw_text).findings:
        digits = "".join(_digit_runs(finding.value))
        grams = {digits[i:i + KEPT_DIGITS] for i in range(len(digits) - KEPT_DIGITS + 1)}
        if grams and any(run[i:i + KEPT_DIGITS] in grams for run in runs for i in range(len(run) - KEPT_DIGITS + 1)):
            return finding.kind
    return None


def kept_digits_message(kind: str) -> str:
    return (_("The rewrite keeps five or more digits in a row of personal data in the original post (%(placeholder)s): "
              "leave the number out or write its placeholder.") % {"placeholder": personal_data.PLACEHOLDERS[kind]})


@dataclass
class RewriteCheck:
    text: str  # masked
    personal_data: dict[str, int] = field(default_factory=dict)
    shared_span: int = 0
    threshold: int = 15
    kept_digits: str | None = None  # the kind of personal data of the original whose digits it keeps

    @property
    def searchable(self) -> bool:
        return self.shared_span >= self.threshold


def rewrite_check(text: str, *, raw_text: str, cleaned_text: str, ner=None) -> RewriteCheck:
    """Mask the personal data in `text` and measure what it still shares with the original (its
    longest span, and whether it keeps five digits in a row of the original's personal data)."""
    masked = personal_data.mask_text(text.strip(), ner=ner if ner is not None else _recogniser())
    return RewriteCheck(text=masked.text, personal_data=masked.counts,
                        shared_span=release_span(masked.text, raw_text=raw_text, cleaned_text=cleaned_text),
                        threshold=max_shared_span_setting(),
                        kept_digits=kept_personal_digits(masked.text, raw_text=raw_text))


def unmasked_personal_data(text: str) -> dict[str, int]:
    """Personal data still in a text (kind -> count); placeholders are not personal data."""
    return personal_data.mask_text(text, ner=_recogniser()).counts
