"""Model-based aggregation of ordinal crowd scores: an ordinal Dawid–Skene model with a
MACE-style spamming component, fitted by EM. Gives each annotator's reliability (bias, scale,
spam rate) and each post a posterior over 1–5, a label and a confidence. See docs/quality.md.

The model, for a post with latent true score z and annotator j reporting k:

    P_j(k | z) = (1 - ε_j) · g_j(k | z) + ε_j · ξ_j(k)
    g_j(k | z) = Φ((k + ½ - z - b_j) / σ_j) - Φ((k - ½ - z - b_j) / σ_j)   (outer cells open-ended)

b_j is the annotator's systematic shift (+1 = scores one point too high), σ_j their scatter,
ε_j how often they answer without reading and ξ_j what they answer then (a straight-liner who
presses 1 has ξ_j peaked at 1; a random clicker has ξ_j near uniform). Seven numbers per
annotator instead of Dawid–Skene's twenty, and a 4-vs-5 slip costs less than a 1-vs-5 one.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import sparse, special

from . import SCORES

K = len(SCORES)
_LOWEST = SCORES[0]
_TINY = 1e-300
_SPAM_BOUNDS = (1e-6, 1 - 1e-6)
_BIAS_BOUNDS = (-(K - 1.0), K - 1.0)
_GRID = np.arange(K, dtype=float)  # score index 0..K-1
_UPPER_EDGES = np.append(_GRID[:-1] + 0.5, np.inf)[None, None, :]
_LOWER_EDGES = np.insert(_GRID[1:] - 0.5, 0, -np.inf)[None, None, :]
# Past σ = 3 the ordinal part is flat over five scores and indistinguishable from spamming;
# the cap stops EM creeping along that ridge for a random clicker.
_LOG_SCALE_BOUNDS = (math.log(0.05), math.log(3.0))


@dataclass(frozen=True)
class ModelPriors:
    """Weak priors (MAP rather than maximum likelihood) so an annotator with a handful of
    judgments gets sensible estimates instead of a degenerate zero-scatter or all-spam fit.
    They also anchor the scale: bias is shrunk towards 0, so the crowd's majority defines it.
    bias_sd 0.5: with a few scores at the floor an open-ended cell "explains" them better with a
    negative bias, and a wider prior let two judgments move a unanimous 3 to 4 (Hypothesis found
    it); a hundred judgments outweigh the prior for a real ±1 shift."""

    bias_sd: float = 0.5
    log_scale_mean: float = math.log(0.6)
    log_scale_sd: float = 1.0
    spam_beta: tuple[float, float] = (1.0, 9.0)  # Beta(a, b) on ε_j: mean 0.1, mode 0
    spam_choice_pseudo: float = 1.0  # Dirichlet pseudo-count per score on ξ_j
    class_pseudo: float = 1.0  # Dirichlet pseudo-count per score on the class prior


@dataclass(frozen=True)
class AnnotatorReliability:
    """Per annotator (rows of the input matrix)."""

    bias: np.ndarray  # (J,) b_j in score points
    scale: np.ndarray  # (J,) σ_j
    spam_rate: np.ndarray  # (J,) ε_j
    spam_choices: np.ndarray  # (J, K) ξ_j
    confusion: np.ndarray  # (J, K, K) P_j(k | z), rows z, columns k
    accuracy: np.ndarray  # (J,) P(report = truth), averaged over the class prior
    expected_abs_error: np.ndarray  # (J,) E|report - truth| under the fitted model; lower is better
    n_judgments: np.ndarray  # (J,)


@dataclass(frozen=True)
class OrdinalAggregate:
    """Per post (columns of the input matrix). Posts nobody scored get the class prior and
    `n_judgments == 0`; callers should not use their label."""

    posterior: np.ndarray  # (I, K), rows sum to 1
    label: np.ndarray  # (I,) int in 1..5, the posterior mode
    confidence: np.ndarray  # (I,) posterior probability of `label`
    expected: np.ndarray  # (I,) posterior mean score
    n_judgments: np.ndarray  # (I,)
    annotators: AnnotatorReliability
    class_prior: np.ndarray  # (K,)
    iterations: int
    converged: bool
    log_posterior: tuple[float, ...]  # after each EM iteration; never decreases (generalised EM)


def rounded_mean_labels(matrix: np.ndarray) -> np.ndarray:
    """The project's rounded mean per post (column), vectorised: halves go up (2.5 -> 3), as
    `annotation.adjudication.round_half_up` does; NaN where nobody scored."""
    scores = np.asarray(matrix, dtype=float)
    present = ~np.isnan(scores)
    count = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(present, scores, 0.0).sum(axis=0) / count
    return np.floor(mean + 0.5)


def aggregate_ordinal(matrix: np.ndarray, *, max_iter: int = 300, tol: float = 1e-5,
                      priors: ModelPriors = ModelPriors()) -> OrdinalAggregate:
    """Fit the model to one dimension's annotators × posts matrix (NaN = not scored), the shape
    `annotation.agreement.Ratings` uses. Stops when no posterior probability moves more than
    `tol` in an accelerated cycle, or after `max_iter` EM steps."""
    scores = np.asarray(matrix, dtype=float)
    if scores.ndim != 2:
        raise ValueError("expected an annotators x posts matrix")
    n_annotators, n_items = scores.shape
    obs_j, obs_i = np.nonzero(~np.isnan(scores))
    values = scores[obs_j, obs_i]
    if not np.isin(values, SCORES).all():
        raise ValueError(f"scores must be one of {SCORES} or NaN")
    obs_k = (values - _LOWEST).astype(np.intp)
    # One row per post, one column per (annotator, score): the E-step's log-likelihoods are
    # votes @ log P rearranged, and the M-step's soft counts are votes.T @ posterior.
    votes = sparse.csr_matrix((np.ones(len(obs_i)), (obs_i, obs_j * K + obs_k)), shape=(n_items, n_annotators * K))
    fit = _Fit(votes, np.bincount(obs_j, minlength=n_annotators), np.bincount(obs_i, minlength=n_items) > 0, priors)

    a, b = priors.spam_beta
    start = _Params(bias=np.zeros(n_annotators), log_scale=np.full(n_annotators, priors.log_scale_mean),
                    spam=np.full(n_annotators, np.clip(a / (a + b), *_SPAM_BOUNDS)),
                    choices=np.full((n_annotators, K), 1.0 / K), class_prior=np.full(K, 1.0 / K))
    params = fit.m_step(_initial_posterior(obs_i, obs_k, n_items), start)
    posterior, log_post = fit.e_step(params)
    trace = [log_post]
    steps, converged = 1, False
    # SQUAREM (Varadhan & Roland 2008): two EM steps, extrapolate along them, one EM step to
    # stabilise; fall back to the plain second step if the extrapolation did not help. Plain EM
    # crawls here (a careful annotator's spam rate creeping to 0 took ~150 steps); this takes ~10 cycles.
    while steps < max_iter:
        first = fit.m_step(posterior, params)
        first_posterior, _ = fit.e_step(first)
        second = fit.m_step(first_posterior, first)
        second_posterior, second_log_post = fit.e_step(second)
        steps += 2
        x0, x1, x2 = params.pack(), first.pack(), second.pack()
        r, v = x1 - x0, x2 - 2 * x1 + x0
        norm_v = float(np.linalg.norm(v))
        candidate, candidate_posterior, candidate_log_post = second, second_posterior, second_log_post
        if norm_v > 0 and steps < max_iter:
            step_length = min(-float(np.linalg.norm(r)) / norm_v, -1.0)
            jumped = _Params.unpack(x0 - 2 * step_length * r + step_length**2 * v, n_annotators)
            stabilised = fit.m_step(fit.e_step(jumped)[0], jumped)
            stabilised_posterior, stabilised_log_post = fit.e_step(stabilised)
            steps += 1
            if np.isfinite(stabilised_log_post) and stabilised_log_post >= second_log_post:
                candidate, candidate_posterior, candidate_log_post = stabilised, stabilised_posterior, stabilised_log_post
        delta = float(np.abs(candidate_posterior - posterior).max()) if n_items else 0.0
        params, posterior = candidate, candidate_posterior
        trace.append(candidate_log_post)
        if delta < tol:
            converged = True
            break

    confusion = params.confusion()
    distance = np.abs(_GRID[:, None] - _GRID[None, :])
    reliability = AnnotatorReliability(
        bias=params.bias, scale=np.exp(params.log_scale), spam_rate=params.spam, spam_choices=params.choices,
        confusion=confusion, accuracy=np.einsum("z,jzz->j", params.class_prior, confusion),
        expected_abs_error=np.einsum("z,jzk,zk->j", params.class_prior, confusion, distance),
        n_judgments=fit.n_per_annotator,
    )
    mode = posterior.argmax(axis=1)
    return OrdinalAggregate(
        posterior=posterior, label=mode + _LOWEST, confidence=posterior[np.arange(n_items), mode],
        expected=posterior @ np.asarray(SCORES, dtype=float), n_judgments=np.bincount(obs_i, minlength=n_items),
        annotators=reliability, class_prior=params.class_prior, iterations=steps, converged=converged,
        log_posterior=tuple(trace),
    )


@dataclass(frozen=True)
class _Params:
    bias: np.ndarray
    log_scale: np.ndarray
    spam: np.ndarray
    choices: np.ndarray
    class_prior: np.ndarray

    def confusion(self) -> np.ndarray:
        spam = self.spam[:, None, None]
        return (1 - spam) * _ordinal_probs(self.bias, self.log_scale) + spam * self.choices[:, None, :]

    def pack(self) -> np.ndarray:
        """Unconstrained coordinates, where SQUAREM's extrapolation is done."""
        return np.concatenate([self.bias, self.log_scale, special.logit(self.spam), np.log(self.choices).ravel(),
                               np.log(self.class_prior)])

    @classmethod
    def unpack(cls, x: np.ndarray, n_annotators: int) -> _Params:
        parts = np.split(x, np.cumsum([n_annotators, n_annotators, n_annotators, n_annotators * K]))
        return cls(bias=np.clip(parts[0], *_BIAS_BOUNDS), log_scale=np.clip(parts[1], *_LOG_SCALE_BOUNDS),
                   spam=np.clip(special.expit(parts[2]), *_SPAM_BOUNDS),
                   choices=_floored_softmax(parts[3].reshape(n_annotators, K)),
                   class_prior=_floored_softmax(parts[4][None, :])[0])


