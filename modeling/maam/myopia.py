"""Myopia: token weights from the taxonomy, keyword-aware promotion and modulation, context-aware
smoothing, level-5 filtering and weighted pooling (paper §Myopia, Algorithm 1)."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Mapping, Sequence

from .lexicon import Lexicon
from .parsing import Parser, Token, make_parser
from .taxonomy import DIMENSIONS, LEVEL_EXCLUDED, LEVEL_MIN, WEIGHT_SCHEME, Tier, level_of


@dataclass(frozen=True)
class MyopiaConfig:
    """Every constant of the method; defaults are the paper's selected values (Appendix, hparams)."""

    gamma: float = 0.5
    beta: float = 0.4
    epsilon: float = 0.10
    k: int = 5
    tau_h: float = 0.8
    tau_f: float = 0.3
    kappa: float = 10.0
    alpha_min: float = 0.3
    alpha_max: float = 0.9
    weight_scheme: Mapping[int, Tier] = field(default_factory=lambda: dict(WEIGHT_SCHEME))

    def to_dict(self) -> dict:
        data = asdict(self)
        data["weight_scheme"] = {str(k): [v.weight, v.lower, v.upper] for k, v in self.weight_scheme.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> MyopiaConfig:
        data = dict(data)
        scheme = data.pop("weight_scheme", None)
        if scheme:
            data["weight_scheme"] = {int(k): Tier(*v) for k, v in scheme.items()}
        return cls(**data)


def keyword_strengths(words: Sequence[str], lexicon: Lexicon) -> list[float]:
    """s_i (paper eq. keyword match): 1 if the token is in K, contains a term of K, or belongs to a
    run of consecutive tokens whose concatenation is in K (every token of the run is marked; see
    docs/decisions.md); otherwise 0."""
    n = len(words)
    s = [0.0] * n
    terms = lexicon.terms
    max_len = lexicon.max_len
    lowered = [w.lower() for w in words]
    for i, w in enumerate(lowered):
        if w in terms:
            s[i] = 1.0
            continue
        if len(w) > 1:
            for size in range(2, min(len(w), max_len) + 1):
                if any(w[j:j + size] in terms for j in range(len(w) - size + 1)):
                    s[i] = 1.0
                    break
    for i in range(n):
        joined = lowered[i]
        for j in range(i + 1, n):
            joined += lowered[j]
            if len(joined) > max_len:
                break
            if joined in terms:
                for m in range(i, j + 1):
                    s[m] = 1.0
    return s


def modulate(w_base: float, s: float, level: int, cfg: MyopiaConfig) -> float:
    """Association-aware modulation (paper §Myopia (4)); exact matches reduce to eq. (5)."""
    tier = cfg.weight_scheme[level]
    if s > cfg.gamma:
        return min(w_base * (1 + cfg.beta * s), tier.upper)
    return max(w_base * (1 - cfg.epsilon * (1 - s)), tier.lower)


def smooth(weights: Sequence[float], levels: Sequence[int], cfg: MyopiaConfig) -> tuple[list[float], float, float]:
    """Context-aware smoothing (paper §Myopia, density d_j, gate z, alpha, bounded convex blend).
    Returns (smoothed weights, alpha, dispersion). For N < k a single window of length N is used."""
    n = len(weights)
    if n == 0:
        return [], cfg.alpha_max, 0.0
    k = min(cfg.k, n)
    high = [1 if w >= cfg.tau_h else 0 for w in weights]
    window = sum(high[:k])
    densities = [window / k]
    for j in range(1, n - k + 1):
        window += high[j + k - 1] - high[j - 1]
        densities.append(window / k)
    dispersion = max(densities) - sum(densities) / len(densities)
    z = 1.0 / (1.0 + math.exp(cfg.kappa * (dispersion - cfg.tau_f)))
    alpha = z * (cfg.alpha_max - cfg.alpha_min) + cfg.alpha_min
    mean_w = sum(weights) / n
    out = []
    for w, level in zip(weights, levels):
        tier = cfg.weight_scheme[level]
        blended = alpha * w + (1 - alpha) * mean_w
        out.append(min(tier.upper, max(tier.lower, blended)))  # paper eq. (w_smooth): clip to [l, u]
    return out, alpha, dispersion


def pooling_weights(weights: Sequence[float]) -> list[float]:
    """Algorithm 1, lines 1-3: keep w_i > 0, normalise over the kept set (0 for dropped tokens)."""
    total = sum(w for w in weights if w > 0)
    if total <= 0:
        return [0.0] * len(weights)
    return [w / total if w > 0 else 0.0 for w in weights]


@dataclass
class WeightedToken:
    text: str
    start: int
    end: int
    tag: str
    subcategory: str
    level_orig: int
    keyword: float
    level: int
    w_base: float
    w_adj: float
    weight: float

    @property
    def kept(self) -> bool:
        return self.level != LEVEL_EXCLUDED and self.weight > 0


@dataclass
class MyopiaResult:
    text: str
    dimension: str
    tokens: list[WeightedToken]
    alpha: float
    dispersion: float

    @property
    def weights(self) -> list[float]:
        return [t.weight for t in self.tokens]

    def kept_tokens(self) -> list[WeightedToken]:
        return [t for t in self.tokens if t.kept]

    def pooling(self) -> list[float]:
        return pooling_weights([t.weight if t.kept else 0.0 for t in self.tokens])

    def filtered_text(self) -> str:
        """The text passed to the encoder: level-5 tokens removed (Algorithm 1, line 2)."""
        return "".join(t.text for t in self.tokens if t.kept)

    def char_weights(self) -> list[float]:
        """A weight per character of the original text (0 for dropped characters and gaps)."""
        out = [0.0] * len(self.text)
        for t in self.tokens:
            if t.kept:
                for c in range(t.start, min(t.end, len(out))):
                    out[c] = t.weight
        return out

    def retained_char_fraction(self) -> float:
        total = sum(len(t.text) for t in self.tokens)
        return sum(len(t.text) for t in self.tokens if t.kept) / total if total else 0.0

    def to_dict(self) -> dict:
        return {"text": self.text, "dimension": self.dimension, "alpha": self.alpha, "dispersion": self.dispersion,
                "tokens": [{**asdict(t), "kept": t.kept} for t in self.tokens]}


class Myopia:
    def __init__(self, parser: Parser | None = None, lexicon: Lexicon | None = None,
                 config: MyopiaConfig | None = None):
        self.lexicon = lexicon or Lexicon.default()
        self.parser = parser or make_parser("jieba", keyword_terms=self.lexicon.terms)
        self.config = config or MyopiaConfig()

    def weigh_tokens(self, text: str, tokens: list[Token], dimension: str,
                     strengths: list[float] | None = None) -> MyopiaResult:
        cfg = self.config
        scheme = cfg.weight_scheme
        if strengths is None:
            strengths = keyword_strengths([t.text for t in tokens], self.lexicon)
        rows = []
        levels = []
        adjusted = []
        for tok, s in zip(tokens, strengths):
            level_orig = level_of(tok.subcategory, dimension)
            # Promotion (paper §Myopia (2)): b_i = 1 -> l_min; level-5 function tokens are never keywords.
            level = LEVEL_MIN if s == 1.0 else level_orig
            w_base = scheme[level].weight  # (3) base weight lookup
            w_adj = modulate(w_base, s, level, cfg)  # (4)/(5)
            rows.append((tok, level_orig, s, level, w_base, w_adj))
            levels.append(level)
            adjusted.append(w_adj)
        smoothed, alpha, dispersion = smooth(adjusted, levels, cfg)
        out = [WeightedToken(tok.text, tok.start, tok.end, tok.tag, tok.subcategory, lo, s, lv, wb, wa, ws)
               for (tok, lo, s, lv, wb, wa), ws in zip(rows, smoothed)]
        return MyopiaResult(text, dimension, out, alpha, dispersion)

    def weigh(self, text: str, dimension: str) -> MyopiaResult:
        if dimension not in DIMENSIONS:
            raise ValueError(f"dimension must be one of {DIMENSIONS}, got {dimension!r}")
        tokens = self.parser.parse(text)
        return self.weigh_tokens(text, tokens, dimension)

    def weigh_all(self, text: str) -> dict[str, MyopiaResult]:
        """Parse once, weigh for every dimension."""
        tokens = self.parser.parse(text)
        strengths = keyword_strengths([t.text for t in tokens], self.lexicon)
        return {d: self.weigh_tokens(text, tokens, d, strengths) for d in DIMENSIONS}
