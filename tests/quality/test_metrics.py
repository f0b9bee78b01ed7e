"""Per-annotator quality figures and the alert rules, checked against plain loops, the project's
own agreement and rounding code, and the krippendorff package."""
from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.adjudication import round_half_up
from annotation.agreement.mathematics import rater_vs_rest
from annotation.quality import SCORES
from annotation.quality.metrics import (
    AlertKind,
    AlertThresholds,
    GoldSet,
    JudgmentLog,
    annotator_quality,
    gold_error_rising,
    gold_error_series,
    gold_figures,
    low_agreement,
    rank_annotators,
    rating_matrices,
    rest_rounded_mean,
    rolling_alpha,
    seconds_series,
    speeding,
)

DIMS = ("explicit", "implicit", "emotional")
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def logs(draw, max_annotators=5, max_posts=30):
    """Each annotator scores a subset of the posts (once each), some cells missing."""
    n_annotators = draw(st.integers(1, max_annotators))
    n_posts = draw(st.integers(1, max_posts))
    rows = []
    for annotator in range(n_annotators):
        posts = draw(st.lists(st.integers(0, n_posts - 1), unique=True, max_size=n_posts))
        for post in posts:
            scores = [draw(st.sampled_from([*SCORES, None])) for _ in DIMS]
            rows.append((annotator * 7 + 3, post * 11, scores, draw(st.floats(0, 60)), draw(st.floats(0, 1e6))))
    if not rows:
        rows.append((3, 0, [1, 2, 3], 10.0, 0.0))
    annotators, items, scores, seconds, times = zip(*rows)
    return JudgmentLog(annotator=np.array(annotators), item=np.array(items),
                       scores=np.array([[np.nan if v is None else v for v in s] for s in scores], dtype=float),
                       seconds=np.array(seconds), time=np.array(times), dimensions=DIMS)


def _gold_for(log, data):
    items = np.unique(log.item)
    chosen = data.draw(st.lists(st.sampled_from(items.tolist()), unique=True, max_size=len(items)))
    scores = [[data.draw(st.sampled_from(SCORES)) for _ in DIMS] for _ in chosen]
    return GoldSet(np.array(chosen, dtype=int), np.array(scores, dtype=float).reshape(len(chosen), len(DIMS)))


@FAST
@given(logs(), st.data())
def test_gold_figures_match_a_plain_loop(log, data):
    gold = _gold_for(log, data)
    figures = gold_figures(log, gold)
    truth = {int(i): s for i, s in zip(gold.item, gold.scores)}
    for a_pos, annotator in enumerate(figures.annotators):
        for d in range(len(DIMS)):
            errors = [abs(s[d] - truth[int(i)][d]) for a, i, s in zip(log.annotator, log.item, log.scores)
                      if a == annotator and int(i) in truth and not np.isnan(s[d])]
            assert figures.n[a_pos, d] == len(errors)
            if errors:
                assert figures.mae[a_pos, d] == pytest.approx(np.mean(errors))
                assert figures.within_one[a_pos, d] == pytest.approx(np.mean([e <= 1 for e in errors]))
            else:
                assert np.isnan(figures.mae[a_pos, d]) and np.isnan(figures.within_one[a_pos, d])


@FAST
@given(logs())
def test_rest_mean_is_the_others_mean_rounded_half_up(log):
    rest = rest_rounded_mean(log)
    for row in range(len(log.item)):
        for d in range(len(DIMS)):
            others = [log.scores[r, d] for r in range(len(log.item))
                      if log.item[r] == log.item[row] and r != row and not np.isnan(log.scores[r, d])]
            if not others:
                assert np.isnan(rest[row, d])
            else:
                assert rest[row, d] == round_half_up(sum(others) / len(others))


@FAST
@given(logs(max_annotators=4, max_posts=40))
def test_alpha_over_a_window_covering_everything_is_the_dashboards_rater_vs_rest(log):
    annotators, _, matrices = rating_matrices(log)
    series = {(s.annotator, s.dimension): s for s in rolling_alpha(log, window=10_000, min_pairs=1)}
    for d in DIMS:
        expected = rater_vs_rest(matrices[d])
        for a_pos, annotator in enumerate(annotators):
            value = series[(int(annotator), d)].value
            assert len(value) == 1
            if expected[a_pos] is None:
                assert math.isnan(value[0])
            else:
                assert value[0] == pytest.approx(expected[a_pos])


def _perfect_log(n_posts=200, n_annotators=3, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, (n_posts, len(DIMS))).astype(float)
    return JudgmentLog(annotator=np.repeat(np.arange(n_annotators), n_posts), item=np.tile(np.arange(n_posts), n_annotators),
                       scores=np.tile(truth, (n_annotators, 1)), seconds=np.full(n_posts * n_annotators, 20.0),
                       time=np.tile(np.arange(n_posts, dtype=float), n_annotators), dimensions=DIMS), truth


