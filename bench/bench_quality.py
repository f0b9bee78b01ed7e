"""Annotator quality figures and model-based aggregation for 8,120 posts x 6 annotators x 3
dimensions (issue 12, target <= 5 s), on the simulated crowd of annotation/quality/simulation.py:
8,120 dataset posts plus 5% gold posts mixed into every queue.

Times the pure core only (annotation/quality/, no database): gold figures, rolling alpha against
the rest, gold error and speed series, alerts, and the ordinal aggregation of every dimension.

    python bench/bench_quality.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import time

import common  # noqa: F401 (puts the repository on sys.path)
import numpy as np

N_POSTS = 8120
GOLD = 406  # 5% of the dataset, on top of it


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is reported")
    args = parser.parse_args()

    from annotation.quality.aggregation import aggregate_dimensions, rounded_mean_labels
    from annotation.quality.metrics import annotator_quality, rating_matrices
    from annotation.quality.simulation import simulate_crowd

    crowd = simulate_crowd(N_POSTS + GOLD, gold_fraction=GOLD / (N_POSTS + GOLD), seed=0)
    best_figures = best_aggregation = best_total = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        report = annotator_quality(crowd.log, crowd.gold)
        figures_done = time.perf_counter()
        _, items, matrices = rating_matrices(crowd.log, exclude_items=crowd.gold.item)
        aggregates = aggregate_dimensions(matrices)
        done = time.perf_counter()
        best_figures = min(best_figures, figures_done - start)
        best_aggregation = min(best_aggregation, done - figures_done)
        best_total = min(best_total, done - start)

    truth = crowd.truth[items]
    accuracy = {}
    for d, dimension in enumerate(crowd.log.dimensions):
        accuracy[dimension] = {
            "aggregate": round(float((aggregates[dimension].label == truth[:, d]).mean()), 3),
            "rounded_mean": round(float((rounded_mean_labels(matrices[dimension]) == truth[:, d]).mean()), 3),
            "disagree_with_rounded_mean": int((aggregates[dimension].label
                                               != rounded_mean_labels(matrices[dimension])).sum()),
            "em_steps": aggregates[dimension].iterations,
        }
    results = {
        "posts": len(items), "gold_posts": len(crowd.gold.item), "annotators": len(crowd.annotators),
        "judgments": len(crowd.log.item), "quality_figures_s": round(best_figures, 3),
        "aggregation_s": round(best_aggregation, 3), "total_s": round(best_total, 3), "target_s": 5.0,
        "ranking": [crowd.annotators[a].name for a in report.ranking],
        "alerts": sorted({f"{crowd.annotators[a.annotator].name}: {a.kind}" for a in report.alerts}),
        "accuracy_vs_truth": accuracy,
    }
    print(json.dumps(results, indent=1))
    _figure(results)
    return results


def _figure(results: dict) -> None:
    """A text figure of where the time goes, against the target."""
    scale = 50 / max(results["target_s"], results["total_s"])
    for label, key in (("quality figures", "quality_figures_s"), ("aggregation", "aggregation_s"),
                       ("total", "total_s"), ("target", "target_s")):
        print(f"{label:>16} {'#' * max(1, round(results[key] * scale)):<50} {results[key]:.2f} s")
    print(f"aggregate accuracy {np.mean([v['aggregate'] for v in results['accuracy_vs_truth'].values()]):.3f} vs "
          f"rounded mean {np.mean([v['rounded_mean'] for v in results['accuracy_vs_truth'].values()]):.3f}")


if __name__ == "__main__":
    main()
