"""Task and calibration metrics: accuracy, macro-F1 (zero_division=0), multi-class Brier, ECE,
and the paired significance test against the baseline."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.metrics import f1_score

LABELS = [1, 2, 3, 4, 5]
ECE_BINS = 15


def accuracy(y_true, y_pred) -> float:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    return float((y_true == y_pred).mean()) if y_true.size else 0.0


def macro_f1(y_true, y_pred, labels: Sequence[int] = LABELS) -> float:
    """sklearn's f1_score(average="macro", zero_division=0) over `labels`, counted with numpy: the
    stacker's offset search calls it thousands of times a run, and sklearn's input checks cost ~8 ms
    a call (a baseline run on 120 posts spent 75 of its 85 s there)."""
    y_true, y_pred = np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred differ in length ({y_true.size} and {y_pred.size})")
    lab = np.asarray(list(labels))[:, None]
    is_true, is_pred = y_true[None, :] == lab, y_pred[None, :] == lab
    tp = (is_true & is_pred).sum(axis=1)
    denominator = is_true.sum(axis=1) + is_pred.sum(axis=1)  # 2tp + fp + fn
    f1 = np.divide(2.0 * tp, denominator, out=np.zeros(len(lab)), where=denominator > 0)
    return float(f1.mean()) if len(lab) else 0.0


def f1_per_class(y_true, y_pred, labels: Sequence[int] = LABELS) -> list[float]:
    return [float(v) for v in f1_score(y_true, y_pred, labels=list(labels), average=None, zero_division=0)]


def brier(y_true, probs: np.ndarray, labels: Sequence[int] = LABELS) -> float:
    """Multi-class Brier score: mean over samples of sum_k (p_k - 1[y = k])^2 (range 0..2)."""
    y = np.asarray(y_true)
    onehot = (y[:, None] == np.asarray(labels)[None, :]).astype(float)
    return float(((probs - onehot) ** 2).sum(axis=1).mean()) if y.size else 0.0


def ece(y_true, probs: np.ndarray, labels: Sequence[int] = LABELS, n_bins: int = ECE_BINS) -> float:
    """Top-label expected calibration error with `n_bins` equal-width confidence bins over (0, 1];
    each bin weighted by its share of samples (docs/decisions.md)."""
    y = np.asarray(y_true)
    if not y.size:
        return 0.0
    conf = probs.max(axis=1)
    pred = np.asarray(labels)[probs.argmax(axis=1)]
    correct = (pred == y).astype(float)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        mask = (conf > lo) & (conf <= hi)
        if mask.any():
            total += mask.mean() * abs(correct[mask].mean() - conf[mask].mean())
    return float(total)


def reliability_bins(y_true, probs: np.ndarray, labels: Sequence[int] = LABELS, n_bins: int = ECE_BINS) -> list[dict]:
    y = np.asarray(y_true)
    conf = probs.max(axis=1)
    pred = np.asarray(labels)[probs.argmax(axis=1)]
    correct = (pred == y).astype(float)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        mask = (conf > lo) & (conf <= hi)
        rows.append({"lower": float(lo), "upper": float(hi), "count": int(mask.sum()),
                     "confidence": float(conf[mask].mean()) if mask.any() else None,
                     "accuracy": float(correct[mask].mean()) if mask.any() else None})
    return rows


DECODINGS = ("argmax", "ordinal")


def decode_labels(probs: np.ndarray, decode: str = "argmax") -> np.ndarray:
    """Labels 1..K from class probabilities. "argmax": the most probable class. "ordinal"
    (extension): the label with the least expected ordinal distance sum_k p_k |k - j|, which is
    the median of the distribution (the smallest j whose cumulative probability reaches 0.5)."""
    if decode == "argmax":
        return probs.argmax(axis=1) + 1
    if decode == "ordinal":
        cumulative = np.cumsum(probs, axis=1) / probs.sum(axis=1, keepdims=True)
        return (cumulative < 0.5 - 1e-12).sum(axis=1) + 1
    raise ValueError(f"decode must be one of {DECODINGS}, got {decode!r}")


def all_metrics(y_true, probs: np.ndarray, decode: str = "argmax") -> dict[str, float]:
    labels = list(range(1, probs.shape[1] + 1))
    pred = decode_labels(probs, decode)
    return {"accuracy": accuracy(y_true, pred), "macro_f1": macro_f1(y_true, pred, labels),
            "brier": brier(y_true, probs, labels), "ece": ece(y_true, probs, labels)}


def paired_test(variant: Sequence[float], baseline: Sequence[float]) -> dict[str, float]:
    """Paired t-test over seeds (each seed is one split + one model for both variants); with a
    single seed there is nothing to test and p is reported as 1."""
    from scipy import stats

    a, b = np.asarray(variant, float), np.asarray(baseline, float)
    if a.size < 2 or np.allclose(a - b, (a - b)[0]):
        diff = float((a - b).mean()) if a.size else 0.0
        return {"mean_diff": diff, "t": float("nan"), "p": 1.0 if diff <= 0 or a.size < 2 else 0.0}
    t, p = stats.ttest_rel(a, b)
    return {"mean_diff": float((a - b).mean()), "t": float(t), "p": float(p)}
