"""Myopia diagnostics (paper §"Myopia's Impact on Representation", Appendix "Representation
Metrics" and "Diagnostic Study"): retained-character coverage, MAD and D_high / D_low, and the
random-deletion and identity-masking curves."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .lexicon import Lexicon
from .myopia import MyopiaResult

HIGH_WEIGHT = 0.7  # v_high averages tokens with weight > 0.7
LOW_WEIGHT = 0.5  # v_low averages tokens with weight < 0.5


def retained_coverage(results: Sequence[MyopiaResult]) -> float:
    """Share of characters kept after level-5 filtering, over a corpus."""
    total = sum(len(t.text) for r in results for t in r.tokens)
    kept = sum(len(t.text) for r in results for t in r.tokens if t.kept)
    return kept / total if total else 0.0


def representation_metrics(states: np.ndarray, weights: Sequence[float]) -> dict[str, float | None]:
    """For one sentence with token states H (n x d) and Myopia weights w: MAD between the
    Myopia-weighted and the mean-pooled vectors, and the L1 distances (divided by d) from the
    weighted vector to the high-weight and low-weight token means (Appendix formulas)."""
    h = np.asarray(states, dtype=float)
    w = np.asarray(weights, dtype=float)
    d = h.shape[1]
    kept = w > 0
    if not kept.any():
        return {"mad": None, "d_high": None, "d_low": None}
    v_mean = h.mean(axis=0)
    v_wgt = (w[kept, None] / w[kept].sum() * h[kept]).sum(axis=0)  # Algorithm 1 pooling
    out: dict[str, float | None] = {"mad": float(np.abs(v_wgt - v_mean).sum() / d)}
    high, low = w > HIGH_WEIGHT, w < LOW_WEIGHT
    out["d_high"] = float(np.abs(h[high].mean(axis=0) - v_wgt).sum() / d) if high.any() else None
    out["d_low"] = float(np.abs(h[low].mean(axis=0) - v_wgt).sum() / d) if low.any() else None
    return out


def corpus_representation_metrics(results: Sequence[MyopiaResult],
                                  state_of: Callable[[str], np.ndarray]) -> dict[str, float | None]:
    """Average the per-sentence metrics; `state_of(token_text)` gives a token's state vector."""
    rows = []
    for r in results:
        if not r.tokens:
            continue
        states = np.stack([state_of(t.text) for t in r.tokens])
        rows.append(representation_metrics(states, [t.weight for t in r.tokens]))
    summary = {}
    for key in ("mad", "d_high", "d_low"):
        values = [row[key] for row in rows if row[key] is not None]
        summary[key] = float(np.mean(values)) if values else None
    return summary


def random_deletion(tokens: Sequence[str], retention: float, rng: np.random.Generator) -> str:
    """Keep a random `retention` share of the tokens, in order (Hypothesis 1)."""
    if retention >= 1.0 or not tokens:
        return "".join(tokens)
    n_keep = max(1, int(round(len(tokens) * retention)))
    keep = np.sort(rng.choice(len(tokens), size=n_keep, replace=False))
    return "".join(tokens[i] for i in keep)


def mask_identity(tokens: Sequence[str], lexicon: Lexicon, placeholder: str = "[IDENTITY]") -> str:
    """Replace identity anchors (terms of K, or tokens containing one) by a placeholder (Hypothesis 2)."""
    from .myopia import keyword_strengths

    strengths = keyword_strengths(list(tokens), lexicon)
    return "".join(placeholder if s == 1.0 else t for t, s in zip(tokens, strengths))
