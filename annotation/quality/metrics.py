"""Per-annotator quality figures and the alert rules of issue 12, without Django: error against
gold (MAE and within-one, with counts), rolling ordinal α of each annotator against the rest,
gold error over time, seconds per item, and alerts for low agreement, rising gold error, gold
error or model-estimated bias that stays high, and speeding. Inputs are plain arrays; every threshold is a parameter with a default."""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np

from annotation.agreement.mathematics import alpha, others_mean

from . import SCORES


@dataclass(frozen=True)
class JudgmentLog:
    """Judgments as parallel arrays, one row each, in any order. `seconds` <= 0 or NaN means "not
    measured" (imported judgments, API clients that send no timing) and is left out of speed."""

    annotator: np.ndarray  # (n,) int ids
    item: np.ndarray  # (n,) int post ids
    scores: np.ndarray  # (n, D), NaN where a dimension was not scored
    seconds: np.ndarray  # (n,) seconds spent on the post
    time: np.ndarray  # (n,) when submitted: any increasing number, e.g. epoch seconds
    dimensions: tuple[str, ...]

    def __post_init__(self) -> None:
        coerced = {
            "annotator": np.asarray(self.annotator, dtype=np.int64).reshape(-1),
            "item": np.asarray(self.item, dtype=np.int64).reshape(-1),
            "scores": np.asarray(self.scores, dtype=float).reshape(-1, len(self.dimensions)),
            "seconds": np.asarray(self.seconds, dtype=float).reshape(-1),
            "time": np.asarray(self.time, dtype=float).reshape(-1),
        }
        n = len(coerced["annotator"])
        if any(len(v) != n for v in coerced.values()) or coerced["scores"].shape[1] != len(self.dimensions):
            raise ValueError("JudgmentLog arrays must have one row per judgment and one score column per dimension")
        present = coerced["scores"][~np.isnan(coerced["scores"])]
        if not np.isin(present, SCORES).all():
            raise ValueError(f"scores must be one of {SCORES} or NaN")
        for name, value in coerced.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "dimensions", tuple(self.dimensions))

    def chronological(self) -> np.ndarray:
        """Row order by annotator, then submission time (ties kept in input order)."""
        return np.lexsort((np.arange(len(self.time)), self.time, self.annotator))


@dataclass(frozen=True)
class GoldSet:
    """Posts with known labels: one row per post, score columns in the log's dimension order."""

    item: np.ndarray  # (m,) int post ids, unique
    scores: np.ndarray  # (m, D)

    def __post_init__(self) -> None:
        item = np.asarray(self.item, dtype=np.int64).reshape(-1)
        scores = np.asarray(self.scores, dtype=float)
        if len(item):
            scores = scores.reshape(len(item), -1)
        elif scores.ndim != 2:
            scores = np.empty((0, 0))  # no gold yet: lookup() sizes its answer itself
        if len(np.unique(item)) != len(item):
            raise ValueError("gold posts must be unique")
        object.__setattr__(self, "item", item)
        object.__setattr__(self, "scores", scores)

    def lookup(self, items: np.ndarray, n_dimensions: int) -> tuple[np.ndarray, np.ndarray]:
        """(is gold, gold scores) for each of `items`; rows of non-gold posts are NaN."""
        scores = np.full((len(items), n_dimensions), np.nan)
        if not len(self.item):
            return np.zeros(len(items), dtype=bool), scores
        order = np.argsort(self.item)
        sorted_items = self.item[order]
        pos = np.minimum(np.searchsorted(sorted_items, items), len(sorted_items) - 1)
        is_gold = sorted_items[pos] == items
        scores[is_gold] = self.scores[order][pos[is_gold]]
        return is_gold, scores


@dataclass(frozen=True)
class GoldFigures:
    """Error against gold per annotator (rows, in `annotators` order) and dimension (columns)."""

    annotators: np.ndarray  # (A,)
    dimensions: tuple[str, ...]
    n: np.ndarray  # (A, D) gold judgments scored
    mae: np.ndarray  # (A, D) mean absolute error, NaN where n == 0
    within_one: np.ndarray  # (A, D) share with |error| <= 1, NaN where n == 0


