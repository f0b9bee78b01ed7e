"""Krippendorff's alpha and the statistics around it, on plain raters x units matrices (NaN =
missing). No Django here (a test proves it): the database is read in selectors.py."""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import krippendorff
import numpy as np

LEVELS = ("ordinal", "interval", "nominal")
VALUE_DOMAIN = [1, 2, 3, 4, 5]


@dataclass
class Ratings:
    """Raters x units matrices (NaN = missing), one per dimension."""

    rater_ids: list[int]
    unit_ids: list[int]
    matrices: dict[str, np.ndarray]
    n_judgments: int = 0  # judgment rows; a judgment may lack a score on some dimension


def ratings_from_rows(rows: list[tuple], dimensions: tuple[str, ...]) -> Ratings:
    """Ratings from (rater, unit, score per dimension...) rows; None scores become NaN."""
    data = np.asarray(rows, dtype=float).reshape(-1, 2 + len(dimensions))
    raters = sorted({int(r) for r in data[:, 0]})
    units = sorted({int(u) for u in data[:, 1]})
    r_index = {r: i for i, r in enumerate(raters)}
    u_index = {u: i for i, u in enumerate(units)}
    ri = np.fromiter((r_index[int(r)] for r in data[:, 0]), dtype=int, count=len(data))
    ui = np.fromiter((u_index[int(u)] for u in data[:, 1]), dtype=int, count=len(data))
    matrices = {}
    for k, dim in enumerate(dimensions):
        m = np.full((len(raters), len(units)), np.nan)
        m[ri, ui] = data[:, 2 + k]
        matrices[dim] = m
    return Ratings(raters, units, matrices, n_judgments=len(data))


def value_counts(matrix: np.ndarray) -> np.ndarray:
    """Units x values counts, the form krippendorff takes for fast bootstrapping."""
    return np.stack([(matrix == v).sum(axis=0) for v in VALUE_DOMAIN], axis=1)


def alpha(matrix: np.ndarray, level: str = "ordinal") -> float | None:
    vc = value_counts(matrix)
    pairable = vc[vc.sum(axis=1) >= 2]
    if len(pairable) == 0 or len(np.unique(np.nonzero(pairable)[1])) < 2:
        return None  # no pairable units, or a single value used: alpha is undefined
    return float(krippendorff.alpha(value_counts=pairable, value_domain=VALUE_DOMAIN, level_of_measurement=level))


def bootstrap_interval(matrix: np.ndarray, level: str = "ordinal", n_boot: int = 1000, seed: int = 0,
                       confidence: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval from resampling units with replacement."""
    vc = value_counts(matrix)
    vc = vc[vc.sum(axis=1) >= 2]
    if len(vc) < 2:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        sample = vc[rng.integers(0, len(vc), len(vc))]
        if len(np.unique(np.nonzero(sample)[1])) < 2:
            continue
        values.append(krippendorff.alpha(value_counts=sample, value_domain=VALUE_DOMAIN, level_of_measurement=level))
    if not values:
        return None
    tail = (1 - confidence) / 2 * 100
    return float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))


def others_mean(matrix: np.ndarray) -> np.ndarray:
    """For each rater and unit, the mean score of the *other* raters there (NaN where none)."""
    present = ~np.isnan(matrix)
    sums = np.nansum(matrix, axis=0)
    others_n = present.sum(axis=0)[None, :] - present
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (sums[None, :] - np.where(present, matrix, 0)) / others_n
    means[others_n == 0] = np.nan
    return means


def severity(matrix: np.ndarray) -> list[float | None]:
    """Mean signed offset of each rater from the mean of the other raters on the same units."""
    offsets = matrix - others_mean(matrix)
    out = []
    for row in offsets:
        valid = row[~np.isnan(row)]
        out.append(float(valid.mean()) if valid.size else None)
    return out


def rater_vs_rest(matrix: np.ndarray, level: str = "ordinal") -> list[float | None]:
    """Alpha between each rater and the rounded (half up) mean of the other raters."""
    rest = np.floor(others_mean(matrix) + 0.5)
    return [alpha(np.vstack([matrix[r], rest[r]]), level) for r in range(matrix.shape[0])]


def pair_matrix(matrix: np.ndarray, level: str = "ordinal") -> list[list[float | None]]:
    """Alpha for every pair of raters over the units both rated (None with fewer than 2)."""
    n = matrix.shape[0]
    out: list[list[float | None]] = [[None] * n for _ in range(n)]
    present = ~np.isnan(matrix)
    shared = present.astype(np.int32) @ present.T.astype(np.int32)
    for i, j in itertools.combinations(range(n), 2):
        if shared[i, j] < 2:
            continue
        both = present[i] & present[j]
        value = alpha(matrix[[i, j]][:, both], level)
        out[i][j] = out[j][i] = value
    for i in range(n):
        out[i][i] = 1.0
    return out


def distributions(matrix: np.ndarray) -> list[int]:
    return [int((matrix == v).sum()) for v in VALUE_DOMAIN]


def dimension_entry(matrix: np.ndarray, names: list[str], groups: dict[str, list[int]], *, bootstrap: int = 0,
                    seed: int = 0, interval_levels: tuple[str, ...] = LEVELS) -> dict:
    """Everything reported for one dimension: alpha per level, distribution, severity, each rater
    against the rest, pairs, subgroups (rater indexes per group), and bootstrap intervals if asked."""
    entry = {"alpha": {lvl: alpha(matrix, lvl) for lvl in LEVELS}, "distribution": distributions(matrix),
             "severity": dict(zip(names, severity(matrix))),
             "rater_vs_rest": dict(zip(names, rater_vs_rest(matrix))),
             "pairs": pair_matrix(matrix),
             "subgroups": {g: {"alpha": alpha(matrix[idx]), "raters": len(idx),
                               "mean_score": float(np.nanmean(matrix[idx])) if (~np.isnan(matrix[idx])).any() else None}
                           for g, idx in groups.items()}}
    if bootstrap:
        entry["interval"] = {lvl: bootstrap_interval(matrix, lvl, n_boot=bootstrap, seed=seed)
                             for lvl in interval_levels}
    return entry
