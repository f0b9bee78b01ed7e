"""Plotly figures for the quality panel, built from the report `selectors.quality_report` returns
(plain dicts; no database here). Titles, legends and dimension names are in the reader's language."""
from __future__ import annotations

import json
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
                        height=360, yaxis_type="log")
    return _specs({"alpha": alpha, "gold": gold, "seconds": speed})


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
                        yaxis_type="log")
    return _specs({"alpha": alpha, "gold": gold, "seconds": speed})


def _specs(figures: dict[str, go.Figure]) -> dict[str, dict]:
    """Plotly JSON specs (NaN becomes null so the page's JSON stays valid)."""
    return {key: json.loads(fig.to_json()) for key, fig in figures.items()}

