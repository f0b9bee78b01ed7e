"""Property tests (hypothesis) for the numerics behind the results page (llm/results.py): the figures,
the paired test and the marks."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from llm.results import Cell, mark_best, mark_for, paired_over_runs, summarise, weakest_mark

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
runs = st.lists(scores, min_size=1, max_size=8)


@given(runs)
def test_summarise_is_the_mean_and_sample_std(values):
    cell = summarise(values)
    assert cell.n == len(values) and math.isclose(cell.mean, float(np.mean(values)), abs_tol=1e-12)
    expected = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    assert math.isclose(cell.std, expected, abs_tol=1e-12)


@given(st.floats(min_value=0, max_value=1), st.booleans())
def test_marks_follow_the_levels_and_never_reward_a_worse_maam(p, better):
    mark = mark_for(p, better)
    if not better:
        assert mark == ""
    else:
        assert mark == ("**" if p < 0.01 else "*" if p < 0.05 else "")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(scores, scores), min_size=2, max_size=8))
def test_the_paired_test_is_scipys_and_antisymmetric(pairs):
    maam, llm = [a for a, _b in pairs], [b for _a, b in pairs]
    forward, backward = paired_over_runs(maam, llm), paired_over_runs(llm, maam)
    assert forward.n_pairs == len(pairs)
    diffs = np.subtract(maam, llm)
    if np.allclose(diffs, diffs[0]):  # no spread in the differences: nothing to test, never a mark
        assert forward.p is None and backward.p is None and forward.mark == backward.mark == ""
        return
    assert math.isclose(forward.mean_diff, -backward.mean_diff, abs_tol=1e-12)
    assert math.isclose(forward.p, backward.p, abs_tol=1e-9)
    assert 0.0 <= forward.p <= 1.0
    assert not (forward.mark and backward.mark)  # never both better
    assert math.isclose(forward.p, float(stats.ttest_rel(maam, llm).pvalue), rel_tol=1e-9, abs_tol=1e-12)


@given(runs, runs)
def test_unequal_runs_are_cut_to_the_shorter_and_one_pair_tests_nothing(maam, llm):
    test = paired_over_runs(maam, llm)
    assert test.n_pairs == min(len(maam), len(llm))
    if test.n_pairs < 2:
        assert test.p is None and test.mark == ""


@given(st.lists(st.sampled_from(["", "*", "**"]), max_size=6))
def test_maams_own_mark_needs_every_llm_and_takes_the_weakest(marks):
    mark = weakest_mark(marks)
    if not marks or "" in marks:
        assert mark == ""
    else:
        assert mark == ("*" if "*" in marks else "**")


@given(st.lists(st.lists(scores, min_size=1, max_size=3), min_size=1, max_size=5))
def test_bold_goes_to_the_highest_mean_of_each_column(columns_per_row):
    rows = [{"cells": {("d", "m"): summarise(values)}} for values in columns_per_row]
    mark_best(rows, [("d", "m")])
    top = max(float(np.mean(v)) for v in columns_per_row)
    for row, values in zip(rows, columns_per_row):
        cell: Cell = row["cells"][("d", "m")]
        assert cell.best == math.isclose(float(np.mean(values)), top, abs_tol=1e-12)
