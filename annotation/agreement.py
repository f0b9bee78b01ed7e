"""Krippendorff's alpha from the database: per dimension and level, bootstrap intervals, pairs,
each annotator against the rest, rater severity, subgroups, score distributions, batch trend."""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import krippendorff
import numpy as np

from core.jobs import job_run

from .models import DIMENSIONS, AgreementReport, AnnotatorProfile, Batch, Judgment

LEVELS = ("ordinal", "interval", "nominal")
VALUE_DOMAIN = [1, 2, 3, 4, 5]


@dataclass
class Ratings:
    """Raters x units matrices (NaN = missing), one per dimension."""

    rater_ids: list[int]
    unit_ids: list[int]
    matrices: dict[str, np.ndarray]


def load_ratings(*, batch_ids: list[int] | None = None) -> Ratings:
    qs = Judgment.objects.all()
    if batch_ids is not None:
        qs = qs.filter(post__batch_id__in=batch_ids)
    rows = np.asarray(list(qs.values_list("annotator_id", "post_id", *DIMENSIONS)), dtype=float).reshape(-1, 5)
    raters = sorted({int(r) for r in rows[:, 0]})
    units = sorted({int(u) for u in rows[:, 1]})
    r_index = {r: i for i, r in enumerate(raters)}
    u_index = {u: i for i, u in enumerate(units)}
    ri = np.fromiter((r_index[int(r)] for r in rows[:, 0]), dtype=int, count=len(rows))
    ui = np.fromiter((u_index[int(u)] for u in rows[:, 1]), dtype=int, count=len(rows))
    matrices = {}
    for k, dim in enumerate(DIMENSIONS):
        m = np.full((len(raters), len(units)), np.nan)
        m[ri, ui] = rows[:, 2 + k]  # None became NaN
        matrices[dim] = m
    return Ratings(raters, units, matrices)


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


def judgments_fingerprint() -> str:
    """Changes whenever a judgment is added, removed or revised."""
    from django.db.models import Count, Max

    agg = Judgment.objects.aggregate(n=Count("id"), last=Max("updated_at"), top=Max("id"))
    return f"{agg['n']}:{agg['top']}:{agg['last'].isoformat() if agg['last'] else ''}"


def agreement_report_cached(*, timeout: int = 300) -> dict:
    """The dashboard's report, recomputed only when the judgments changed (pollers share it)."""
    from django.core.cache import cache

    key = f"agreement-report:{judgments_fingerprint()}"
    try:
        report = cache.get(key)
    except Exception:  # the cache (Redis) is down: compute, do not fail the page
        return agreement_report(bootstrap=0)
    if report is None:
        report = agreement_report(bootstrap=0)
        try:
            cache.set(key, report, timeout)
        except Exception:
            pass
    return report


def agreement_report(*, bootstrap: int = 0, batch_ids: list[int] | None = None, seed: int = 0,
                     with_trend: bool = True, interval_levels: tuple[str, ...] = LEVELS) -> dict:
    """Everything the dashboard and `manage.py agreement` show. `bootstrap` > 0 adds intervals."""
    ratings = load_ratings(batch_ids=batch_ids)
    profiles = {p.user_id: p for p in AnnotatorProfile.objects.filter(user_id__in=ratings.rater_ids)}
    names = [profiles[r].pseudonym if r in profiles else f"user-{r}" for r in ratings.rater_ids]
    report: dict = {"n_units": len(ratings.unit_ids), "n_raters": len(ratings.rater_ids), "raters": names,
                    "n_judgments": int(sum((~np.isnan(m)).sum() for m in list(ratings.matrices.values())[:1])),
                    "dimensions": {}}
    groups: dict[str, list[int]] = {}
    for idx, r in enumerate(ratings.rater_ids):
        member = profiles[r].community_member if r in profiles else None
        key = {True: "community member", False: "not a member", None: "unknown"}[member]
        groups.setdefault(key, []).append(idx)
    for dim, m in ratings.matrices.items():
        entry = {"alpha": {lvl: alpha(m, lvl) for lvl in LEVELS}, "distribution": distributions(m),
                 "severity": dict(zip(names, severity(m))),
                 "rater_vs_rest": dict(zip(names, rater_vs_rest(m))),
                 "pairs": pair_matrix(m),
                 "subgroups": {g: {"alpha": alpha(m[idx]), "raters": len(idx),
                                   "mean_score": float(np.nanmean(m[idx])) if (~np.isnan(m[idx])).any() else None}
                               for g, idx in groups.items()}}
        if bootstrap:
            entry["interval"] = {lvl: bootstrap_interval(m, lvl, n_boot=bootstrap, seed=seed) for lvl in interval_levels}
        report["dimensions"][dim] = entry
    if with_trend and batch_ids is None:
        trend = []
        done: list[int] = []
        for batch in Batch.objects.order_by("created_at", "id"):
            done.append(batch.id)
            sub = load_ratings(batch_ids=list(done))
            if sub.unit_ids:
                trend.append({"batch": batch.name, "posts": len(sub.unit_ids),
                              **{d: alpha(sub.matrices[d]) for d in DIMENSIONS}})
        report["trend"] = trend
    return report


def agreement_report_compute(*, report_id: int) -> AgreementReport:
    """Compute a queued report with its bootstrap intervals, once (a redelivered task does nothing)."""
    return job_run(AgreementReport, report_id, lambda report: {"payload": agreement_report(bootstrap=report.bootstrap)})
