"""The LLM comparison laid out as the paper lays it out: Table 3 (zero-shot LLMs beside MAAM, per
dimension accuracy and macro-F1 as mean ± std over runs) and the appendix's few-shot table (one
block per dimension, 1/5/10-shot columns, MAAM's reference in the block's heading), with a paired
significance test of MAAM over each LLM on the same release's test posts.

The test: the paper reports five runs of each system, mean ± std, and marks MAAM's figures that are
significantly better than the LLMs'; it does not store per-post outputs of MAAM's runs, and neither do
MAAM runs here (only their test metrics), so the test is the one the paper's numbers allow and the
workbench's Table 2 page already uses: a paired t-test over runs (modeling.maam.metrics.paired_test),
MAAM's seeds in ascending order paired with the LLM's run indexes, every pair scored on the same
test posts (a k-fold release: only MAAM seeds whose test fold is the LLM run's). Marks: * p < 0.05,
** p < 0.01 (two-sided, and only where MAAM's mean is the higher) - docs/llm.md.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.utils.translation import gettext_lazy as _

DIMENSIONS = ("explicit", "implicit", "emotional")
METRICS = ("accuracy", "macro_f1")
PAPER_SHOTS = (1, 5, 10)  # the appendix's few-shot table (MAAM.tex, tab:few_shot_combined)
SIGNIFICANCE_LEVELS = ((0.01, "**"), (0.05, "*"))
# Table 3's column heads (MAAM.tex, tab:llm_comparison).
COLUMN_LABELS = {("explicit", "accuracy"): _("Exp. Acc"), ("explicit", "macro_f1"): _("Exp. F1"),
                 ("implicit", "accuracy"): _("Imp. Acc"), ("implicit", "macro_f1"): _("Imp. F1"),
                 ("emotional", "accuracy"): _("Emo. Acc"), ("emotional", "macro_f1"): _("Emo. F1")}


# --- Pure numerics (no Django) -----------------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    """A figure of the table: mean ± std over runs (sample std, ddof=1; 0 for a single run)."""

    mean: float
    std: float
    n: int
    mark: str = ""
    best: bool = False


def summarise(values: Sequence[float]) -> Cell | None:
    values = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if not values:
        return None
    return Cell(float(np.mean(values)), float(np.std(values, ddof=1)) if len(values) > 1 else 0.0, len(values))


def mark_for(p: float | None, maam_better: bool) -> str:
    """The paper's asterisks: MAAM significantly better (p < 0.05: *, p < 0.01: **); never for a worse MAAM."""
    if p is None or not maam_better or math.isnan(p):
        return ""
    for level, mark in SIGNIFICANCE_LEVELS:
        if p < level:
            return mark
    return ""


@dataclass(frozen=True)
class Test:
    """MAAM over one LLM on one dimension and metric."""

    n_pairs: int
    mean_diff: float | None  # MAAM minus LLM, over the pairs
    p: float | None  # None: fewer than two pairs, nothing to test
    mark: str


def paired_over_runs(maam: Sequence[float], llm: Sequence[float]) -> Test:
    """Paired t-test over runs (the workbench's Table 2 test, modeling.maam.metrics.paired_test): MAAM's
    i-th run (seeds ascending) against the LLM's i-th run; the longer list is cut to the shorter."""
    from modeling.maam.metrics import paired_test

    n = min(len(maam), len(llm))
    diffs = np.subtract(list(maam)[:n], list(llm)[:n])
    if n < 2 or np.allclose(diffs, diffs[0]):
        # Fewer than two pairs, or differences without spread (e.g. two deterministic systems): the
        # t statistic is undefined, so nothing is tested (paired_test would call any constant gain certain).
        return Test(n, float(diffs.mean()) if n else None, None, "")
    result = paired_test(list(maam)[:n], list(llm)[:n])
    p = float(result["p"])
    return Test(n, float(result["mean_diff"]), p, mark_for(p, result["mean_diff"] > 0))


def weakest_mark(marks: Sequence[str]) -> str:
    """MAAM's own mark in Table 3: significant over every compared LLM, at the weakest of their levels."""
    if not marks or any(m == "" for m in marks):
        return ""
    return min(marks, key=len)


def mark_best(rows: list[dict], keys: Sequence[tuple[str, str]]) -> None:
    """Bold the highest mean of each column, as the paper does (ties: every one of them)."""
    for key in keys:
        cells = [row["cells"].get(key) for row in rows]
        means = [c.mean for c in cells if c is not None]
        if not means:
            continue
        top = max(means)
        for row in rows:
            c = row["cells"].get(key)
            if c is not None and math.isclose(c.mean, top, abs_tol=1e-12):
                row["cells"][key] = Cell(c.mean, c.std, c.n, c.mark, True)


# --- From the database ----------------------------------------------------------------------------------

@dataclass
class System:
    """An LLM run (one row of the tables) or MAAM's reference: per (dimension, metric), one value per run."""

    label: str
    values: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    run: object = None  # the LLMRun (None for MAAM)
    shots: int = 0
    test_fold: int | None = None
    seeds: list[int] = field(default_factory=list)


def llm_system(run) -> System:
    from .models import LLMRunScore

    values: dict[tuple[str, str], list[float]] = {}
    for score in LLMRunScore.objects.filter(run=run).order_by("run_index"):
        for metric in METRICS:
            values.setdefault((score.dimension, metric), []).append(getattr(score, metric))
    return System(run.model_name, values, run, run.shots, (run.split or {}).get("test_fold"))


