"""Re-identification risk: how long an exact run of characters a text shares with the original post.

A verbatim Weibo post can be found with a search engine from a short exact quote, so a text meant
for publication is compared with the post it came from. Both are normalised first as a search engine
sees them (publication/personal_data/normalise.py `fold_for_search`): NFKC width folding, traditional
-> simplified, lower case, and every invisible or format character, emoji, symbol, punctuation mark
and whitespace dropped. So zero-width characters, an emoji or `·` every few characters, `。`->`.`,
dropped punctuation or traditional characters do not make a copied sentence look different. The
span length is counted in normalised characters; spans are reported in characters of the text. A text whose longest shared span reaches `RELEASE_MAX_SHARED_SPAN` (default 15, about
what a search engine needs) is *searchable*.

The computation is the text's matching statistics against the original: for each position j of
the text, the length of the longest run ending at j that also occurs in the original. Because that
length grows by at most one from one position to the next, a sliding window finds all of them with
at most 2 x len(text) substring searches, each done by CPython's fast search in C - an order of
magnitude faster in CPython than walking a suffix automaton built in Python, and linear in
practice for posts of a few hundred characters. Pure Python; no Django (the threshold is read
from the settings only by `max_shared_span_setting`).
"""
from __future__ import annotations

from dataclasses import dataclass

from .personal_data.normalise import fold_for_search

DEFAULT_MAX_SHARED_SPAN = 15
# Span-length buckets a release reports (lower bounds; the last one is open).
SPAN_BUCKETS = (0, 5, 10, 15, 20, 30, 50)


def normalise(text: str) -> str:
    """The text as spans are measured on."""
    return fold_for_search(text).text


def normalise_with_positions(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the index in `text` it came from."""
    folded = fold_for_search(text)
    return folded.text, [folded.origin(i) for i in range(len(folded.text))]


def matching_lengths(text: str, original: str) -> list[int]:
    """For each position j of `text` (both already normalised), the length of the longest
    substring of `text` ending at j that occurs in `original`."""
    lengths = [0] * len(text)
    current = 0
    for j in range(len(text)):
        current += 1
        # Invariant: text[j-current+1 : j] occurs in original (it did at j-1), so only shrink.
        while current and text[j - current + 1:j + 1] not in original:
            current -= 1
        lengths[j] = current
    return lengths


def longest_normalised(text: str, original: str) -> int:
    """The longest common substring of two normalised texts (0 when they share no character)."""
    if text in original:  # an unchanged (or shortened) text: every release of original posts
        return len(text)
    best = 0
    for j in range(len(text)):
        # A run longer than `best` ending at j exists iff the one of length best+1 does.
        while best <= j and text[j - best:j + 1] in original:
            best += 1
    return best


def longest_shared_span(text: str, original: str) -> int:
    """The longest exact span, in normalised characters, that `text` shares with `original`."""
    return longest_normalised(normalise(text), normalise(original))


def longest_shared_span_any(text: str, originals: list[str] | tuple[str, ...]) -> int:
    """The longest span `text` shares with any of several forms of the original (raw, cleaned)."""
    folded = normalise(text)
    return max((longest_normalised(folded, o) for o in {normalise(o) for o in originals if o}), default=0)


def shared_segments(text: str, original: str, *, min_length: int = 1) -> list[tuple[int, int, int]]:
    """The parts of `text` covered by a span of at least `min_length` normalised characters that it
    shares with `original`: merged (start, end, longest span covering it) in indices of `text`
    itself (end exclusive), for highlighting."""
    folded = fold_for_search(text)
    lengths = matching_lengths(folded.text, normalise(original))
    segments: list[list[int]] = []
    for j, length in enumerate(lengths):
        if length < max(min_length, 1):
            continue
        start, end = folded.span(j - length + 1, j + 1)
        if segments and start <= segments[-1][1]:
            segments[-1][1] = max(segments[-1][1], end)
            segments[-1][2] = max(segments[-1][2], length)
        else:
            segments.append([start, end, length])
    return [(s, e, n) for s, e, n in segments]


def span_bucket(length: int) -> str:
    """The report bucket of a span length: "0-4", "5-9", ..., "50+"."""
    for low, high in zip(SPAN_BUCKETS, SPAN_BUCKETS[1:]):
        if length < high:
            return f"{low}-{high - 1}"
    return f"{SPAN_BUCKETS[-1]}+"


def bucket_names() -> list[str]:
    return [span_bucket(low) for low in SPAN_BUCKETS]


@dataclass(frozen=True)
class SpanReport:
    """What a release says about its texts: how many are searchable, and the distribution of their
    longest shared spans."""

    threshold: int
    posts: int
    searchable: int
    distribution: dict[str, int]
    longest: int

    def as_dict(self) -> dict:
        return {"threshold": self.threshold, "posts": self.posts, "searchable": self.searchable,
                "distribution": self.distribution, "longest": self.longest}


def span_report(lengths: list[int], threshold: int) -> SpanReport:
    distribution = dict.fromkeys(bucket_names(), 0)
    for length in lengths:
        distribution[span_bucket(length)] += 1
    return SpanReport(threshold=threshold, posts=len(lengths), searchable=sum(n >= threshold for n in lengths),
                      distribution=distribution, longest=max(lengths, default=0))


def max_shared_span_setting() -> int:
    """`RELEASE_MAX_SHARED_SPAN`: a span this long or longer makes a text searchable."""
    from django.conf import settings

    return int(getattr(settings, "RELEASE_MAX_SHARED_SPAN", DEFAULT_MAX_SHARED_SPAN))


def is_searchable(length: int, threshold: int | None = None) -> bool:
    return length >= (max_shared_span_setting() if threshold is None else threshold)
