"""Span check for 8,120 rewrites (issue 21: <= 2 s): each rewrite's longest shared span with its
original post, raw and cleaned, as a public release computes it (publication/spans.py).

Originals are the ChLGBT sample's texts when ../shared is present (its lengths: mean 115, up to
4,760 characters), else long synthetic posts; rewrites are made from them the ways people rewrite:
a light edit (every 6th character changed, so spans of 5), clauses reordered with a copied run, and
a verbatim copy (the worst case for the search: every window matches).

    python bench/bench_spans.py
"""
from __future__ import annotations

import csv
import json
import random
import sys
import time

from common import SAMPLE, synthetic_posts

from annotation.importing.cleaning import clean_text
from publication.spans import longest_shared_span_any

N = 8120


def originals(rng: random.Random) -> list[str]:
    if SAMPLE.exists():
        with open(SAMPLE, encoding="utf-8-sig", newline="") as fh:
            texts = [row[0] for row in csv.reader(fh) if row and not row[0].startswith("#") and row[0] != "Sentences"]
        return [texts[i % len(texts)] for i in range(N)]
    short = synthetic_posts(N * 8)
    return ["".join(rng.sample(short, rng.randint(1, 12))) for _ in range(N)]


def rewrite(text: str, rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.6:
        return "".join("某" if i % 6 == 5 else c for i, c in enumerate(text))
    if kind < 0.9:
        parts = text.replace("！", "，").replace("。", "，").split("，")
        rng.shuffle(parts)
        return "；".join(p[::-1] if i % 2 else p for i, p in enumerate(parts))
    return text


def main() -> dict:
    rng = random.Random(0)
    posts = originals(rng)
    rewrites = [rewrite(t, rng) for t in posts]
    cleaned = [clean_text(t) for t in posts]
    start = time.perf_counter()
    lengths = [longest_shared_span_any(r, (t, c)) for r, t, c in zip(rewrites, posts, cleaned)]
    seconds = time.perf_counter() - start
    result = {"rewrites": N, "source": "ChLGBT sample" if SAMPLE.exists() else "synthetic",
              "mean_chars": round(sum(map(len, posts)) / N, 1), "seconds": round(seconds, 3),
              "searchable_at_15": sum(n >= 15 for n in lengths), "target_seconds": 2.0}
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    sys.exit(0 if main()["seconds"] <= 2.0 else 1)
