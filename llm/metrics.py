"""Scores of an LLM run, as the paper reports them (Table 3, tab:llm_comparison: accuracy and macro-F1
per dimension, mean +- std over five runs), with Brier and ECE where the backend gives probabilities.
The formulas are MAAM's own (modeling/maam/metrics.py), so both rows of the table are scored alike.

The unparsed rule (docs/llm.md): an answer that cannot be parsed is scored as class 0, which no gold
label has. It is therefore wrong for accuracy, and a miss (false negative) of its gold class in
macro-F1, which averages over the classes 1-5 only (class 0 is never a false positive of a real class
and has no F1 of its own). An unparsed answer is never counted right: in place of a right answer it
lowers accuracy and macro-F1; like a wrong answer it costs its gold class's recall, but unlike one it
adds no false positive to another class.
No Django here."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from modeling.maam.metrics import LABELS, accuracy, brier, ece, macro_f1

DIMENSIONS = ("explicit", "implicit", "emotional")
UNPARSED_CLASS = 0


def predicted(scores: dict | None, dimension: str) -> int:
    value = (scores or {}).get(dimension)
    return int(value) if value is not None else UNPARSED_CLASS


def run_scores(gold: Sequence[dict], answers: Sequence[dict | None],
               probabilities: Sequence[dict | None] | None = None) -> dict[str, dict]:
    """One run index: per dimension accuracy, macro-F1, Brier and ECE (None unless every answer has
    probabilities for the dimension), n and the number unparsed. `answers[i]` is the parsed scores
    of gold row i, or None (unparsed)."""
    out = {}
    for d in DIMENSIONS:
        y_true = [int(g[d]) for g in gold]
        y_pred = [predicted(a, d) for a in answers]
        row = {"accuracy": accuracy(y_true, y_pred), "macro_f1": macro_f1(y_true, y_pred),
               "brier": None, "ece": None, "n": len(y_true), "unparsed": sum(p == UNPARSED_CLASS for p in y_pred)}
        if probabilities is not None and y_true and all(p and p.get(d) for p in probabilities):
            probs = np.asarray([p[d] for p in probabilities], dtype=float)
            row["brier"], row["ece"] = brier(y_true, probs, LABELS), ece(y_true, probs, LABELS)
        out[d] = row
    return out


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof=1, as modeling/maam/experiments.py; 0 for one run)."""
    arr = np.asarray(values, dtype=float)
    if not arr.size:
        return 0.0, 0.0
    return float(arr.mean()), float(arr.std(ddof=1)) if arr.size > 1 else 0.0


def summarise(per_run: Sequence[dict[str, dict]]) -> dict[str, dict]:
    """Per dimension over the runs: acc_mean/acc_std, f1_mean/f1_std, and brier_mean/ece_mean where
    every run has them (else None)."""
    out = {}
    for d in DIMENSIONS:
        acc = mean_std([r[d]["accuracy"] for r in per_run])
        f1 = mean_std([r[d]["macro_f1"] for r in per_run])
        briers = [r[d]["brier"] for r in per_run]
        eces = [r[d]["ece"] for r in per_run]
        out[d] = {"acc_mean": acc[0], "acc_std": acc[1], "f1_mean": f1[0], "f1_std": f1[1],
                  "brier_mean": mean_std(briers)[0] if briers and None not in briers else None,
                  "ece_mean": mean_std(eces)[0] if eces and None not in eces else None,
                  "unparsed": sum(r[d]["unparsed"] for r in per_run)}
    return out


def correctness(gold: Sequence[dict], answers: Sequence[dict | None], dimension: str) -> list[int]:
    """1 where the answer's score equals the gold label, else 0 (unparsed: 0), per post in order."""
    return [int(predicted(a, dimension) == int(g[dimension])) for g, a in zip(gold, answers, strict=True)]
