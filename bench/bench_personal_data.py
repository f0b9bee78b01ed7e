"""Personal-data detection on 8,120 posts (issue 21 / 29: <= 2 s without the name recogniser, <= 20 s
with the offline one on 2 cores): `mask_post` (the import's cleaning with every rule, in two passes),
the bare `find_personal_data`, best of three, and `mask_posts` with LAC (PERSONAL_DATA_NER=lac, the
import's batched path), once on the 8,120 posts and once on the distinct posts among them (LAC tags
a sentence once however often it occurs), with the load average before and after. Posts are the ChLGBT
sample's texts when ../shared is present, repeated to 8,120, else generated posts with planted
personal data (tests/publication/personal_data_generator.py). Also precision and recall per kind on
a generated set of 4,000 posts, recall per kind on posts written to evade filters
(tests/publication/written_forms.py, seed 0: the table in docs/personal_data.md) and what the rules find in the
sample (counts only: no text of it is printed). With --import, also the whole import of 8,120
generated posts with planted personal data into a fresh SQLite database (issue 21's masking inside
the "import 8,120 posts <= 5 s" target).

    python bench/bench_personal_data.py [--import]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import time
from collections import Counter

from common import ROOT, SAMPLE, setup_django, timer

from publication.personal_data import find_personal_data, mask_post, mask_posts
from publication.personal_data.detector import folded_for_entities
from publication.personal_data.ner import load_recogniser
from tests.publication.personal_data_generator import generate_posts, score_detection
from tests.publication.written_forms import score as score_written
from tests.publication.written_forms import written_posts

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


def cpu_of(fn, texts: list[str]) -> float:
    """CPU seconds of one run (this process, every thread): what a run takes on cores no one else uses."""
    start = time.process_time()
    fn(texts)
    return time.process_time() - start


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
        "mask_post_cpu_s": round(cpu_of(lambda ts: [mask_post(t) for t in ts], texts), 3),
        "find_personal_data_s": round(best_of(3, find_personal_data, texts), 3),
        "mask_post_generated_s": round(best_of(3, mask_post, generated), 3),
        "found_in_source": dict(found), "target_seconds": 2.0,
        "ordinary_numbers_intact": round(sum(number in text for number, text in ordinary) / len(ordinary), 4),
        "precision_recall": {kind: {k: round(v, 3) if isinstance(v, float) else v for k, v in s.items()}
                             for kind, s in score_detection(sample).items()},
    }
    written = written_posts(0)
    lac = load_recogniser("lac")
    entities = dict(zip((p.text for p in written), lac.entities_many([folded_for_entities(p.text) for p in written])))
    scored = score_written(written, lambda text: [(f.kind, f.start, f.end) for f in find_personal_data(text, entities=entities[text])])
    result["written_forms"] = {
        "posts": len(written), "planted": scored["planted"],
        "recall": {kind: round(r, 3) for kind, r in scored["recall"].items()},
        "ordinary": scored["ordinary"], "ordinary_altered": scored["ordinary_altered"],
        "names": scored["names"], "names_masked": scored["names_masked"],
        "public_figures": scored["public"], "public_figures_kept": scored["public_kept"]}
    mask_posts(texts[:200], ner=lac)  # warm
    result["load_average_1min_before_lac"] = round(os.getloadavg()[0], 2)
    lac.decoded = lac.pruned = 0
    start, cpu = time.perf_counter(), time.process_time()
    with_names = mask_posts(texts, ner=lac)
    result["mask_posts_lac_s"] = round(time.perf_counter() - start, 3)
    result["mask_posts_lac_cpu_s"] = round(time.process_time() - cpu, 3)
    result["load_average_1min"] = round(os.getloadavg()[0], 2)
    result["lac_threads"] = lac._threads
    result["lac_sentences_decoded"], result["lac_sentences_skipped"] = lac.decoded, lac.pruned
    # The sample repeats to 8,120 and a sentence is tagged once however often it occurs: the distinct
    # posts alone, scaled to 8,120, say what 8,120 posts that share no sentence would take.
    distinct = list(dict.fromkeys(texts))
    start, cpu = time.perf_counter(), time.process_time()
    mask_posts(distinct, ner=lac)
    result["mask_posts_lac_distinct_posts"] = len(distinct)
    result["mask_posts_lac_distinct_s"] = round(time.perf_counter() - start, 3)
    result["mask_posts_lac_distinct_cpu_s"] = round(time.process_time() - cpu, 3)
    result["mask_posts_lac_distinct_scaled_to_8120_s"] = round(result["mask_posts_lac_distinct_s"] * N / len(distinct), 3)
    result["load_average_1min_after_distinct"] = round(os.getloadavg()[0], 2)
    result["target_seconds_with_names"] = 20.0
    result["names_found_in_source"] = sum(r.counts.get("person", 0) for r in with_names[:len(set(texts))])
    if args.with_import:
        result.update(import_seconds())
    print(json.dumps(result, indent=1, ensure_ascii=False))
    (ROOT / "bench" / "bench_personal_data.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return result


if __name__ == "__main__":
    main()
