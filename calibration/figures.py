"""Plotly figure builders: data in, go.Figure out (no database, no request). Titles, axis names
and C-I-S state names are in the active language (Django's gettext; the state names are the
msgids of annotation's Tone/Identity/Stance choices)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from django.utils.translation import gettext as _
from plotly.subplots import make_subplots

AXES = ("C", "I", "S")
STATES = {"C": ("Funny", "General", "Serious"), "I": ("Ingroup", "Outgroup", "Uncertain"), "S": ("Pro", "Anti", "Neutral")}
DIMENSIONS = ("explicit", "implicit", "emotional")
SCORES = [1, 2, 3, 4, 5]


def state_rows() -> list[tuple[str, str]]:
    return [(axis, state) for axis in AXES for state in STATES[axis]]


def state_labels() -> list[str]:
    """The heatmaps' row names, e.g. 'C: Funny' (translated state names)."""
    return [f"{axis}: {_(state)}" for axis, state in state_rows()]


def _dimension_titles() -> list[str]:
    return [_("Explicit bias"), _("Implicit bias"), _("Emotional intensity")]


def _dimension_name(dimension: str) -> str:
    return dict(zip(DIMENSIONS, _dimension_titles())).get(dimension, dimension)


def prior_matrix(priors: dict, dimension: str) -> np.ndarray:
    """9 states x 5 scores for one dimension, rows in C, I, S order."""
    return np.asarray([priors[dimension][axis][state] for axis, state in state_rows()], dtype=float)


def prior_heatmaps(priors: dict, counts: dict, title: str = "") -> go.Figure:
    """The paper's appendix figure: one heatmap per dimension, 9 C-I-S states x 5 scores."""
    labels = state_labels()
    fig = make_subplots(rows=1, cols=3, subplot_titles=_dimension_titles(), shared_yaxes=True)
    for col, d in enumerate(DIMENSIONS, start=1):
        z = prior_matrix(priors, d)
        n = np.asarray([counts[d][axis][state] for axis, state in state_rows()])
        fig.add_trace(go.Heatmap(z=z, x=SCORES, y=labels, customdata=n, zmin=0, zmax=1, colorscale="Blues",
                                 showscale=col == 3, texttemplate="%{z:.2f}",
                                 hovertemplate=_("%{y}, score %{x}: P=%{z:.3f} (n=%{customdata})") + "<extra></extra>"),
                      row=1, col=col)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(dtick=1, title_text=_("score"))
    fig.update_layout(title=title or _("C–I–S priors P(Y=k | Z=z)"), height=460, margin=dict(l=120))
    return fig


def prior_diff(a: dict, b: dict, title: str = "") -> go.Figure:
    """Side by side: snapshot B minus snapshot A per dimension."""
    labels = state_labels()
    fig = make_subplots(rows=1, cols=3, subplot_titles=_dimension_titles(), shared_yaxes=True)
    for col, d in enumerate(DIMENSIONS, start=1):
        z = prior_matrix(b, d) - prior_matrix(a, d)
        fig.add_trace(go.Heatmap(z=z, x=SCORES, y=labels, zmid=0, colorscale="RdBu", showscale=col == 3,
                                 texttemplate="%{z:+.2f}", hovertemplate=_("%{y}, score %{x}: Δ=%{z:+.3f}") + "<extra></extra>"),
                      row=1, col=col)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(dtick=1, title_text=_("score"))
    fig.update_layout(title=title or _("Prior difference (B − A)"), height=460, margin=dict(l=120))
    return fig


def token_weights(tokens: list[dict], dimension: str) -> go.Figure:
    """Myopia for one sentence: base weight, after promotion/modulation, after smoothing (final);
    dropped tokens shown as 0 with their subcategory and level on hover."""
    names = [f"{i}:{t['text']}" for i, t in enumerate(tokens)]
    rows = [(_("w_base (level → weight)"), "w_base"), (_("after promotion + modulation"), "w_adj"),
            (_("final (smoothed, clipped)"), "weight")]
    z = [[t[key] for t in tokens] for _label, key in rows]
    level, keyword, dropped = _("level"), _(" (keyword)"), _("dropped")
    hover = [[f"{t['text']}<br>{t['subcategory']}<br>{level} {t['level_orig']}→{t['level']}"
              f"{keyword if t['keyword'] else ''}<br>{label}: {t[key]:.3f}{'<br>' + dropped if not t['kept'] else ''}"
              for t in tokens] for label, key in rows]
    fig = go.Figure(go.Heatmap(z=z, x=names, y=[label for label, _key in rows], zmin=0, zmax=1, colorscale="Reds",
                               text=hover, hoverinfo="text", texttemplate="%{z:.2f}"))
    fig.update_xaxes(tickvals=names, ticktext=[t["text"] for t in tokens])
    fig.update_layout(title=_("Myopia token weights — %(dimension)s") % {"dimension": _dimension_name(dimension)},
                      height=300, margin=dict(l=200))
    return fig