def _floored_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax kept off exact zero, whose log the E-step and the prior need."""
    probs = np.maximum(special.softmax(logits, axis=1), 1e-12)
    return probs / probs.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class _Fit:
    votes: sparse.csr_matrix
    n_per_annotator: np.ndarray
    rated: np.ndarray  # posts with at least one score: only they inform the class prior
    priors: ModelPriors

    def e_step(self, params: _Params) -> tuple[np.ndarray, float]:
        """Posterior over the true score for every post, and the log posterior of `params`."""
        n_annotators = len(params.bias)
        log_conf = np.log(np.maximum(params.confusion(), _TINY)).transpose(0, 2, 1).reshape(n_annotators * K, K)
        log_joint = np.log(params.class_prior)[None, :] + self.votes @ log_conf
        peak = log_joint.max(axis=1, keepdims=True)
        log_evidence = peak[:, 0] + np.log(np.exp(log_joint - peak).sum(axis=1))
        posterior = np.exp(log_joint - log_evidence[:, None])
        return posterior, float(log_evidence[self.rated].sum() + _log_prior(params, self.priors))

    def m_step(self, posterior: np.ndarray, params: _Params) -> _Params:
        """The spam indicator is a second latent variable: each soft count is split into its
        "read the post" and "did not" parts with the current parameters, then each part updates
        its own parameters (closed form for ε, ξ and the class prior; Newton for b and σ)."""
        n_annotators = len(params.bias)
        priors = self.priors
        counts = (self.votes.T @ posterior).reshape(n_annotators, K, K).transpose(0, 2, 1)  # [j, z, k]
        spam_part = params.spam[:, None, None] * params.choices[:, None, :]
        spam_counts = counts * (spam_part / np.maximum(params.confusion(), _TINY))
        a, b = priors.spam_beta
        spam = (spam_counts.sum(axis=(1, 2)) + a - 1) / np.maximum(self.n_per_annotator + a + b - 2, _TINY)
        choices = spam_counts.sum(axis=1) + priors.spam_choice_pseudo
        class_prior = posterior[self.rated].sum(axis=0) + priors.class_pseudo
        bias, log_scale = _fit_ordinal(counts - spam_counts, params.bias, params.log_scale, priors)
        return _Params(bias=bias, log_scale=log_scale, spam=np.clip(spam, *_SPAM_BOUNDS),
                       choices=choices / choices.sum(axis=1, keepdims=True), class_prior=class_prior / class_prior.sum())


def aggregate_dimensions(matrices: Mapping[str, np.ndarray], **options) -> dict[str, OrdinalAggregate]:
    """One independent fit per dimension: an annotator can be careful on explicit bias and lost on
    implicit bias, and the dimensions have different score distributions."""
    return {dimension: aggregate_ordinal(matrix, **options) for dimension, matrix in matrices.items()}


def _initial_posterior(obs_i: np.ndarray, obs_k: np.ndarray, n_items: int) -> np.ndarray:
    """A smoothed vote: each score spreads over its neighbours (Gaussian kernel, 0.75 points),
    so the start is ordinal and robust to one outlier, unlike the mean."""
    votes = np.zeros((n_items, K))
    for k in range(K):
        votes[:, k] = np.bincount(obs_i[obs_k == k], minlength=n_items)
    kernel = np.exp(-((_GRID[:, None] - _GRID[None, :]) ** 2) / (2 * 0.75**2))
    smoothed = votes @ kernel + 1e-12  # posts with no votes start uniform
    return smoothed / smoothed.sum(axis=1, keepdims=True)


def _standardised_edges(bias: np.ndarray, log_scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(u_hi, u_lo, σ) for every annotator, truth z and report k: the cell edges k ± ½ minus
    (z + b_j), over σ_j, with the outermost edges at ±∞."""
    scale = np.exp(log_scale)[:, None, None]
    centre = _GRID[None, :, None] + bias[:, None, None]
    return (_UPPER_EDGES - centre) / scale, (_LOWER_EDGES - centre) / scale, scale


