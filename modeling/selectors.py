"""Reads for the modeling app."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext

from .models import JobStatus, Prediction, TrainingRun


@dataclass
class PredictionView:
    run_label: str
    explicit: int | None  # None: the run did not train this dimension
    implicit: int | None
    emotional: int | None
    probabilities: dict


def latest_prediction(*, post_id: int) -> PredictionView | None:
    """The newest stored prediction for a post (shown to adjudicators, never to annotators)."""
    p = Prediction.objects.filter(post_id=post_id).select_related("run").order_by("-created_at", "-id").first()
    if p is None:
        return None
    label = gettext("Run %(id)s · %(variant)s") % {"id": p.run_id, "variant": p.run.get_variant_display()}
    return PredictionView(label, p.explicit, p.implicit, p.emotional, p.probabilities)


def comparison_table(runs: list[TrainingRun]) -> dict:
    """Runs laid out like the paper's Table 2: variant x dimension, mean ± std over seeds, with a
    paired test against the baseline runs of the same seeds."""
    from .maam.metrics import paired_test

    finished = [r for r in runs if r.status == JobStatus.SUCCEEDED and r.metrics]
    dims = sorted({d for r in finished for d in r.dimensions}, key=["explicit", "implicit", "emotional"].index)
    by_variant: dict[str, dict[int, TrainingRun]] = {}
    for r in finished:
        by_variant.setdefault(r.variant, {})[r.seed] = r
    rows = []
    for variant in ("baseline", "astigmatism", "myopia", "full"):
        seeds = by_variant.get(variant)
        if not seeds:
            continue
        cells = {}
        for d in dims:
            for metric in ("accuracy", "macro_f1", "brier", "ece"):
                values = [s.metrics["test"][d]["after"][metric] for s in seeds.values() if d in s.metrics["test"]]
                if not values:
                    continue
                mean, std = float(np.mean(values)), float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
                mark = ""
                base = by_variant.get("baseline", {})
                common = sorted(set(seeds) & set(base))
                if variant != "baseline" and len(common) >= 2:
                    test = paired_test([seeds[s].metrics["test"][d]["after"][metric] for s in common],
                                       [base[s].metrics["test"][d]["after"][metric] for s in common])
                    better = test["mean_diff"] > 0 if metric in ("accuracy", "macro_f1") else test["mean_diff"] < 0
                    mark = "*" if better and test["p"] < 0.05 else ""
                cells[(d, metric)] = {"mean": mean, "std": std, "n": len(values), "mark": mark}
        rows.append({"variant": variant, "cells": cells, "seeds": sorted(seeds)})
    return {"dims": dims, "rows": rows}
