"""Plotly figures for the agreement dashboard, built from an agreement report (plain dicts)."""
from __future__ import annotations

import json

import plotly.graph_objects as go

from .mathematics import LEVELS, VALUE_DOMAIN


def alpha_bars(report: dict) -> go.Figure:
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
        bar.add_bar(name=level, x=dims, y=values, error_y=error)
    bar.update_layout(title="Krippendorff's alpha per dimension", yaxis_range=[0, 1], barmode="group", height=360)
    return bar


def pair_heatmap(report: dict, dimension: str) -> go.Figure:
    names = report["raters"]
    fig = go.Figure(go.Heatmap(z=report["dimensions"][dimension]["pairs"], x=names, y=names, zmin=0, zmax=1,
                               colorscale="Viridis", hovertemplate="%{y} × %{x}: α=%{z:.3f}<extra></extra>"))
    fig.update_layout(title=f"Pairwise ordinal α — {dimension}", height=360)
    return fig


def severity_bars(report: dict) -> go.Figure:
    fig = go.Figure()
    for d, entry in report["dimensions"].items():
        fig.add_bar(name=d, x=list(entry["severity"]), y=list(entry["severity"].values()))
    fig.update_layout(title="Rater severity (mean offset from the others)", barmode="group", height=360)
    return fig


def score_distribution(report: dict) -> go.Figure:
    fig = go.Figure()
    for d, entry in report["dimensions"].items():
        fig.add_bar(name=d, x=VALUE_DOMAIN, y=entry["distribution"])
    fig.update_layout(title="Score distribution (all judgments)", barmode="group", height=360)
    return fig


def batch_trend(report: dict) -> go.Figure:
    fig = go.Figure()
    for d in report["dimensions"]:
        fig.add_scatter(name=d, x=[t["batch"] for t in report["trend"]], y=[t[d] for t in report["trend"]],
                        mode="lines+markers")
    fig.update_layout(title="Ordinal α as batches complete (cumulative)", height=360, yaxis_range=[0, 1])
    return fig


def dashboard(report: dict) -> dict[str, dict]:
    """Every figure of the dashboard as a plotly JSON spec, keyed by its element id."""
    figs = {"alpha": alpha_bars(report)}
    for d in report["dimensions"]:
        figs[f"pairs_{d}"] = pair_heatmap(report, d)
    figs["severity"] = severity_bars(report)
    figs["distribution"] = score_distribution(report)
    if report.get("trend"):
        figs["trend"] = batch_trend(report)
    return {key: json.loads(fig.to_json()) for key, fig in figs.items()}