def _cell_probs(u_hi: np.ndarray, u_lo: np.ndarray) -> np.ndarray:
    # Subtract in the tail nearer zero so a far cell does not cancel to 0 or go negative.
    probs = np.where(u_lo > 0, special.ndtr(-u_lo) - special.ndtr(-u_hi), special.ndtr(u_hi) - special.ndtr(u_lo))
    return np.maximum(probs, 0.0)


def _ordinal_probs(bias: np.ndarray, log_scale: np.ndarray) -> np.ndarray:
    u_hi, u_lo, _ = _standardised_edges(bias, log_scale)
    return _cell_probs(u_hi, u_lo)


def _density(u: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * u**2) / math.sqrt(2 * math.pi)


def _u_density(u: np.ndarray) -> np.ndarray:
    """u·φ(u), 0 at ±∞ (where numpy would say nan)."""
    finite = np.isfinite(u)
    return np.where(finite, np.where(finite, u, 0.0) * _density(u), 0.0)


def _ordinal_objective(bias: np.ndarray, log_scale: np.ndarray, counts: np.ndarray,
                       priors: ModelPriors) -> tuple[np.ndarray, np.ndarray]:
    """Per annotator: the negative expected complete-data log posterior of (b, log σ) and its
    gradient (J, 2). The annotators' terms are independent, so each is minimised on its own."""
    u_hi, u_lo, scale = _standardised_edges(bias, log_scale)
    probs = np.maximum(_cell_probs(u_hi, u_lo), _TINY)
    ratio = counts / probs
    d_bias = ((_density(u_lo) - _density(u_hi)) / scale * ratio).sum(axis=(1, 2))
    d_log_scale = ((_u_density(u_lo) - _u_density(u_hi)) * ratio).sum(axis=(1, 2))
    z_scale = (log_scale - priors.log_scale_mean) / priors.log_scale_sd
    log_post = (counts * np.log(probs)).sum(axis=(1, 2)) - 0.5 * (bias / priors.bias_sd) ** 2 - 0.5 * z_scale**2
    grad = np.stack([d_bias - bias / priors.bias_sd**2, d_log_scale - z_scale / priors.log_scale_sd], axis=1)
    return -log_post, -grad


