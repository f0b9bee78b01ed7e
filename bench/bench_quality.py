"""Annotator quality figures and model-based aggregation for 8,120 posts x 6 annotators x 3
dimensions (issue 12, target <= 5 s), on the simulated crowd of annotation/quality/simulation.py:
8,120 dataset posts plus 5% gold posts mixed into every queue.

Times the pure core only (annotation/quality/, no database): gold figures, rolling alpha against
the rest, gold error and speed series, alerts, and the ordinal aggregation of every dimension.

    python bench/bench_quality.py [--repeat 3] [--compare]
    python bench/bench_quality.py --db [--postgres]

--compare also scores the aggregation against majority vote and a plain (nominal, full
confusion matrix) Dawid-Skene on crowds of different sparsity: docs/quality.md's table.
--db times the same work through the database, as the panel and a release do it: the crowd is
written to a fresh database (annotation/quality/simulated.py), then the panel's report
(`quality_report`: read every judgment and claim, figures, series, alerts) and an aggregation
run (`aggregation_run_now`: read, fit, store 8,120 aggregate labels, and the report with the
model's reliabilities - the whole job, so its time is the total).
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
    parser.add_argument("--compare", action="store_true", help="also compare aggregation methods (slow)")
    parser.add_argument("--db", action="store_true", help="through the database (SQLite unless --postgres)")
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    if args.db:
        return main_db(args)

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
    if args.compare:
        results["comparison"] = compare_methods()
    return results


def main_db(args) -> dict:
    database = common.setup_django(args.postgres, name="chlgbt_bench_quality")
    from annotation.quality import selectors, services
    from annotation.quality.simulated import crowd_load
    from annotation.quality.simulation import simulate_crowd
    from core.permissions import role_groups_ensure

    role_groups_ensure()
    crowd = simulate_crowd(N_POSTS + GOLD, gold_fraction=GOLD / (N_POSTS + GOLD), seed=0)
    start = time.perf_counter()
    crowd_load(crowd)
    loaded = time.perf_counter() - start
    best_report = best_aggregation = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        report = selectors.quality_report()
        best_report = min(best_report, time.perf_counter() - start)
        start = time.perf_counter()
        run = services.aggregation_run_now()
        best_aggregation = min(best_aggregation, time.perf_counter() - start)
    names = {}
    for row in report["annotators"]:
        names[row["id"]] = row["username"].removeprefix("sim-")
    results = {"database": database, "judgments": len(crowd.log.item), "load_s": round(loaded, 2),
               "panel_report_s": round(best_report, 3), "aggregation_run_s": round(best_aggregation, 3),
               # A quality run is the whole job: it reads, fits, stores the labels and computes the
               # report itself (services._aggregation_work), so it is the total, not the sum of the two.
               "total_s": round(best_aggregation, 3), "target_s": 5.0,
               "ranking": [names[r["id"]] for r in report["annotators"]],
               "alerts": sorted({f"{names[a['annotator']]}: {a['kind']}" for a in report["alerts"]}),
               "aggregate_agrees_with_rounded_mean": {d: v["agrees_with_rounded_mean"]
                                                      for d, v in run.summary["dimensions"].items()}}
    print(json.dumps(results, indent=1))
    return results


def compare_methods(repeats: int = 3, seed: int = 0) -> list[dict]:
    """Accuracy and MAE against the truth, one dimension (explicit), averaged over `repeats`
    crowds: every post gets 6 annotators drawn from a pool of the six simulated kinds."""
    from annotation.quality.aggregation import aggregate_ordinal, rounded_mean_labels
    from annotation.quality.simulation import CROWD, TRUE_SCORE_SHARES

    rng = np.random.default_rng(seed)
    rows = []
    for n_posts, pool in ((8120, 6), (8120, 60), (2000, 60), (500, 30), (300, 60)):
        scores: dict[str, list[tuple[float, float]]] = {}
        for _ in range(repeats):
            truth = rng.choice(5, n_posts, p=TRUE_SCORE_SHARES["explicit"]) + 1.0
            matrix = np.full((pool, n_posts), np.nan)
            assigned = np.array([rng.choice(pool, 6, replace=False) for _ in range(n_posts)])
            for j in range(pool):
                posts = np.flatnonzero((assigned == j).any(axis=1))
                if len(posts):
                    progress = np.arange(len(posts)) / len(posts)
                    matrix[j, posts] = CROWD[j % len(CROWD)].respond(truth[posts, None], progress, rng)[:, 0]
            labels = {"rounded_mean": rounded_mean_labels(matrix), "majority_vote": _majority_vote(matrix),
                      "dawid_skene_nominal": _dawid_skene_nominal(matrix),
                      "ordinal_model": aggregate_ordinal(matrix).label}
            for method, label in labels.items():
                scores.setdefault(method, []).append(((label == truth).mean(), np.abs(label - truth).mean()))
        row = {"posts": n_posts, "annotator_pool": pool, "judgments_per_annotator": 6 * n_posts // pool}
        row.update({m: {"accuracy": round(float(np.mean([a for a, _ in v])), 3),
                        "mae": round(float(np.mean([e for _, e in v])), 3)} for m, v in scores.items()})
        rows.append(row)
        print(json.dumps(row))
    return rows


def _majority_vote(matrix: np.ndarray) -> np.ndarray:
    counts = np.stack([(matrix == v).sum(axis=0) for v in range(1, 6)], axis=1)
    return counts.argmax(axis=1) + 1.0  # ties to the lower score


def _dawid_skene_nominal(matrix: np.ndarray, iterations: int = 100) -> np.ndarray:
    """Reference: Dawid & Skene (1979), a free 5x5 confusion matrix per annotator, majority-vote
    start, light smoothing: the classic model crowd-kit's DawidSkene implements."""
    observed = ~np.isnan(matrix)
    votes = np.zeros((*matrix.shape, 5))
    j, i = np.nonzero(observed)
    votes[j, i, (matrix[j, i] - 1).astype(int)] = 1
    posterior = votes.sum(axis=0) + 1e-9
    posterior /= posterior.sum(axis=1, keepdims=True)
    for _ in range(iterations):
        prior = posterior.mean(axis=0)
        confusion = np.einsum("iz,jik->jzk", posterior, votes) + 0.01
        confusion /= confusion.sum(axis=2, keepdims=True)
        log_post = np.log(prior) + np.einsum("jik,jzk->iz", votes, np.log(confusion))
        posterior = np.exp(log_post - log_post.max(axis=1, keepdims=True))
        posterior /= posterior.sum(axis=1, keepdims=True)
    return posterior.argmax(axis=1) + 1.0


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
