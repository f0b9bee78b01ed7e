"""Plotly figures for the agreement dashboard, built from an agreement report (plain dicts).
Django-free like mathematics.py: every word a figure shows comes in a FigureText, which the
dashboard view fills in the reader's language (views.figure_text)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import plotly.graph_objects as go

from .mathematics import LEVELS, VALUE_DOMAIN


@dataclass(frozen=True)
class FigureText:
    alpha_title: str = "Krippendorff's alpha per dimension"
    pairs_title: str = "Pairwise ordinal α — %(dimension)s"
    severity_title: str = "Rater severity (mean offset from the others)"
    distribution_title: str = "Score distribution (all judgments)"
    trend_title: str = "Ordinal α as batches complete (cumulative)"
    levels: dict[str, str] = field(default_factory=dict)  # "ordinal" -> its name; missing: the key itself
    dimensions: dict[str, str] = field(default_factory=dict)  # "explicit" -> its name

    def level(self, key: str) -> str:
        return self.levels.get(key, key)

    def dimension(self, key: str) -> str:
        return self.dimensions.get(key, key)


ENGLISH = FigureText()


def alpha_bars(report: dict, text: FigureText = ENGLISH) -> go.Figure:
    dims = list(report["dimensions"])
    bar = go.Figure()
    for level in LEVELS:
        values = [report["dimensions"][d]["alpha"][level] for d in dims]
        error = None
        if level == "ordinal" and all("interval" in report["dimensions"][d] for d in dims):
            intervals = [report["dimensions"][d]["interval"][level] for d in dims]
            if all(intervals) and all(v is not None for v in values):
                error = dict(type="data", symmetric=False, array=[hi - v for (lo, hi), v in zip(intervals, values)],
                             arrayminus=[v - lo for (lo, hi), v in zip(intervals, values)])
        bar.add_bar(name=text.level(level), x=[text.dimension(d) for d in dims], y=values, error_y=error)
    bar.update_layout(title=text.alpha_title, yaxis_range=[0, 1], barmode="group", height=360)
    return bar


def pair_heatmap(report: dict, dimension: str, text: FigureText = ENGLISH) -> go.Figure:
    names = report["raters"]
    fig = go.Figure(go.Heatmap(z=report["dimensions"][dimension]["pairs"], x=names, y=names, zmin=0, zmax=1,
                               colorscale="Viridis", hovertemplate="%{y} × %{x}: α=%{z:.3f}<extra></extra>"))
    fig.update_layout(title=text.pairs_title % {"dimension": text.dimension(dimension)}, height=360)
    return fig


def severity_bars(report: dict, text: FigureText = ENGLISH) -> go.Figure:
    fig = go.Figure()
    for d, entry in report["dimensions"].items():
        fig.add_bar(name=text.dimension(d), x=list(entry["severity"]), y=list(entry["severity"].values()))
    fig.update_layout(title=text.severity_title, barmode="group", height=360)
    return fig


def score_distribution(report: dict, text: FigureText = ENGLISH) -> go.Figure:
    fig = go.Figure()
    for d, entry in report["dimensions"].items():
        fig.add_bar(name=text.dimension(d), x=VALUE_DOMAIN, y=entry["distribution"])
    fig.update_layout(title=text.distribution_title, barmode="group", height=360)
    return fig


def batch_trend(report: dict, text: FigureText = ENGLISH) -> go.Figure:
    fig = go.Figure()
    for d in report["dimensions"]:
        fig.add_scatter(name=text.dimension(d), x=[t["batch"] for t in report["trend"]], y=[t[d] for t in report["trend"]],
                        mode="lines+markers")
    fig.update_layout(title=text.trend_title, height=360, yaxis_range=[0, 1])
    return fig


def dashboard(report: dict, text: FigureText = ENGLISH) -> dict[str, dict]:
    """Every figure of the dashboard as a plotly JSON spec, keyed by its element id."""
    figs = {"alpha": alpha_bars(report, text)}
    for d in report["dimensions"]:
        figs[f"pairs_{d}"] = pair_heatmap(report, d, text)
    figs["severity"] = severity_bars(report, text)
    figs["distribution"] = score_distribution(report, text)
    if report.get("trend"):
        figs["trend"] = batch_trend(report, text)
    return {key: json.loads(fig.to_json()) for key, fig in figs.items()}
