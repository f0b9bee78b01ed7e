"""Layouts that hold (issue 31, item 7): the exposure page's long title wraps instead of being cut
off; the quality pages' log seconds axis spans the data, not 100,000 s."""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import plotly.graph_objects as go
from django.utils import translation

from annotation.quality.figures import TITLE_LINE_UNITS, _display_width, seconds_range
from wellbeing.figures import exposure


def test_the_seconds_axis_spans_the_medians_and_the_floor():
    fig = go.Figure()
    fig.add_scatter(y=[40.0, 62.0, None])
    fig.add_scatter(y=[])
    low, high = seconds_range(fig, 5.0)
    assert 10 ** low < 5.0 and 62.0 < 10 ** high < 100  # not 100,000


def test_the_exposure_titles_wrap_in_both_languages():
    rows = [SimpleNamespace(username="annotator1", day=date(2026, 11, 8), posts=20, high_intensity=3)]
    for language in ("en", "zh-hans"):
        with translation.override(language):
            high = exposure(rows)["high"]["layout"]
        lines = high["title"]["text"].split("<br>")
        assert all(line for line in lines) and (len(lines) >= 2 or language != "en"), lines  # the English one is long
        assert all(_display_width(line) <= TITLE_LINE_UNITS for line in lines)
        assert high["margin"]["t"] >= 40 + 20 * len(lines)  # room for every line above the plot