def test_rolling_alpha_windows_and_values():
    log, truth = _perfect_log()
    series = rolling_alpha(log, window=50, step=25)
    assert len(series) == 3 * len(DIMS)
    for s in series:
        np.testing.assert_array_equal(s.time, [49, 74, 99, 124, 149, 174, 199])  # last judgment of each window
        np.testing.assert_allclose(s.value, 1.0)
    # Annotator 0 turns random for the last 50 posts: only the windows that reach them drop.
    rng = np.random.default_rng(1)
    scores = log.scores.copy()
    scores[150:200] = rng.integers(1, 6, (50, len(DIMS)))
    noisy = JudgmentLog(log.annotator, log.item, scores, log.seconds, log.time, DIMS)
    first = next(s for s in rolling_alpha(noisy, window=50, step=25) if s.annotator == 0 and s.dimension == "explicit")
    np.testing.assert_allclose(first.value[:5], 1.0)
    assert first.value[-1] < 0.5
    window = slice(150, 200)
    pair = np.vstack([scores[window, 0], truth[window, 0]])  # the rest (two perfect annotators) = truth
    assert first.value[-1] == pytest.approx(krippendorff.alpha(reliability_data=pair, level_of_measurement="ordinal",
                                                               value_domain=list(SCORES)))


def test_alpha_is_undefined_with_too_few_pairs_or_one_value():
    log, _ = _perfect_log(n_posts=10)
    assert all(np.isnan(s.value).all() for s in rolling_alpha(log, window=100, min_pairs=30))
    same = JudgmentLog(log.annotator, log.item, np.full_like(log.scores, 2.0), log.seconds, log.time, DIMS)
    assert all(np.isnan(s.value).all() for s in rolling_alpha(same, window=100, min_pairs=2))


@FAST
@given(logs(), st.data())
def test_gold_posts_never_count_toward_agreement(log, data):
    gold = _gold_for(log, data)
    changed = log.scores.copy()
    on_gold = np.isin(log.item, gold.item)
    changed[on_gold] = data.draw(st.sampled_from(SCORES))
    other = JudgmentLog(log.annotator, log.item, changed, log.seconds, log.time, DIMS)
    for before, after in zip(rolling_alpha(log, min_pairs=2, exclude_items=gold.item),
                             rolling_alpha(other, min_pairs=2, exclude_items=gold.item)):
        np.testing.assert_array_equal(before.value, after.value)
    _, items, _ = rating_matrices(log, exclude_items=gold.item)
    assert not np.isin(items, gold.item).any()


def test_gold_error_series_is_a_trailing_mean():
    log, truth = _perfect_log(n_posts=30, n_annotators=1)
    scores = log.scores.copy()
    scores[20:, 0] = np.where(truth[20:, 0] <= 3, truth[20:, 0] + 2, truth[20:, 0] - 2)  # off by 2 from post 21
    log = JudgmentLog(log.annotator, log.item, scores, log.seconds, log.time, DIMS)
    gold = GoldSet(np.arange(30), truth)
    explicit = next(s for s in gold_error_series(log, gold, window=5) if s.dimension == "explicit")
    np.testing.assert_allclose(explicit.value[:20], 0.0)
    np.testing.assert_allclose(explicit.value[20:25], [0.4, 0.8, 1.2, 1.6, 2.0])
    np.testing.assert_allclose(explicit.value[25:], 2.0)


def test_rank_puts_lower_error_first_and_annotators_without_gold_last():
    figures = gold_figures(*_three_annotators_with_gold())
    assert rank_annotators(figures) == [2, 1, 3]


def _three_annotators_with_gold():
    truth = np.array([[1.0, 1.0, 1.0], [3.0, 3.0, 3.0]])
    log = JudgmentLog(annotator=[1, 1, 2, 2, 3], item=[0, 1, 0, 1, 9], scores=[[2, 2, 2], [3, 3, 3], [1, 1, 1],
                                                                               [3, 3, 3], [5, 5, 5]],
                      seconds=[10] * 5, time=[0, 1, 0, 1, 0], dimensions=DIMS)
    return log, GoldSet(np.array([0, 1]), truth)


# --- alert rules ------------------------------------------------------------------------------

def test_low_agreement_rule():
    assert low_agreement(0.2) and low_agreement(0.49)
    assert not low_agreement(0.5) and not low_agreement(0.9)
    assert not low_agreement(math.nan)  # undefined is not low
    assert low_agreement(0.6, threshold=0.7) and not low_agreement(0.2, threshold=0.1)


