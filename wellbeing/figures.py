"""Plotly figures for the researchers' exposure page (plain rows in, JSON specs out)."""
from __future__ import annotations

import json

import plotly.graph_objects as go
from django.utils.translation import gettext as _

from annotation.quality.figures import fit_titles


def exposure(rows) -> dict[str, dict]:
    """Per annotator: posts per day (all, and high intensity) and posts set aside per day."""
    posts, high = go.Figure(), go.Figure()
    by_name: dict[str, list] = {}
    for row in rows:
        by_name.setdefault(row.username, []).append(row)
    for name, days in by_name.items():
        x = [d.day.isoformat() for d in days]
        posts.add_bar(name=name, x=x, y=[d.posts for d in days])
        high.add_bar(name=name, x=x, y=[d.high_intensity for d in days])
    posts.update_layout(title=_("Posts scored per day"), barmode="group", height=380,
                        xaxis_title=_("day (UTC)"), yaxis_title=_("posts"))
    high.update_layout(title=_("High-intensity posts per day (a score of 4 or more on any dimension)"),
                       barmode="group", height=380, xaxis_title=_("day (UTC)"), yaxis_title=_("posts"))
    for fig in (posts, high):
        fit_titles(fig)  # wrapped, with room for their lines: a half-width plot cut the long one off
    return {key: json.loads(fig.to_json()) for key, fig in {"posts": posts, "high": high}.items()}