def fusion_table(rows: list[dict], used: list[str] | None, dimension: str) -> go.Figure:
    """Development macro-F1 of all 15 orders against the baseline, the used order highlighted."""
    labels = ["→".join(r["order"]) for r in rows]
    colours = ["#6b3fa0" if used and r["order"] == used else "#b8a4d6" for r in rows]
    fig = go.Figure(go.Bar(x=labels, y=[r["dev_macro_f1"] for r in rows], marker_color=colours,
                           customdata=[str(r["alphas"]) for r in rows],
                           hovertemplate="%{x}: F1 %{y:.4f}, α=%{customdata}<extra></extra>"))
    if rows:
        fig.add_hline(y=rows[0]["baseline_dev_f1"], line_dash="dash", annotation_text=_("baseline"))
    fig.update_layout(title=_("Fusion strategies — %(dimension)s (development split)") % {"dimension": _dimension_name(dimension)},
                      height=340, yaxis_title="macro-F1")
    return fig


def reliability(bins_before: list[dict], bins_after: list[dict], dimension: str, ece_before: float, ece_after: float) -> go.Figure:
    fig = go.Figure()
    fig.add_scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(dash="dot", color="grey"), name=_("perfect"))
    for name, bins, e in ((_("before calibration (ECE %(ece)s)"), bins_before, ece_before),
                          (_("after calibration (ECE %(ece)s)"), bins_after, ece_after)):
        pts = [b for b in bins if b["count"]]
        fig.add_scatter(x=[b["confidence"] for b in pts], y=[b["accuracy"] for b in pts], mode="lines+markers",
                        name=name % {"ece": f"{e:.3f}"}, customdata=[b["count"] for b in pts],
                        hovertemplate=_("confidence %{x:.2f}, accuracy %{y:.2f} (n=%{customdata})") + "<extra></extra>")
    fig.update_layout(title=_("Reliability — %(dimension)s") % {"dimension": _dimension_name(dimension)},
                      xaxis_title=_("confidence"), yaxis_title=_("accuracy"),
                      xaxis_range=[0, 1], yaxis_range=[0, 1], height=380)
    return fig


def dataset_overview(labels: dict[str, list[int]]) -> go.Figure:
    """Label distribution per dimension, explicit–implicit joint distribution, correlation matrix."""
    fig = make_subplots(rows=1, cols=3, subplot_titles=[_("Label distribution"), _("Explicit × implicit"), _("Correlation")])
    for d in DIMENSIONS:
        values = labels.get(d, [])
        fig.add_bar(x=SCORES, y=[values.count(k) for k in SCORES], name=_dimension_name(d), row=1, col=1)
    joint = np.zeros((5, 5), dtype=int)
    for e, i in zip(labels.get("explicit", []), labels.get("implicit", [])):
        joint[i - 1, e - 1] += 1
    fig.add_trace(go.Heatmap(z=joint, x=SCORES, y=SCORES, colorscale="Purples", showscale=False, texttemplate="%{z}",
                             hovertemplate=_("explicit %{x}, implicit %{y}: %{z}") + "<extra></extra>"), row=1, col=2)
    data = np.asarray([labels[d] for d in DIMENSIONS if d in labels], dtype=float)
    corr = np.corrcoef(data) if data.shape[1] > 1 else np.eye(len(data))
    names = [_dimension_name(d) for d in DIMENSIONS if d in labels]
    fig.add_trace(go.Heatmap(z=np.round(corr, 3), x=names, y=names, zmin=-1, zmax=1,
                             colorscale="RdBu", texttemplate="%{z:.2f}", showscale=False), row=1, col=3)
    fig.update_xaxes(title_text=_("Explicit bias"), row=1, col=2)
    fig.update_yaxes(title_text=_("Implicit bias"), row=1, col=2)
    fig.update_layout(height=400, barmode="group", title=_("Dataset overview"))
    return fig


def case_steps(steps: list[dict], dimension: str) -> go.Figure:
    """Prediction before and after each fusion step (grouped bars over the five scores)."""
    fig = go.Figure()
    for step in steps:
        fig.add_bar(x=SCORES, y=step["p"], name=step["name"])
    fig.update_layout(barmode="group", height=340, yaxis_range=[0, 1], xaxis_title=_("score"),
                      title=_("Fusion cascade — %(dimension)s") % {"dimension": _dimension_name(dimension)})
    return fig
