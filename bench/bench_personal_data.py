"""Personal-data detection on 8,120 posts (issue 21: <= 2 s): `mask_post` (the import's cleaning with
every rule, in two passes) and the bare `find_personal_data`, best of three. Posts are the ChLGBT
sample's texts when ../shared is present, repeated to 8,120, else generated posts with planted
personal data (tests/publication/personal_data_generator.py). Also precision and recall per kind on
a generated set of 4,000 posts (the table in docs/personal_data.md) and what the rules find in the
sample (counts only: no text of it is printed). With --import, also the whole import of 8,120
generated posts with planted personal data into a fresh SQLite database (issue 21's masking inside
the "import 8,120 posts <= 5 s" target).

    python bench/bench_personal_data.py [--import]
"""
from __future__ import annotations

import argparse
import csv
import json
import time
from collections import Counter

from common import ROOT, SAMPLE, setup_django, timer

from publication.personal_data import find_personal_data, mask_post
from tests.publication.personal_data_generator import generate_posts, score_detection

N = 8120


def posts() -> tuple[list[str], str]:
    if SAMPLE.exists():
        with open(SAMPLE, encoding="utf-8-sig", newline="") as fh:
            texts = [row[0] for row in csv.reader(fh) if row and not row[0].startswith("#") and row[0] != "Sentences"]
        return [texts[i % len(texts)] for i in range(N)], f"ChLGBT sample ({len(texts)} posts, repeated)"
    return [p.text for p in generate_posts(N, seed=11)], "generated"


def best_of(runs: int, fn, texts: list[str]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        for text in texts:
            fn(text)
        best = min(best, time.perf_counter() - start)
    return best


def import_seconds() -> dict:
    setup_django(False, "chlgbt_bench_personal_data")
    from annotation.importing.services import import_posts
    from publication.personal_data.models import PersonalDataScan
    from tests.publication.personal_data_generator import posts_csv

    body = posts_csv(generate_posts(N, seed=13))
    with timer() as t:
        import_posts(body, batch_name="bench")
    return {"import_8120_s": round(t["seconds"], 3),
            "import_posts_with_personal_data": PersonalDataScan.objects.filter(total__gt=0).count()}


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--import", dest="with_import", action="store_true")
    args = parser.parse_args()
    texts, source = posts()
    generated = [p.text for p in generate_posts(N, seed=11)]
    for text in texts[:200]:
        mask_post(text)
    sample = generate_posts(4000, seed=5)
    ordinary = [(number, mask_post(post.text).text) for post in sample for number in post.ordinary]
    found = Counter(f.kind for text in dict.fromkeys(texts) for f in find_personal_data(text))
    result = {
        "posts": N, "source": source, "mean_chars": round(sum(map(len, texts)) / N, 1),
        "mask_post_s": round(best_of(3, mask_post, texts), 3),
        "find_personal_data_s": round(best_of(3, find_personal_data, texts), 3),
        "mask_post_generated_s": round(best_of(3, mask_post, generated), 3),
        "found_in_source": dict(found), "target_seconds": 2.0,
        "ordinary_numbers_intact": round(sum(number in text for number, text in ordinary) / len(ordinary), 4),
        "precision_recall": {kind: {k: round(v, 3) if isinstance(v, float) else v for k, v in s.items()}
                             for kind, s in score_detection(sample).items()},
    }
    if args.with_import:
        result.update(import_seconds())
    print(json.dumps(result, indent=1, ensure_ascii=False))
    (ROOT / "bench" / "bench_personal_data.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return result


if __name__ == "__main__":
    main()