@dataclass(frozen=True)
class Series:
    """A figure over an annotator's time line, for plotting. `dimension` is None for speed."""

    annotator: int
    dimension: str | None
    time: np.ndarray
    value: np.ndarray


@dataclass(frozen=True)
class AlertThresholds:
    """Defaults for the alert rules; the Django side reads them from settings."""

    # Agreement: ordinal α of the annotator against the rounded mean of the others, last N judgments.
    # 0.5 = halfway between chance and perfect; the paper's whole-crowd α is 0.67-0.73, and one
    # annotator against the mean of five others usually scores above the pairwise figure.
    min_alpha: float = 0.5
    alpha_window: int = 100
    alpha_min_pairs: int = 30
    # Gold: MAE over the last `gold_window` gold judgments against the first `gold_baseline`.
    # Chosen on the simulated crowd (400 gold judgments, checked at four points): a drifting
    # annotator is caught 97% of the time, careful and competent ones never, a steadily biased one
    # 1% of the time. At a 5% gold rate the rule can speak after 600 judgments.
    gold_window: int = 15
    gold_baseline: int = 15
    gold_rise: float = 0.5
    gold_min_z: float = 2.5
    # Gold error that stays high (a level, not a rise): MAE over the last `gold_high_window` gold
    # judgments at or above `gold_max_mae`. Issue 20: a steadily biased annotator (+1 on everything)
    # never *rises*, so the rule above missed them on two dimensions of three. On the simulated crowd
    # (150 gold judgments each, four seeds) the last 50 give the biased annotator 0.8-1.1 and the
    # careful and competent ones 0.1-0.5 (no 50-window of theirs ever reaches 0.6).
    gold_high_window: int = 50
    gold_max_mae: float = 0.65
    # The aggregation model's estimated bias (mean signed offset from the true label, aggregation.py)
    # at or beyond +-`max_bias` on a dimension, over at least `bias_min_judgments` counted judgments:
    # needs no gold at all. Simulated crowd: biased annotator +0.97 to +1.01, drifting +0.18 to +0.38,
    # everyone else within +-0.27.
    max_bias: float = 0.5
    bias_min_judgments: int = 50
    # Speed: median seconds over the last N measured judgments. Reading a Weibo post and giving
    # three scores takes longer than this; the demo data draws 5-40 s.
    seconds_floor: float = 5.0
    seconds_window: int = 50
    seconds_min_judgments: int = 20


class AlertKind(enum.StrEnum):
    LOW_AGREEMENT = "low_agreement"
    GOLD_ERROR_RISING = "gold_error_rising"
    GOLD_ERROR_HIGH = "gold_error_high"
    BIASED = "biased"
    SPEEDING = "speeding"


@dataclass(frozen=True)
class Alert:
    annotator: int
    kind: AlertKind
    dimension: str | None  # None for speeding: time is spent on a post, not a dimension
    value: float  # the α, recent gold MAE, estimated bias or median seconds that tripped the rule
    threshold: float  # what it was compared with
    since: float  # time of the first judgment in the window, so a panel can link to them
    until: float


@dataclass(frozen=True)
class QualityReport:
    annotators: np.ndarray  # (A,) ids, the row order of every (A, ...) array
    dimensions: tuple[str, ...]
    n_judgments: np.ndarray  # (A,)
    gold: GoldFigures
    recent_alpha: np.ndarray  # (A, D) α over the last `alpha_window` judgments, NaN = undefined
    recent_median_seconds: np.ndarray  # (A,) NaN = nothing measured
    ranking: list[int]  # annotator ids, best first
    alerts: list[Alert]
    alpha_series: list[Series] = field(repr=False)
    gold_error_series: list[Series] = field(repr=False)
    seconds_series: list[Series] = field(repr=False)


# --- Figures ---------------------------------------------------------------------------------