def test_speeding_rule():
    assert speeding(np.full(30, 3.0))
    assert not speeding(np.full(30, 8.0))
    assert not speeding(np.full(10, 3.0))  # too few to judge
    assert not speeding(np.r_[np.full(100, 0.0), np.full(30, 12.0)])  # 0 = not measured (imported), ignored
    assert speeding(np.r_[np.full(100, 30.0), np.full(50, 2.0)])  # only the last window counts
    assert not speeding(np.full(30, 6.0), floor=5.0) and speeding(np.full(30, 6.0), floor=10.0)


@FAST
@given(st.lists(st.floats(0.1, 120), min_size=0, max_size=120), st.floats(1.01, 10))
def test_slowing_down_never_raises_a_speeding_alert(seconds, factor):
    seconds = np.array(seconds)
    assert speeding(seconds * factor) <= speeding(seconds)


def test_gold_error_rising_rule():
    careful, drifted = np.zeros(30), np.ones(10)
    assert gold_error_rising(np.r_[careful, drifted])
    assert not gold_error_rising(np.r_[careful, np.zeros(10)])
    assert not gold_error_rising(np.r_[np.ones(30), drifted])  # always that bad: not *rising*
    assert not gold_error_rising(np.r_[np.zeros(5), drifted])  # not enough history
    assert gold_error_rising(np.r_[np.zeros(5), drifted], window=10, baseline=5)
    assert not gold_error_rising(np.r_[careful, drifted], rise=1.5)
    # A noisy annotator's unlucky streak is not enough: the rise must be clear of its standard error.
    noisy_start = np.array([0, 3, 0, 3, 0, 3, 0, 3, 0, 3], dtype=float)
    noisy_recent = np.array([0, 4, 1, 3, 0, 4, 0, 4, 1, 4], dtype=float)
    assert noisy_recent.mean() - noisy_start.mean() >= 0.5
    assert not gold_error_rising(np.r_[noisy_start, noisy_recent], window=10, baseline=10)
    assert gold_error_rising(np.r_[noisy_start, noisy_recent], window=10, baseline=10, min_z=0.0)


def test_report_alerts_carry_values_thresholds_and_the_window():
    log, truth = _perfect_log(n_posts=300, n_annotators=4)
    rng = np.random.default_rng(5)
    scores, seconds = log.scores.copy(), log.seconds.copy()
    random_rows = log.annotator == 3
    scores[random_rows] = rng.integers(1, 6, (random_rows.sum(), len(DIMS)))
    seconds[log.annotator == 2] = 2.0
    log = JudgmentLog(log.annotator, log.item, scores, seconds, log.time, DIMS)
    gold = GoldSet(np.arange(0, 300, 10), truth[::10])
    report = annotator_quality(log, gold, thresholds=AlertThresholds(seconds_floor=4.0))
    kinds = {(a.annotator, a.kind) for a in report.alerts}
    assert kinds == {(3, AlertKind.LOW_AGREEMENT), (2, AlertKind.SPEEDING)}
    speed = next(a for a in report.alerts if a.kind is AlertKind.SPEEDING)
    assert (speed.value, speed.threshold, speed.dimension) == (2.0, 4.0, None)
    assert (speed.since, speed.until) == (250.0, 299.0)  # the last 50 judgments
    low = [a for a in report.alerts if a.kind is AlertKind.LOW_AGREEMENT]
    assert {a.dimension for a in low} == set(DIMS) and all(a.value < a.threshold for a in low)
    np.testing.assert_array_equal(report.n_judgments, [300] * 4)
    assert report.ranking[-1] == 3
    # The three identical careful annotators agree with a rest that includes the random one.
    assert (report.recent_alpha[:3] > 0.5).all() and (report.recent_alpha[:3] == report.recent_alpha[0]).all()
    np.testing.assert_allclose(report.recent_median_seconds, [20.0, 20.0, 2.0, 20.0])
    assert all(len(s.value) for s in report.seconds_series)


def test_seconds_series_is_a_rolling_median_of_measured_time():
    log, _ = _perfect_log(n_posts=100, n_annotators=1)
    seconds = np.r_[np.full(50, 30.0), np.full(50, 3.0)]
    seconds[::10] = 0.0  # not measured
    log = JudgmentLog(log.annotator, log.item, log.scores, seconds, log.time, DIMS)
    (series,) = seconds_series(log, window=20, step=10)
    assert series.value[0] == 30.0 and series.value[-1] == 3.0
    assert series.time[-1] == 99.0


def test_log_refuses_bad_shapes_and_scores():
    with pytest.raises(ValueError):
        JudgmentLog([1, 2], [1], [[1, 1, 1]], [1], [1], DIMS)
    with pytest.raises(ValueError):
        JudgmentLog([1], [1], [[0, 1, 1]], [1], [1], DIMS)
    with pytest.raises(ValueError):
        GoldSet([1, 1], [[1, 1, 1], [2, 2, 2]])
