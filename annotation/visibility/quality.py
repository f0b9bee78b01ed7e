"""Rule 2 (gold identity) for the quality report: what its figures, series and alerts may show a person
from whom gold is hidden (`gold_hidden_from`: they annotate, or hold an unanswered gold claim). Issue
30: the gold-error series carried the time of every gold answer and the running error, so someone
who annotates and also researches matched those times to their own /api/judgments/ and read off
which items were gold and how far from gold their answer was, while /api/quality/gold/ refused them.

`report_visible_to(user, report)` is what the panel (/quality/), the per-annotator page and figures
(/quality/annotators/<id>/) and the quality API serve. For a person from whom gold is hidden it
withholds:
1. every figure measured on gold answers, for every annotator: gold answer counts, gold MAE and
   within-one, the gold-error series (their figures too), the alerts on gold error (their window's
   first and last times are gold answers' times), the ranking by gold error (rows come by id, no
   rank) and the report's count of gold answers;
2. their own row, series and alerts entirely, and the report's judgment count is the sum of the rows
   shown: every figure over their own work is computed on their counted judgments only (agreement,
   the model's bias) or on their gold answers only, and their own judgment list holds both, unmarked -
   a count or a time point of one of the two (the latest α point is their latest counted judgment)
   set beside that list marks the rest as gold.
Other annotators' counted-judgment figures (agreement, speed, the model's figures and their alerts)
stay: the viewer cannot tell their gold answers apart from them, and nothing there names a post."""
from __future__ import annotations

import copy

from django.utils.translation import gettext_lazy as _

GOLD_ALERTS = frozenset({"gold_error_rising", "gold_error_high"})
WITHHELD_MESSAGE = _("Figures measured on gold answers (gold counts, gold error and its series, the ranking by it) "
                     "and your own figures are not shown to anyone who also annotates: set beside your own "
                     "judgments they would tell which items were gold.")


def report_visible_to(user, report: dict | None) -> dict | None:
    """The stored quality report as `user` may see it (a copy; the stored one is left as it is)."""
    from . import gold_hidden_from

    if report is None or not gold_hidden_from(user):
        return report
    own = user.pk
    out = copy.deepcopy(report)
    rows = sorted((row for row in out.get("annotators", []) if row["id"] != own), key=lambda row: row["id"])
    for row in rows:
        row["rank"] = None
        row["n_gold"] = None
        row["gold"] = {d: {"n": None, "mae": None, "within_one": None} for d in row.get("gold", {})}
        row["alerts"] = [a for a in row.get("alerts", []) if a["kind"] not in GOLD_ALERTS]
    out["annotators"] = rows
    out["alerts"] = [a for a in out.get("alerts", []) if a["annotator"] != own and a["kind"] not in GOLD_ALERTS]
    out["series"] = {key: {**entry, "gold_error": {}} for key, entry in out.get("series", {}).items()
                     if key != str(own)}
    out["n_judgments"] = sum(row.get("n_judgments") or 0 for row in rows)
    out["n_gold_judgments"] = None
    out["withheld"] = str(WITHHELD_MESSAGE)
    return out


def run_summary_visible_to(user, summary: dict | None) -> dict | None:
    """A quality run's stored summary (/api/quality/aggregation/) as `user` may see it: the report it
    holds through `report_visible_to`, and - while gold is hidden from them - without their own entry
    among the model's per-annotator figures (its counts are of their counted judgments only)."""
    from . import gold_hidden_from

    if not summary or not gold_hidden_from(user):
        return summary
    out = dict(summary)
    if "report" in out:
        out["report"] = report_visible_to(user, out["report"])
    if isinstance(out.get("annotators"), dict):
        out["annotators"] = {k: v for k, v in out["annotators"].items() if k != str(user.pk)}
    return out
