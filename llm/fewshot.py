"""Few-shot demonstrations (the paper's appendix, tab:few_shot_combined: 1, 5 and 10 shots): K posts
of the release's TRAINING split only - the test split is never passed in - stratified by label and
seeded. No Django here.

Stratified: the K places are shared among the classes of the stratifying dimension (explicit by
default) in proportion to their counts in the training split (largest remainder), and each class's
posts are drawn at random with the seed; the K shots are then put in a seeded random order."""
from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

PAPER_SHOTS = (1, 5, 10)
STRATIFY_BY = "explicit"


def allocate(counts: dict[int, int], k: int) -> dict[int, int]:
    """K places shared among classes in proportion to `counts` (largest remainder; ties to the
    larger class, then the lower label), never more than a class has."""
    total = sum(counts.values())
    if k > total:
        raise ValueError(f"{k} shots asked for, but the training split has only {total} posts")
    exact = {c: k * n / total for c, n in counts.items()}
    share = {c: int(v) for c, v in exact.items()}
    order = sorted(counts, key=lambda c: (-(exact[c] - share[c]), -counts[c], c))
    left = k - sum(share.values())
    for c in order:
        if left == 0:
            break
        if share[c] < counts[c]:
            share[c] += 1
            left -= 1
    return share


def shots_select(train_rows: Sequence[dict], k: int, seed: int, *, stratify_by: str = STRATIFY_BY) -> list[dict]:
    """K training rows (each with id, text and the three labels), stratified and seeded. The same
    rows, seed and K give the same shots in the same order."""
    if k <= 0:
        return []
    by_class: dict[int, list[dict]] = defaultdict(list)
    for row in sorted(train_rows, key=lambda r: r["id"]):
        by_class[int(row[stratify_by])].append(row)
    rng = random.Random(f"fewshot:{seed}:{k}")
    share = allocate({c: len(rows) for c, rows in by_class.items()}, k)
    chosen = [row for c in sorted(share) for row in rng.sample(by_class[c], share[c])]
    rng.shuffle(chosen)
    return chosen