def rating_matrices(log: JudgmentLog, *, exclude_items: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(annotator ids, post ids, {dimension: annotators x posts matrix, NaN = not scored}): the
    shape `annotation.agreement.mathematics.Ratings` has and the aggregation takes. Gold posts
    belong in `exclude_items`: they never count toward final labels."""
    annotators, items, matrices, _ = _matrices(log, _kept(log, exclude_items))
    return annotators, items, matrices

def gold_figures(log: JudgmentLog, gold: GoldSet) -> GoldFigures:
    """MAE and within-one agreement against gold per annotator and dimension, with counts."""
    annotators, a_index = np.unique(log.annotator, return_inverse=True)
    is_gold, truth = gold.lookup(log.item, len(log.dimensions))
    error = np.abs(log.scores[is_gold] - truth[is_gold])
    a_gold = a_index[is_gold]
    n_annotators, n_dims = len(annotators), len(log.dimensions)
    n = np.zeros((n_annotators, n_dims), dtype=np.int64)
    total = np.zeros((n_annotators, n_dims))
    close = np.zeros((n_annotators, n_dims))
    for d in range(n_dims):
        scored = ~np.isnan(error[:, d])
        n[:, d] = np.bincount(a_gold[scored], minlength=n_annotators)
        total[:, d] = np.bincount(a_gold[scored], weights=error[scored, d], minlength=n_annotators)
        close[:, d] = np.bincount(a_gold[scored], weights=error[scored, d] <= 1, minlength=n_annotators)
    with np.errstate(invalid="ignore", divide="ignore"):
        return GoldFigures(annotators, log.dimensions, n, total / n, close / n)


def gold_error_series(log: JudgmentLog, gold: GoldSet, *, window: int = 20) -> list[Series]:
    """Per annotator and dimension: MAE over the last `window` gold judgments (fewer at the
    start), one point per gold judgment, in submission order."""
    is_gold, truth = gold.lookup(log.item, len(log.dimensions))
    out = []
    for annotator, rows in _rows_by_annotator(log):
        rows = rows[is_gold[rows]]
        for d, dimension in enumerate(log.dimensions):
            error = np.abs(log.scores[rows, d] - truth[rows, d])
            scored = ~np.isnan(error)
            out.append(Series(annotator, dimension, log.time[rows][scored], _trailing_mean(error[scored], window)))
    return out


def rest_rounded_mean(log: JudgmentLog, *, exclude_items: np.ndarray | None = None) -> np.ndarray:
    """For each judgment (n, D): the other annotators' mean score on the same post, rounded with
    halves up, exactly as `rater_vs_rest` on the agreement dashboard takes it; NaN where nobody
    else scored, and on rows of `exclude_items` (gold posts are nobody's "rest")."""
    rows = _kept(log, exclude_items)
    _, _, matrices, (a_index, i_index) = _matrices(log, rows)
    out = np.full(log.scores.shape, np.nan)
    for d, dimension in enumerate(log.dimensions):
        out[rows, d] = np.floor(others_mean(matrices[dimension]) + 0.5)[a_index, i_index]
    return out


def rolling_alpha(log: JudgmentLog, *, window: int = 100, step: int | None = None, min_pairs: int = 30,
                  exclude_items: np.ndarray | None = None) -> list[Series]:
    """Per annotator and dimension: ordinal Krippendorff α between the annotator's scores and the
    rounded mean of the others on the same posts (as `annotation.agreement.rater_vs_rest`), over
    their last `window` judgments, every `step` judgments (default window // 2) and always at the
    latest. NaN where fewer than `min_pairs` pairs or a single value makes α undefined. Gold posts
    belong in `exclude_items`: they never count toward agreement."""
    step = step or max(1, window // 2)
    rest = rest_rounded_mean(log, exclude_items=exclude_items)
    keep = np.zeros(len(log.item), dtype=bool)
    keep[_kept(log, exclude_items)] = True
    out = []
    for annotator, rows in _rows_by_annotator(log):
        rows = rows[keep[rows]]
        ends = _window_ends(len(rows), window, step)
        for d, dimension in enumerate(log.dimensions):
            pairs = np.vstack([log.scores[rows, d], rest[rows, d]])
            paired = np.cumsum(np.r_[0, ~np.isnan(pairs).any(axis=0)])
            values = [_window_alpha(pairs[:, max(0, end - window):end], paired[end] - paired[max(0, end - window)],
                                    min_pairs) for end in ends]
            out.append(Series(annotator, dimension, log.time[rows][ends - 1] if len(ends) else np.empty(0),
                              np.asarray(values, dtype=float)))
    return out


def seconds_series(log: JudgmentLog, *, window: int = 50, step: int | None = None) -> list[Series]:
    """Per annotator: median seconds per post over the last `window` measured judgments, every
    `step` (default window // 5) and at the latest."""
    step = step or max(1, window // 5)
    out = []
    for annotator, rows in _rows_by_annotator(log):
        measured = rows[log.seconds[rows] > 0]
        seconds = log.seconds[measured]
        ends = _window_ends(len(measured), window, step)
        values = [float(np.median(seconds[max(0, end - window):end])) for end in ends]
        out.append(Series(annotator, None, log.time[measured][ends - 1] if len(ends) else np.empty(0),
                          np.asarray(values, dtype=float)))
    return out


def rank_annotators(gold: GoldFigures) -> list[int]:
    """Annotator ids best first: mean gold MAE over dimensions, then within-one (higher first);
    annotators without gold judgments last."""
    with np.errstate(invalid="ignore"):
        scored = gold.n > 0
        counted = scored.sum(axis=1)
        mae = np.where(counted > 0, np.where(scored, gold.mae, 0).sum(axis=1) / np.maximum(counted, 1), np.inf)
        within = np.where(counted > 0, np.where(scored, gold.within_one, 0).sum(axis=1) / np.maximum(counted, 1), 0)
    order = np.lexsort((gold.annotators, -within, mae))
    return [int(a) for a in gold.annotators[order]]


# --- Alert rules (pure) --------------------------------------------------------------------------

def low_agreement(alpha: float, *, threshold: float = AlertThresholds.min_alpha) -> bool:
    """α under the threshold. An undefined α (NaN: too few pairs, one value) raises nothing."""
    return not math.isnan(alpha) and alpha < threshold


def gold_error_rising(abs_errors: np.ndarray, *, window: int = AlertThresholds.gold_window,
                      baseline: int = AlertThresholds.gold_baseline, rise: float = AlertThresholds.gold_rise,
                      min_z: float = AlertThresholds.gold_min_z) -> bool:
    """Chronological absolute errors on gold: the last `window` average at least `rise` points
    more than the annotator's first `baseline` did (their level when they started), and the rise
    is at least `min_z` standard errors, so one unlucky run of a noisy annotator does not fire it.
    The baseline is the start rather than "everything earlier", which a long drift would drag up
    until the alert went quiet."""
    errors = np.asarray(abs_errors, dtype=float)
    errors = errors[~np.isnan(errors)]
    if len(errors) < window + baseline:
        return False
    recent, start = errors[-window:], errors[:baseline]
    difference = recent.mean() - start.mean()
    standard_error = math.sqrt(recent.var(ddof=1) / window + start.var(ddof=1) / baseline)
    return bool(difference >= rise and difference >= min_z * standard_error)


def gold_error_high(abs_errors: np.ndarray, *, window: int = AlertThresholds.gold_high_window,
                    max_mae: float = AlertThresholds.gold_max_mae) -> bool:
    """Chronological absolute errors on gold: the last `window` (a full window) average `max_mae` or
    more. A level, so an annotator who was wrong from the start is caught as well as one who drifted."""
    errors = np.asarray(abs_errors, dtype=float)
    errors = errors[~np.isnan(errors)]
    return len(errors) >= window and bool(errors[-window:].mean() >= max_mae)


def biased(bias: float | None, n_judgments: int, *, max_bias: float = AlertThresholds.max_bias,
           min_judgments: int = AlertThresholds.bias_min_judgments) -> bool:
    """The model's estimated bias on a dimension at or beyond +-`max_bias`, from at least
    `min_judgments` judgments. None or NaN (not estimated) raises nothing."""
    return (bias is not None and not math.isnan(bias) and n_judgments >= min_judgments
            and abs(bias) >= max_bias)


def speeding(seconds: np.ndarray, *, floor: float = AlertThresholds.seconds_floor,
             window: int = AlertThresholds.seconds_window,
             min_judgments: int = AlertThresholds.seconds_min_judgments) -> bool:
    """Chronological seconds per post: the median of the last `window` measured ones (> 0) is
    under `floor`, with at least `min_judgments` of them."""
    values = np.asarray(seconds, dtype=float)
    values = values[values > 0][-window:]
    return len(values) >= min_judgments and bool(np.median(values) < floor)


# --- Everything for the panel --------------------------------------------------------------------

def annotator_quality(log: JudgmentLog, gold: GoldSet, *,
                      thresholds: AlertThresholds = AlertThresholds(),
                      model_bias: dict[int, dict[str, tuple[float | None, int]]] | None = None) -> QualityReport:
    """All figures, series, the ranking and the alerts. Gold posts count toward gold error and
    speed (the annotator cannot tell them apart) but never toward agreement. `model_bias`: the
    aggregation model's estimated bias per annotator and dimension, with the number of judgments it
    rests on ({annotator: {dimension: (bias, n)}}), for the bias alert (none without it)."""
    figures = gold_figures(log, gold)
    annotators, dims = figures.annotators, log.dimensions
    alpha_series = rolling_alpha(log, window=thresholds.alpha_window, min_pairs=thresholds.alpha_min_pairs,
                                 exclude_items=gold.item)
    error_series = gold_error_series(log, gold, window=thresholds.gold_window)
    speed_series = seconds_series(log, window=thresholds.seconds_window)
    a_index = {int(a): i for i, a in enumerate(annotators)}
    d_index = {d: i for i, d in enumerate(dims)}

    recent_alpha = np.full((len(annotators), len(dims)), np.nan)
    for series in alpha_series:
        if len(series.value):
            recent_alpha[a_index[series.annotator], d_index[series.dimension]] = series.value[-1]
    recent_seconds = np.full(len(annotators), np.nan)
    for series in speed_series:
        if len(series.value):
            recent_seconds[a_index[series.annotator]] = series.value[-1]

    alerts: list[Alert] = []
    is_gold, truth = gold.lookup(log.item, len(log.dimensions))
    by_annotator = dict(_rows_by_annotator(log))
    for annotator, rows in by_annotator.items():
        non_gold = rows[~is_gold[rows]]
        for d, dimension in enumerate(dims):
            alpha = recent_alpha[a_index[annotator], d]
            if low_agreement(alpha, threshold=thresholds.min_alpha):
                recent = non_gold[-thresholds.alpha_window:]
                alerts.append(Alert(annotator, AlertKind.LOW_AGREEMENT, dimension, float(alpha), thresholds.min_alpha,
                                    float(log.time[recent[0]]), float(log.time[recent[-1]])))
            gold_rows = rows[is_gold[rows]]
            error = np.abs(log.scores[gold_rows, d] - truth[gold_rows, d])
            scored = ~np.isnan(error)
            if gold_error_rising(error, window=thresholds.gold_window, baseline=thresholds.gold_baseline,
                                 rise=thresholds.gold_rise, min_z=thresholds.gold_min_z):
                recent = gold_rows[scored][-thresholds.gold_window:]
                baseline = float(error[scored][:thresholds.gold_baseline].mean())
                alerts.append(Alert(annotator, AlertKind.GOLD_ERROR_RISING, dimension,
                                    float(error[scored][-thresholds.gold_window:].mean()),
                                    baseline + thresholds.gold_rise, float(log.time[recent[0]]),
                                    float(log.time[recent[-1]])))
            if gold_error_high(error, window=thresholds.gold_high_window, max_mae=thresholds.gold_max_mae):
                recent = gold_rows[scored][-thresholds.gold_high_window:]
                alerts.append(Alert(annotator, AlertKind.GOLD_ERROR_HIGH, dimension,
                                    float(error[scored][-thresholds.gold_high_window:].mean()),
                                    thresholds.gold_max_mae, float(log.time[recent[0]]), float(log.time[recent[-1]])))
            bias, n_bias = (model_bias or {}).get(annotator, {}).get(dimension, (None, 0))
            if len(non_gold) and biased(bias, n_bias, max_bias=thresholds.max_bias,
                                        min_judgments=thresholds.bias_min_judgments):
                alerts.append(Alert(annotator, AlertKind.BIASED, dimension, float(bias), thresholds.max_bias,
                                    float(log.time[non_gold[0]]), float(log.time[non_gold[-1]])))
        measured = rows[log.seconds[rows] > 0]
        if speeding(log.seconds[measured], floor=thresholds.seconds_floor, window=thresholds.seconds_window,
                    min_judgments=thresholds.seconds_min_judgments):
            recent = measured[-thresholds.seconds_window:]
            alerts.append(Alert(annotator, AlertKind.SPEEDING, None, float(recent_seconds[a_index[annotator]]),
                                thresholds.seconds_floor, float(log.time[recent[0]]), float(log.time[recent[-1]])))

    return QualityReport(
        annotators=annotators, dimensions=dims, n_judgments=np.bincount(np.searchsorted(annotators, log.annotator),
                                                                        minlength=len(annotators)),
        gold=figures, recent_alpha=recent_alpha, recent_median_seconds=recent_seconds,
        ranking=rank_annotators(figures), alerts=alerts, alpha_series=alpha_series,
        gold_error_series=error_series, seconds_series=speed_series,
    )


# --- Helpers -------------------------------------------------------------------------------------

def _rows_by_annotator(log: JudgmentLog) -> list[tuple[int, np.ndarray]]:
    """(annotator id, their row indices in submission order), annotators ascending."""
    order = log.chronological()
    annotators = log.annotator[order]
    starts = np.flatnonzero(np.r_[True, annotators[1:] != annotators[:-1]]) if len(order) else np.empty(0, int)
    bounds = np.r_[starts, len(order)]
    return [(int(annotators[s]), order[s:e]) for s, e in zip(bounds[:-1], bounds[1:])]


def _window_ends(n: int, window: int, step: int) -> np.ndarray:
    """Exclusive ends of the windows: every `step` from the first full window, and always `n`."""
    if n == 0:
        return np.empty(0, dtype=np.intp)
    ends = np.arange(min(window, n), n + 1, step)
    return ends if ends[-1] == n else np.append(ends, n)


def _trailing_mean(values: np.ndarray, window: int) -> np.ndarray:
    cumulative = np.r_[0.0, np.cumsum(values)]
    ends = np.arange(1, len(values) + 1)
    starts = np.maximum(ends - window, 0)
    return (cumulative[ends] - cumulative[starts]) / (ends - starts)


def _window_alpha(pairs: np.ndarray, n_pairs: int, min_pairs: int) -> float:
    if n_pairs < max(min_pairs, 1):
        return math.nan
    value = alpha(pairs, "ordinal")
    return math.nan if value is None else value  # None: a single value used, alpha is undefined


def _kept(log: JudgmentLog, exclude_items: np.ndarray | None) -> np.ndarray:
    """Row indices of the judgments not on `exclude_items`."""
    if exclude_items is None or not len(exclude_items):
        return np.arange(len(log.item))
    return np.flatnonzero(~np.isin(log.item, exclude_items))


def _matrices(log: JudgmentLog, rows: np.ndarray):
    """Annotators x posts matrices over `rows`, and where each of those rows sits in them."""
    annotators, a_index = np.unique(log.annotator[rows], return_inverse=True)
    items, i_index = np.unique(log.item[rows], return_inverse=True)
    matrices = {}
    for d, dimension in enumerate(log.dimensions):
        matrix = np.full((len(annotators), len(items)), np.nan)
        matrix[a_index, i_index] = log.scores[rows, d]
        matrices[dimension] = matrix
    return annotators, items, matrices, (a_index, i_index)
