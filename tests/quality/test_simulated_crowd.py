"""Issue 12's simulated crowd: six annotators of known quality score generated posts. The quality
figures must rank them in that order, the alerts must fire for the random clicker and the speeder
(and not the careful one), and the model-based aggregate must recover the true scores more often
than the project's rounded mean."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.adjudication import rounded_mean
from annotation.quality.aggregation import aggregate_dimensions, rounded_mean_labels
from annotation.quality.metrics import AlertKind, annotator_quality, rating_matrices
from annotation.quality.simulation import CROWD, simulate_crowd

DESIGNED_ORDER = [a.name for a in CROWD]  # best first, by construction


@pytest.fixture(scope="module", params=[0, 1], ids=["seed0", "seed1"])
def crowd_run(request):
    crowd = simulate_crowd(1500, gold_fraction=0.1, seed=request.param)
    report = annotator_quality(crowd.log, crowd.gold)
    annotators, items, matrices = rating_matrices(crowd.log, exclude_items=crowd.gold.item)
    return crowd, report, annotators, items, matrices, aggregate_dimensions(matrices)


def _names(crowd, ids):
    return [crowd.annotators[i].name for i in ids]


def test_the_simulation_has_the_designed_quality_order(crowd_run):
    """Sanity of the test itself: against the full truth, the designed order holds."""
    crowd = crowd_run[0]
    log = crowd.log
    true_error = [np.abs(log.scores[log.annotator == a] - crowd.truth[log.item[log.annotator == a]]).mean()
                  for a in range(len(crowd.annotators))]
    assert _names(crowd, np.argsort(true_error)) == DESIGNED_ORDER


def test_gold_figures_rank_the_crowd_correctly(crowd_run):
    crowd, report = crowd_run[:2]
    assert _names(crowd, report.ranking) == DESIGNED_ORDER
    # Every annotator saw every gold post on every dimension, and the counts say so.
    assert (report.gold.n == len(crowd.gold.item)).all()
    careful, random = report.gold.within_one[0], report.gold.within_one[-1]
    assert (careful == 1.0).all() and (random < 0.7).all()  # one-off slips only vs a uniform clicker


def test_model_reliability_ranks_the_crowd_correctly_without_gold(crowd_run):
    crowd, _, annotators, _, _, aggregates = crowd_run
    expected_error = np.mean([agg.annotators.expected_abs_error for agg in aggregates.values()], axis=0)
    assert _names(crowd, annotators[np.argsort(expected_error)]) == DESIGNED_ORDER
    biased = DESIGNED_ORDER.index("biased_up")
    for agg in aggregates.values():
        assert agg.annotators.bias[biased] == pytest.approx(1.0, abs=0.2)
        assert agg.annotators.spam_rate[DESIGNED_ORDER.index("random")] > 0.7
        assert np.argmax(agg.annotators.spam_choices[DESIGNED_ORDER.index("speeder")]) == 0  # straight-lines 1


def test_alerts_fire_for_the_random_clicker_and_the_speeder_not_the_careful_one(crowd_run):
    crowd, report = crowd_run[:2]
    fired = {(crowd.annotators[a.annotator].name, a.kind) for a in report.alerts}
    assert ("random", AlertKind.LOW_AGREEMENT) in fired
    assert ("speeder", AlertKind.SPEEDING) in fired
    assert ("drifting", AlertKind.GOLD_ERROR_RISING) in fired
    assert not {name for name, _ in fired} & {"careful", "competent"}
    speeding = [a for a in report.alerts if a.kind is AlertKind.SPEEDING]
    assert [crowd.annotators[a.annotator].name for a in speeding] == ["speeder"]
    assert speeding[0].value < speeding[0].threshold and speeding[0].since < speeding[0].until


def test_aggregate_recovers_true_scores_more_often_than_the_rounded_mean(crowd_run):
    crowd, _, _, items, matrices, aggregates = crowd_run
    truth = crowd.truth[items]
    for d, dimension in enumerate(crowd.log.dimensions):
        matrix = matrices[dimension]
        # The project's own helper, post by post (half-up rounding of the mean).
        project_rounded = np.array([rounded_mean([None if np.isnan(v) else int(v) for v in column])
                                    for column in matrix.T], dtype=float)
        np.testing.assert_array_equal(rounded_mean_labels(matrix), project_rounded)
        model_accuracy = float((aggregates[dimension].label == truth[:, d]).mean())
        rounded_accuracy = float((project_rounded == truth[:, d]).mean())
        print(f"{dimension}: aggregate {model_accuracy:.3f}, rounded mean {rounded_accuracy:.3f}")
        assert model_accuracy > rounded_accuracy + 0.1
        # Confidence means something: wrong labels are rarer among confident posts.
        agg = aggregates[dimension]
        confident = agg.confidence >= 0.9
        assert (agg.label[confident] == truth[confident, d]).mean() > (agg.label[~confident] == truth[~confident, d]).mean()


def test_gold_posts_are_left_out_of_the_aggregate_and_agreement(crowd_run):
    crowd, report, _, items, _, _ = crowd_run
    assert not np.isin(items, crowd.gold.item).any()
    assert len(items) == len(crowd.truth) - len(crowd.gold.item)


def test_a_steadily_biased_annotator_is_alerted_on_every_dimension(crowd_run):
    """Issue 20: the biased annotator (+1 on everything, from the first post) never *rises*, so the
    rising-gold-error rule caught them on one dimension of three at most. A gold error and a
    model-estimated bias that stay high are alerts of their own, on every dimension they apply to."""
    from annotation.quality.metrics import AlertKind, annotator_quality

    crowd, _, annotators, _, _, aggregates = crowd_run
    # The model's bias per annotator and dimension, as a quality run hands it to the report.
    model_bias = {int(a): {d: (float(aggregates[d].annotators.bias[j]), int(aggregates[d].annotators.n_judgments[j]))
                           for d in crowd.log.dimensions} for j, a in enumerate(annotators)}
    report = annotator_quality(crowd.log, crowd.gold, model_bias=model_bias)
    by_name: dict[str, set] = {}
    for alert in report.alerts:
        by_name.setdefault(crowd.annotators[alert.annotator].name, set()).add((alert.kind, alert.dimension))
    every = set(crowd.log.dimensions)
    assert {d for kind, d in by_name["biased_up"] if kind is AlertKind.GOLD_ERROR_HIGH} == every
    assert {d for kind, d in by_name["biased_up"] if kind is AlertKind.BIASED} == every
    assert not by_name.keys() & {"careful", "competent"}
    biased_alerts = [a for a in report.alerts if a.kind is AlertKind.BIASED]
    assert {crowd.annotators[a.annotator].name for a in biased_alerts} == {"biased_up"}
    assert all(a.value >= a.threshold and a.since < a.until for a in biased_alerts)
    high = [a for a in report.alerts if a.kind is AlertKind.GOLD_ERROR_HIGH and a.annotator == 3]
    assert all(a.value >= a.threshold for a in high)