def maam_groups(release) -> list[dict]:
    """The MAAM (full) runs on `release`, per launch: [{"group", "label", "runs"}], most seeds first, newest first."""
    from modeling.models import JobStatus, TrainingRun, Variant

    runs = [r for r in TrainingRun.objects.filter(release=release, variant=Variant.FULL, status=JobStatus.SUCCEEDED)
            .order_by("-created_at", "-id") if r.metrics and r.metrics.get("test")]
    groups: dict[str, list] = {}
    for r in runs:
        groups.setdefault(r.launch_group, []).append(r)
    out = [{"group": g, "runs": sorted(rs, key=lambda r: r.seed), "backbone": rs[0].backbone,
            "created_at": rs[0].created_at} for g, rs in groups.items()]
    out.sort(key=lambda g: (-len(g["runs"]), -g["created_at"].timestamp()))
    return out


def maam_system(group: dict, *, test_fold: int | None = None) -> System:
    """MAAM's figures from the group's runs (the test metrics after calibration, as Table 2 reads them);
    on a k-fold release only the seeds that tested on `test_fold`."""
    values: dict[tuple[str, str], list[float]] = {}
    seeds = []
    for r in group["runs"]:
        split = r.metrics.get("split") or {}
        if test_fold is not None and split.get("test_fold") not in (None, test_fold):
            continue
        seeds.append(r.seed)
        for d, m in r.metrics["test"].items():
            for metric in METRICS:
                value = (m.get("after") or {}).get(metric)
                if value is not None:
                    values.setdefault((d, metric), []).append(float(value))
    return System("MAAM", values, seeds=seeds)


def _keys(dims: Sequence[str]) -> list[tuple[str, str]]:
    return [(d, metric) for d in dims for metric in METRICS]


def comparison(*, release, maam_group: str | None = None) -> dict:
    """Everything the results page shows for one release: the MAAM launches to choose from, Table 3
    (zero-shot runs), the few-shot table, and each test of MAAM over an LLM."""
    from .models import JobStatus, LLMRun

    groups = maam_groups(release)
    chosen = next((g for g in groups if g["group"] == maam_group), groups[0] if groups else None)
    llm_runs = list(LLMRun.objects.filter(release=release, status=JobStatus.SUCCEEDED).order_by("created_at", "id"))
    systems = [llm_system(r) for r in llm_runs]
    dims = [d for d in DIMENSIONS if any((d, "accuracy") in s.values for s in systems)] or list(DIMENSIONS)
    keys = _keys(dims)

    def maam_for(system: System) -> System | None:
        return maam_system(chosen, test_fold=system.test_fold) if chosen else None

    tests = []
    for system in systems:
        maam = maam_for(system)
        per_key = {key: paired_over_runs(maam.values.get(key, []), system.values.get(key, [])) if maam else None
                   for key in keys}
        tests.append({"system": system, "tests": per_key, "cells": [per_key[k] for k in keys]})
    test_of = {id(t["system"]): t["tests"] for t in tests}

    # Table 3: zero-shot runs, then MAAM marked where it beats every one of them.
    zero = [s for s in systems if s.shots == 0]
    rows = [{"label": s.label, "run": s.run, "cells": {k: summarise(s.values.get(k, [])) for k in keys}} for s in zero]
    maam_row = None
    if chosen is not None:
        maam = maam_system(chosen, test_fold=zero[0].test_fold if zero else None)
        cells = {}
        for k in keys:
            cell = summarise(maam.values.get(k, []))
            if cell is not None and zero:
                marks = [test_of[id(s)][k].mark if test_of[id(s)][k] else "" for s in zero]
                cell = Cell(cell.mean, cell.std, cell.n, weakest_mark(marks))
            cells[k] = cell
        maam_row = {"label": "MAAM", "run": None, "cells": cells, "seeds": maam.seeds}
    mark_best(rows + ([maam_row] if maam_row else []), keys)
    for row in rows + ([maam_row] if maam_row else []):
        row["ordered"] = [row["cells"].get(k) for k in keys]

    # The few-shot table: per dimension a block; per model a row; per K two columns (the newest run of each).
    few = [s for s in systems if s.shots > 0]
    shots = sorted({s.shots for s in few}) if few else []
    by_model: dict[str, dict[int, System]] = {}
    for s in few:
        by_model.setdefault(s.label, {})[s.shots] = s  # ordered by creation: the newest wins
    blocks = []
    for d in dims:
        maam_ref = None
        if chosen is not None:
            ref = maam_system(chosen, test_fold=few[0].test_fold if few else None)
            maam_ref = {metric: summarise(ref.values.get((d, metric), [])) for metric in METRICS}
        block_rows = []
        for model, per_k in by_model.items():
            cells = {}
            for k in shots:
                s = per_k.get(k)
                for metric in METRICS:
                    cell = summarise(s.values.get((d, metric), [])) if s else None
                    t = test_of[id(s)][(d, metric)] if s and test_of[id(s)] else None
                    if cell is not None and t is not None:
                        cell = Cell(cell.mean, cell.std, cell.n, t.mark)
                    cells[(k, metric)] = cell
            block_rows.append({"label": model, "cells": cells, "runs": [per_k[k].run for k in shots if k in per_k]})
        mark_best(block_rows, [(k, metric) for k in shots for metric in METRICS])
        for row in block_rows:
            row["ordered"] = [row["cells"].get((k, metric)) for k in shots for metric in METRICS]
        blocks.append({"dimension": d, "maam": maam_ref, "rows": block_rows})

    return {"release": release, "groups": groups, "chosen": chosen, "dims": dims, "keys": keys,
            "headers": [COLUMN_LABELS[k] for k in keys],
            "zero_shot": rows, "maam_row": maam_row, "tests": tests, "shots": shots, "blocks": blocks,
            "fewshot_colspan": 2 + 2 * len(shots),
            "n_llm_runs": len(systems)}
