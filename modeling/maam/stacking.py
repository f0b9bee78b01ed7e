"""Extensions measured for the `best-offline` preset (issue 23, item 3; docs/best_offline.md):

* **Stacking over dimensions** - a small multinomial logistic regression per dimension reads the
  cross-fitted log-probabilities of every dimension (and of every base backbone), so explicit can
  use what the implicit model saw (the two are strongly correlated in ChLGBT).
* **Per-class decision offsets** - additive offsets on the log-probabilities, tuned by coordinate
  ascent for macro-F1 on predictions none of whose models saw the post (argmax of p is not the
  macro-F1-optimal decision when classes are skewed).

Everything here works on arrays; train.py wires it into a model."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .metrics import macro_f1

EPS = 1e-6
OFFSET_GRID = np.round(np.arange(-1.5, 1.51, 0.1), 2)


def log_features(probs: Sequence[np.ndarray]) -> np.ndarray:
    """Concatenated log-probabilities (the stacker's input)."""
    return np.hstack([np.log(np.clip(p, EPS, None)) for p in probs])


def tune_offsets(p: np.ndarray, y: Sequence[int], passes: int = 2, grid: np.ndarray = OFFSET_GRID) -> np.ndarray:
    """Per-class offsets b maximising macro-F1 of argmax(log p + b) on (p, y) - coordinate ascent
    over the classes, `passes` times; ties keep the smaller |b| (stay closest to the model)."""
    n_classes = p.shape[1]
    labels = list(range(1, n_classes + 1))
    logp = np.log(np.clip(p, EPS, None))
    y = np.asarray(y)
    b = np.zeros(n_classes)

    def score(offsets):
        return macro_f1(y, (logp + offsets).argmax(axis=1) + 1, labels)

    best = score(b)
    for _ in range(passes):
        for k in range(n_classes):
            for value in grid:
                trial = b.copy()
                trial[k] = value
                s = score(trial)
                if s > best + 1e-12 or (abs(s - best) <= 1e-12 and abs(value) < abs(b[k])):
                    best, b = s, trial
    return b


def apply_offsets(p: np.ndarray, offsets: np.ndarray | None) -> np.ndarray:
    """Probabilities whose argmax is the offset decision: softmax(log p + b)."""
    if offsets is None:
        return p
    logits = np.log(np.clip(p, EPS, None)) + offsets
    logits -= logits.max(axis=1, keepdims=True)
    out = np.exp(logits)
    return out / out.sum(axis=1, keepdims=True)


@dataclass
class Stacker:
    """Multinomial logistic regression on log-probability features (class-balanced)."""

    C: float = 0.5
    coef: np.ndarray | None = None
    intercept: np.ndarray | None = None
    classes: list[int] = field(default_factory=list)
    n_classes: int = 5

    def fit(self, x: np.ndarray, y: Sequence[int], seed: int = 0) -> Stacker:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=self.C, class_weight="balanced", max_iter=2000, random_state=seed)
        model.fit(x, np.asarray(y, dtype=int))
        self.coef, self.intercept, self.classes = model.coef_, model.intercept_, [int(c) for c in model.classes_]
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        logits = x @ self.coef.T + self.intercept
        if logits.shape[1] == 1:
            logits = np.hstack([-logits / 2, logits / 2])
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        out = np.full((len(x), self.n_classes), 0.0)
        for j, cls in enumerate(self.classes):
            out[:, cls - 1] = p[:, j]
        return out

    def to_dict(self) -> dict:
        return {"C": self.C, "coef": self.coef.tolist(), "intercept": self.intercept.tolist(), "classes": self.classes,
                "n_classes": self.n_classes}

    @classmethod
    def from_dict(cls, d: dict) -> Stacker:
        return cls(C=d["C"], coef=np.asarray(d["coef"]), intercept=np.asarray(d["intercept"]), classes=d["classes"],
                   n_classes=d["n_classes"])


def stacked_oof(features: np.ndarray, y: Sequence[int], folds: list[np.ndarray], C: float, n_classes: int,
                seed: int = 0) -> np.ndarray:
    """Cross-validated stacker probabilities on the (already out-of-fold) features, so offsets are
    tuned on predictions whose stacker did not see the post either."""
    y = np.asarray(y, dtype=int)
    out = np.zeros((len(y), n_classes))
    for held in folds:
        rest = np.setdiff1d(np.arange(len(y)), held)
        out[held] = Stacker(C=C, n_classes=n_classes).fit(features[rest], y[rest], seed).predict_proba(features[held])
    return out


def cv_offsets(p: np.ndarray, y: Sequence[int], folds: list[np.ndarray]) -> np.ndarray:
    """Out-of-fold offset decisions: each fold's offsets tuned on the other folds' predictions, so
    the offsets' own gain is measured on posts they were not tuned on."""
    y = np.asarray(y, dtype=int)
    out = np.zeros_like(p)
    for held in folds:
        rest = np.setdiff1d(np.arange(len(y)), held)
        out[held] = apply_offsets(p[held], tune_offsets(p[rest], y[rest]))
    return out


@dataclass
class Choice:
    """What one dimension keeps: "backbone", "backbone+offsets", "stack" or "stack+offsets"."""

    name: str
    stacker: Stacker | None
    offsets: np.ndarray | None
    scores: dict


def choose(base_oof: np.ndarray, features: np.ndarray | None, y: Sequence[int], folds: list[np.ndarray],
           offsets: bool = True, margin: float = 0.005, seed: int = 0, n_classes: int = 5) -> Choice:
    """Per dimension, keep what helps on held-out predictions: the backbone alone, with decision
    offsets, a stacker over every dimension's (and every ensemble member's) log-probabilities, or
    the stacker with offsets. Each candidate is scored out of fold (the stacker and the offsets
    cross-validated over `folds`); anything but the backbone alone must win by `margin`."""
    y = np.asarray(y, dtype=int)
    labels = list(range(1, n_classes + 1))
    candidates = {"backbone": base_oof}
    if offsets:
        candidates["backbone+offsets"] = cv_offsets(base_oof, y, folds)
    stacked = None
    if features is not None:
        stacked = stacked_oof(features, y, folds, Stacker.C, n_classes, seed)
        candidates["stack"] = stacked
        if offsets:
            candidates["stack+offsets"] = cv_offsets(stacked, y, folds)
    scores = {k: round(macro_f1(y, p.argmax(axis=1) + 1, labels), 5) for k, p in candidates.items()}
    best = "backbone"
    for name, score in scores.items():
        if score >= scores["backbone"] + margin and score > scores[best]:
            best = name
    stacker = Stacker(n_classes=n_classes).fit(features, y, seed) if best.startswith("stack") else None
    tuned = tune_offsets(stacked if best.startswith("stack") else base_oof, y) if best.endswith("offsets") else None
    return Choice(best, stacker, tuned, scores)
