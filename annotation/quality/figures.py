"""Plotly figures for the quality panel, built from the report `selectors.quality_report` returns
(plain dicts; no database here). Titles, legends and dimension names are in the reader's language."""
from __future__ import annotations

import json
import math
import re
import unicodedata
from datetime import datetime, timezone

import plotly.graph_objects as go
from django.utils.translation import gettext as _

from ..models import Dimension


def _times(epochs: list[float]) -> list[str]:
    return [datetime.fromtimestamp(t, tz=timezone.utc).isoformat() for t in epochs]


def _mean_over_dimensions(per_dimension: dict[str, list]) -> tuple[list[float], list[float | None]]:
    """The series of several dimensions share their time points (one window each); their mean,
    ignoring undefined values."""
    pairs = [p for p in per_dimension.values() if p and p[0]]
    if not pairs:
        return [], []
    times = pairs[0][0]
    values = []
    for i in range(len(times)):
        present = [p[1][i] for p in pairs if i < len(p[1]) and p[1][i] is not None]
        values.append(sum(present) / len(present) if present else None)
    return times, values


def _dimension(key: str) -> str:
    try:
        return str(Dimension(key).label)
    except ValueError:
        return key


def _threshold(fig: go.Figure, value: float, text: str) -> None:
    fig.add_hline(y=value, line_dash="dash", line_color="#b00020", annotation_text=text,
                  annotation_position="bottom right")


def overview(report: dict) -> dict[str, dict]:
    """One line per annotator: rolling α vs the rest, gold error, median seconds per post."""
    t = report["thresholds"]
    names = {str(a["id"]): a["username"] or a["pseudonym"] for a in report["annotators"]}
    alpha, gold, speed = go.Figure(), go.Figure(), go.Figure()
    for key, name in names.items():
        series = report["series"].get(key)
        if not series:
            continue
        x, y = _mean_over_dimensions(series["alpha"])
        alpha.add_scatter(name=name, x=_times(x), y=y, mode="lines+markers")
        x, y = _mean_over_dimensions(series["gold_error"])
        gold.add_scatter(name=name, x=_times(x), y=y, mode="lines")
        x, y = series["seconds"]
        speed.add_scatter(name=name, x=_times(x), y=y, mode="lines")
    _threshold(alpha, t["min_alpha"], _("alert"))
    _threshold(speed, t["seconds_floor"], _("speeder floor"))
    alpha.update_layout(title=_("Agreement with the others: ordinal α over the last %(n)s judgments (mean of the "
                                "dimensions)") % {"n": t["alpha_window"]}, height=360, yaxis_range=[-0.5, 1])
    gold.update_layout(title=_("Gold error: MAE over the last %(n)s gold items (mean of the dimensions)")
                       % {"n": t["gold_window"]}, height=360, yaxis_rangemode="tozero")
    speed.update_layout(title=_("Median seconds per post over the last %(n)s") % {"n": t["seconds_window"]},
                        height=360, yaxis_type="log", yaxis_range=seconds_range(speed, t["seconds_floor"]))
    return _specs(_without_withheld(report, {"alpha": alpha, "gold": gold, "seconds": speed}))


def annotator(report: dict, annotator_id: int) -> dict[str, dict]:
    """One annotator: α and gold error per dimension, seconds per post, with the alert thresholds."""
    t = report["thresholds"]
    series = report["series"].get(str(annotator_id)) or {"alpha": {}, "gold_error": {}, "seconds": [[], []]}
    alpha, gold, speed = go.Figure(), go.Figure(), go.Figure()
    for d in report["dimensions"]:
        if d in series["alpha"]:
            x, y = series["alpha"][d]
            alpha.add_scatter(name=_dimension(d), x=_times(x), y=y, mode="lines+markers")
        if d in series["gold_error"]:
            x, y = series["gold_error"][d]
            gold.add_scatter(name=_dimension(d), x=_times(x), y=y, mode="lines+markers")
    x, y = series["seconds"]
    speed.add_scatter(name=_("median seconds"), x=_times(x), y=y, mode="lines+markers")
    _threshold(alpha, t["min_alpha"], _("alert"))
    _threshold(speed, t["seconds_floor"], _("speeder floor"))
    alpha.update_layout(title=_("Ordinal α vs the rest, last %(n)s judgments") % {"n": t["alpha_window"]},
                        height=340, yaxis_range=[-0.5, 1])
    gold.update_layout(title=_("Gold error (MAE, last %(n)s gold items)") % {"n": t["gold_window"]}, height=340,
                       yaxis_rangemode="tozero")
    speed.update_layout(title=_("Median seconds per post, last %(n)s") % {"n": t["seconds_window"]}, height=340,
                        yaxis_type="log", yaxis_range=seconds_range(speed, t["seconds_floor"]))
    return _specs(_without_withheld(report, {"alpha": alpha, "gold": gold, "seconds": speed}))


def seconds_range(fig: go.Figure, floor: float) -> list[float]:
    """The log seconds axis over the data and the speeder floor (log10 units): Plotly's own range
    reached 100,000 s for medians of a minute."""
    values = [v for trace in fig.data for v in (trace.y or ()) if v is not None and v > 0] + [floor]
    return [math.log10(min(values) / 1.5), math.log10(max(values) * 1.5)]


def _without_withheld(report: dict, figures: dict[str, go.Figure]) -> dict[str, go.Figure]:
    """No gold-error figure where the visibility policy withheld gold figures (report_visible_to)."""
    return {k: v for k, v in figures.items() if not (k == "gold" and report.get("withheld"))}


# Width of a title line, in Latin-letter units (a CJK character counts two): what fits across the
# panel's half-width plots at the page's title size.
TITLE_LINE_UNITS = 56


# A title breaks after a word (and its spaces) or between any two CJK characters.
TITLE_TOKENS = re.compile(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]|[^\s\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]+\s*|\s+")


def _display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_title(text: str, units: int = TITLE_LINE_UNITS) -> list[str]:
    """Break a title into lines of at most `units` (at spaces in English; anywhere between CJK
    characters, which have no spaces), so no plot width cuts it off."""
    lines, line = [], ""
    for token in TITLE_TOKENS.findall(text):
        if line and _display_width(line + token.rstrip()) > units:
            lines.append(line.rstrip())
            line = token.lstrip()
        else:
            line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


def fit_titles(fig: go.Figure) -> None:
    """Titles wrapped and given room: the top margin grows with the lines, left-aligned in the
    container so a narrow plot never clips them; the legend goes below the plot."""
    lines = wrap_title(fig.layout.title.text or "")
    fig.update_layout(title={"text": "<br>".join(lines), "x": 0.01, "xanchor": "left", "xref": "container",
                             "y": 0.98, "yanchor": "top", "yref": "container", "font": {"size": 14},
                             "automargin": True},
                      margin={"t": 40 + 20 * len(lines), "l": 60, "r": 20, "b": 40},
                      legend={"orientation": "h", "y": -0.18, "x": 0})


def _specs(figures: dict[str, go.Figure]) -> dict[str, dict]:
    """Plotly JSON specs (NaN becomes null so the page's JSON stays valid)."""
    for fig in figures.values():
        fit_titles(fig)
    return {key: json.loads(fig.to_json()) for key, fig in figures.items()}

