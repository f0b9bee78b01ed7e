"""macro_f1 counts with numpy what sklearn's f1_score(average="macro", zero_division=0) computes."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import f1_score

from modeling.maam.metrics import LABELS, macro_f1

pairs = st.integers(0, 60).flatmap(lambda n: st.tuples(st.lists(st.integers(0, 6), min_size=n, max_size=n),
                                                       st.lists(st.integers(0, 6), min_size=n, max_size=n)))


@given(pairs, st.sampled_from([LABELS, [1, 2], [3], [2, 5, 6]]))
def test_macro_f1_equals_sklearns(pair, labels):
    y_true, y_pred = pair
    expected = f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0) if y_true else 0.0
    assert macro_f1(y_true, y_pred, labels) == pytest.approx(expected, abs=1e-12)


def test_macro_f1_refuses_lengths_that_differ():
    with pytest.raises(ValueError):
        macro_f1([1, 2], [1])
