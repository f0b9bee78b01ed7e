"""A simulated crowd with known behaviour, for the tests, the benchmark and demonstrations:
posts with true scores, six annotators of known quality (careful, competent, drifting, biased
+1, speeder, random clicker), each scoring every post in their own order and at their own pace.

The noise is deliberately *not* the aggregation model's own (exact-or-one-off slips, rounded
Gaussian scatter, a regime change, straight-lining), so the model is not graded on its own
assumptions."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import SCORES
from .metrics import GoldSet, JudgmentLog

DIMENSIONS = ("explicit", "implicit", "emotional")
# Skewed to the low end, as discriminatory-language data are: most posts are mild.
TRUE_SCORE_SHARES = {
    "explicit": (0.35, 0.25, 0.18, 0.13, 0.09),
    "implicit": (0.30, 0.28, 0.20, 0.13, 0.09),
    "emotional": (0.22, 0.28, 0.24, 0.15, 0.11),
}
LOW, HIGH = SCORES[0], SCORES[-1]

Responder = Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class SimulatedAnnotator:
    name: str
    respond: Responder  # (true scores (n, D), progress through their queue (n,) in [0, 1), rng) -> scores
    median_seconds: float


def _clip(scores: np.ndarray) -> np.ndarray:
    return np.clip(scores, LOW, HIGH)


def careful(truth, progress, rng):
    """Exact 85% of the time, otherwise one point off."""
    slip = rng.random(truth.shape) >= 0.85
    return _clip(truth + slip * rng.choice([-1, 1], truth.shape))


def competent(truth, progress, rng):
    """Rounded Gaussian scatter, sd 0.6."""
    return _clip(truth + np.rint(rng.normal(0, 0.6, truth.shape)))


def drifting(truth, progress, rng):
    """Careful for the first half of their queue, then loses the rubric: +1 and scattered."""
    later = progress[:, None] >= 0.5
    return np.where(later, _clip(truth + 1 + np.rint(rng.normal(0, 1.0, truth.shape))), careful(truth, progress, rng))


def biased_up(truth, progress, rng):
    """Reads carefully but scores everything one point higher (sometimes two, sometimes none)."""
    return _clip(truth + 1 + (rng.random(truth.shape) >= 0.8) * rng.choice([-1, 1], truth.shape))


def speeder(truth, progress, rng):
    """Straight-lines 1-1-1 on three posts in four without reading; otherwise competent."""
    skims = rng.random(len(truth)) < 0.75
    return np.where(skims[:, None], LOW, competent(truth, progress, rng))


def random_clicker(truth, progress, rng):
    return rng.integers(LOW, HIGH + 1, truth.shape).astype(float)


# Best first: this order is the "known" quality ranking the tests check the panel against.
CROWD: tuple[SimulatedAnnotator, ...] = (
    SimulatedAnnotator("careful", careful, 25.0),
    SimulatedAnnotator("competent", competent, 18.0),
    SimulatedAnnotator("drifting", drifting, 20.0),
    SimulatedAnnotator("biased_up", biased_up, 20.0),
    SimulatedAnnotator("speeder", speeder, 2.5),
    SimulatedAnnotator("random", random_clicker, 15.0),
)


@dataclass(frozen=True)
class SimulatedCrowd:
    log: JudgmentLog  # annotator ids are positions in `annotators`, post ids 0..n_posts-1
    truth: np.ndarray  # (n_posts, D)
    gold: GoldSet
    annotators: tuple[SimulatedAnnotator, ...]


def simulate_crowd(n_posts: int, *, gold_fraction: float = 0.1, seed: int = 0,
                   annotators: Sequence[SimulatedAnnotator] = CROWD) -> SimulatedCrowd:
    """Every annotator scores every post, in their own random order; a `gold_fraction` of the
    posts are gold (their true scores known)."""
    rng = np.random.default_rng(seed)
    truth = np.stack([rng.choice(SCORES, n_posts, p=TRUE_SCORE_SHARES[d]) for d in DIMENSIONS], axis=1)
    truth = truth.astype(float)
    columns: dict[str, list[np.ndarray]] = {"annotator": [], "item": [], "scores": [], "seconds": [], "time": []}
    for index, annotator in enumerate(annotators):
        order = rng.permutation(n_posts)
        progress = np.arange(n_posts) / max(n_posts, 1)
        scores = np.empty((n_posts, len(DIMENSIONS)))
        scores[order] = annotator.respond(truth[order], progress, rng)
        seconds = np.empty(n_posts)
        seconds[order] = annotator.median_seconds * rng.lognormal(0.0, 0.35, n_posts)
        # They start a few minutes apart and work without breaks: time = cumulative seconds.
        time = np.empty(n_posts)
        time[order] = 300.0 * index + np.cumsum(seconds[order])
        columns["annotator"].append(np.full(n_posts, index))
        columns["item"].append(np.arange(n_posts))
        columns["scores"].append(scores)
        columns["seconds"].append(seconds)
        columns["time"].append(time)
    log = JudgmentLog(annotator=np.concatenate(columns["annotator"]), item=np.concatenate(columns["item"]),
                      scores=np.concatenate(columns["scores"]), seconds=np.concatenate(columns["seconds"]),
                      time=np.concatenate(columns["time"]), dimensions=DIMENSIONS)
    gold_items = np.sort(rng.choice(n_posts, int(round(gold_fraction * n_posts)), replace=False))
    return SimulatedCrowd(log=log, truth=truth, gold=GoldSet(gold_items, truth[gold_items]),
                          annotators=tuple(annotators))