def _fit_ordinal(counts: np.ndarray, bias: np.ndarray, log_scale: np.ndarray,
                 priors: ModelPriors, steps: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """A few damped Newton steps on every annotator's two parameters at once, warm-started.
    EM only needs the M-step to improve, not to finish; a step is taken only where it lowers
    that annotator's objective, so the EM bound never falls. (scipy's L-BFGS-B did the same job
    several times slower: its per-call overhead dominates a problem of two numbers per annotator,
    and each annotator stays independent of the others' order.)"""
    theta = np.stack([bias, log_scale], axis=1)
    lower = np.array([_BIAS_BOUNDS[0], _LOG_SCALE_BOUNDS[0]])
    upper = np.array([_BIAS_BOUNDS[1], _LOG_SCALE_BOUNDS[1]])
    value, grad = _ordinal_objective(theta[:, 0], theta[:, 1], counts, priors)
    for _ in range(steps):
        # Hessian by forward differences of the analytic gradient: perturbing every annotator's
        # parameter at once is exact per block because the blocks do not interact.
        h = 1e-5
        hess = np.empty((len(theta), 2, 2))
        for p in range(2):
            shifted = theta.copy()
            shifted[:, p] += h
            hess[:, :, p] = (_ordinal_objective(shifted[:, 0], shifted[:, 1], counts, priors)[1] - grad) / h
        hess = 0.5 * (hess + hess.transpose(0, 2, 1))
        # Levenberg damping where the Hessian is not safely positive definite.
        trace = hess[:, 0, 0] + hess[:, 1, 1]
        det = hess[:, 0, 0] * hess[:, 1, 1] - hess[:, 0, 1] ** 2
        smallest = 0.5 * trace - np.sqrt(np.maximum(0.25 * trace**2 - det, 0.0))
        hess += np.maximum(1e-3 - smallest, 0.0)[:, None, None] * np.eye(2)
        step = -np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        step *= np.minimum(1.0, 1.0 / np.maximum(np.abs(step).max(axis=1), 1e-300))[:, None]  # at most 1 unit
        accepted = np.zeros(len(theta), dtype=bool)
        new_theta, new_value, new_grad = theta.copy(), value.copy(), grad.copy()
        for t in 0.5 ** np.arange(12):
            trial = np.clip(theta + t * step, lower, upper)
            trial_value, trial_grad = _ordinal_objective(trial[:, 0], trial[:, 1], counts, priors)
            armijo = trial_value <= value + 1e-4 * (grad * (trial - theta)).sum(axis=1)
            ok = ~accepted & armijo & (trial_value <= value)
            new_theta[ok], new_value[ok], new_grad[ok] = trial[ok], trial_value[ok], trial_grad[ok]
            accepted |= ok
            if accepted.all():
                break
        if not accepted.any():
            break
        theta, value, grad = new_theta, new_value, new_grad
    return theta[:, 0].copy(), theta[:, 1].copy()


def _log_prior(params: _Params, priors: ModelPriors) -> float:
    a, b = priors.spam_beta
    z_scale = (params.log_scale - priors.log_scale_mean) / priors.log_scale_sd
    return float((-0.5 * (params.bias / priors.bias_sd) ** 2 - 0.5 * z_scale**2).sum()
                 + ((a - 1) * np.log(params.spam) + (b - 1) * np.log1p(-params.spam)).sum()
                 + priors.spam_choice_pseudo * np.log(params.choices).sum()
                 + priors.class_pseudo * np.log(params.class_prior).sum())
