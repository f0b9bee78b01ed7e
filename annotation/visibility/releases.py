"""The visibility policy for what a release says beyond its data files (issue 30, hole 2): its diff
and label distributions on the admin page, and the data cards (DATACARD.md, README.md).

A release's `diff.json` is refused to someone with a hidden post when it names that post, but its
admin page showed the same `changed_ids` (a release key is computable from a post's text), and two
releases' data cards' label distributions then gave the hidden post's new label. So what a release
says of its data as a whole - its diff, its summary (label distributions, α) and its data cards - is
shown to `user` only when both its `diff.json` and its data (`release.jsonl`) may be served to them
(`release_refusal`): a card's distributions count every label of its data and differ from the
previous card's by exactly the diff's changes, so the card goes with the files it describes.

- `release_refusal(user, release)`: None, or why the release's diff, summary and cards are withheld.
- `release_file_refusal(user, release, name, data)`: the one decision for a downloaded release file:
  gold.csv's rule, the file's own content (file_refusal), and for a data card `release_refusal`."""
from __future__ import annotations

CARDS = frozenset({"DATACARD.md", "README.md"})
DESCRIBED_BY = ("diff.json", "release.jsonl")  # the files whose rule a release's card and admin page follow


def release_refusal(user, release) -> str | None:
    from . import UNREADABLE_FILE_MESSAGE, _may_hide, file_refusal

    if not _may_hide(user):
        return None
    from ..releases.selectors import release_file_bytes

    for name in DESCRIBED_BY:
        if name not in release.manifest:
            continue
        try:
            data = release_file_bytes(release, name)
        except Exception:  # missing or damaged: it cannot be checked, so nothing it describes is shown
            return str(UNREADABLE_FILE_MESSAGE)
        refusal = file_refusal(user, data)
        if refusal:
            return refusal
    return None


def release_file_refusal(user, release, name: str, data: bytes) -> str | None:
    from . import file_refusal, gold_file_refusal
    from ..quality.selectors import GOLD_FILE

    refusal = (gold_file_refusal(user) if name == GOLD_FILE else None) or file_refusal(user, data)
    if refusal is None and name in CARDS:
        refusal = release_refusal(user, release)
    return refusal
