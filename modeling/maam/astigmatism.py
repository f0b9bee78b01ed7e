"""Astigmatism: C-I-S contextual states, priors P(Y=k | Z=z), convex fusion and cascades
(paper §Astigmatism and Appendix "Astigmatism Implementation Details")."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

N_CLASSES = 5
AXES = ("C", "I", "S")
STATES: dict[str, tuple[str, ...]] = {
    "C": ("Funny", "General", "Serious"),
    "I": ("Ingroup", "Outgroup", "Uncertain"),
    "S": ("Pro", "Anti", "Neutral"),
}
DEFAULT_STATE = {"C": "General", "I": "Uncertain", "S": "Neutral"}  # where ambiguous cases are routed
ALPHA_GRID = tuple(round(0.1 * i, 1) for i in range(1, 11))  # {0.1, ..., 1.0}
EPS = 1e-8


def all_orders() -> list[tuple[str, ...]]:
    """The 15 fusion strategies: 3 single axes, 6 ordered pairs, 6 ordered triples."""
    return [order for r in (1, 2, 3) for order in itertools.permutations(AXES, r)]


# --------------------------------------------------------------------------- state inference

# Prototype descriptions (Appendix "C-I-S Label Inference"): what each state looks like.
PROTOTYPES: dict[str, dict[str, str]] = {
    "C": {"Funny": "幽默、开玩笑、讽刺、调侃、好笑的表达，哈哈哈 笑死",
          "Serious": "正式、严肃、论证、讲道理、陈述事实的表达",
          "General": "普通、中性、日常的表达"},
    "I": {"Ingroup": "说话人自己是同性恋或性少数群体的一员，我们这些人",
          "Outgroup": "说话人不是性少数群体，站在群体之外评论他们",
          "Uncertain": "无法判断说话人的身份"},
    "S": {"Pro": "支持、尊重、理解、平等、祝福同性恋和性少数群体",
          "Anti": "反对、厌恶、歧视、贬低、攻击同性恋和性少数群体",
          "Neutral": "中立、客观、没有明显的态度"},
}

# Offline cue lexicons: the same nearest-prototype rule with a bag-of-cues encoder instead of an
# embedding model. Cues were written from the prototype descriptions above.
CUES: dict[str, dict[str, tuple[str, ...]]] = {
    "C": {"Funny": ("哈哈", "笑死", "xswl", "hhh", "笑", "doge", "狗头", "233", "搞笑", "滑稽", "逗", "梗", "乐", "玩笑", "吐槽", "调侃", "绝了", "好家伙"),
          "Serious": ("法律", "权利", "研究", "数据", "社会", "问题", "认为", "应该", "因此", "政策", "教育", "医学", "科学", "平等", "历史", "制度", "婚姻法", "讨论", "观点", "事实")},
    "I": {"Ingroup": ("我是同性恋", "我是gay", "我是les", "作为同性恋", "作为一个同性恋", "我们同性恋", "我出柜", "我男朋友", "我女朋友", "我对象", "我们这些", "我是双", "作为les", "作为gay", "我是跨", "本人", "我们圈"),
          "Outgroup": ("他们", "这些人", "那些人", "你们同性恋", "这群", "那群", "他们同性恋", "那些同性恋", "这些同性恋")},
    "S": {"Pro": ("支持", "尊重", "平等", "理解", "祝福", "包容", "加油", "爱", "勇敢", "自由", "骄傲", "接纳", "希望", "幸福", "权益", "反歧视", "正常"),
          "Anti": ("恶心", "变态", "病", "治疗", "反对", "滚", "死", "垃圾", "不正常", "丢人", "傻", "贱", "艾滋", "毁", "脏", "罪", "恐怖", "有病", "讨厌", "歧视", "骗婚", "娘炮", "人妖")},
}


@dataclass
class CISState:
    C: str
    I: str
    S: str
    source: str = "inferred"

    def get(self, axis: str) -> str:
        return getattr(self, axis)

    def as_dict(self) -> dict[str, str]:
        return {"C": self.C, "I": self.I, "S": self.S}


class CueInferer:
    """Offline C-I-S inference: nearest prototype under a bag-of-cues encoding. A text's score for
    a state is the number of that state's cues it contains; the top state wins when it leads the
    runner-up by at least `margin`, otherwise the axis default (General / Uncertain / Neutral)."""

    name = "cues"

    def __init__(self, margin: int = 1):
        self.margin = margin

    def infer(self, text: str) -> CISState:
        lowered = text.lower()
        result = {}
        for axis, cues in CUES.items():
            scores = {state: sum(lowered.count(c) for c in words) for state, words in cues.items()}
            ranked = sorted(scores.items(), key=lambda kv: -kv[1])
            best, best_score = ranked[0]
            runner = ranked[1][1] if len(ranked) > 1 else 0
            result[axis] = best if best_score - runner >= self.margin else DEFAULT_STATE[axis]
        return CISState(**result, source="inferred:cues")

    def infer_many(self, texts: Sequence[str]) -> list[CISState]:
        return [self.infer(t) for t in texts]


class EmbeddingInferer:
    """Nearest prototype by cosine similarity with a sentence-transformers encoder
    (BAAI/bge-small-zh-v1.5 in production), loaded by hub name or local path. If the best state
    does not beat the runner-up by `threshold`, the axis default is used (Appendix)."""

    name = "embedding"

    def __init__(self, model: str = "BAAI/bge-small-zh-v1.5", threshold: float = 0.02, device: str | None = None,
                 encoder=None):
        if encoder is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:  # pragma: no cover
                raise RuntimeError("sentence-transformers is not installed") from exc
            try:
                encoder = SentenceTransformer(model, device=device, local_files_only=True)
            except Exception as exc:
                raise RuntimeError(
                    f"Could not load the sentence encoder {model!r} offline ({exc.__class__.__name__}: {exc}). "
                    "Pass a local directory, or use the offline cue inferer (--cis cues)."
                ) from exc
        self.encoder = encoder
        self.model_name = model
        self.threshold = threshold
        self._protos = {
            axis: (list(states), self._encode(list(states.values()))) for axis, states in PROTOTYPES.items()
        }

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.encoder.encode(texts, normalize_embeddings=True, show_progress_bar=False))
        return vectors

    def infer_many(self, texts: Sequence[str]) -> list[CISState]:
        vectors = self._encode(list(texts))
        states = []
        chosen: dict[str, list[str]] = {}
        for axis, (names, protos) in self._protos.items():
            sims = vectors @ protos.T
            order = np.argsort(-sims, axis=1)
            picks = []
            for row, idx in zip(sims, order):
                top, second = row[idx[0]], row[idx[1]]
                picks.append(names[idx[0]] if top - second >= self.threshold else DEFAULT_STATE[axis])
            chosen[axis] = picks
        for i in range(len(texts)):
            states.append(CISState(chosen["C"][i], chosen["I"][i], chosen["S"][i], source=f"inferred:{self.model_name}"))
        return states

    def infer(self, text: str) -> CISState:
        return self.infer_many([text])[0]


def make_inferer(name: str = "cues", **kwargs):
    if name == "cues":
        return CueInferer()
    if name == "use-m3":  # offline sentence embeddings: the bundled multilingual USE v3
        from .use_m3 import shared_encoder

        return EmbeddingInferer(model="use-m3", encoder=shared_encoder(), **kwargs)
    if name.startswith("st:") or name == "embedding":
        model = name.split(":", 1)[1] if ":" in name else kwargs.get("model", "BAAI/bge-small-zh-v1.5")
        return EmbeddingInferer(model=model, **{k: v for k, v in kwargs.items() if k != "model"})
    raise ValueError(f"unknown C-I-S inferer {name!r}: use 'cues', 'use-m3' or 'st:MODEL_OR_PATH'")


def resolve_states(texts: Sequence[str], tags: Sequence[dict | None] | None, inferer) -> list[CISState]:
    """External tags where given (per axis), inference for the rest; the source is recorded."""
    inferred = inferer.infer_many(texts)
    if not tags:
        return inferred
    out = []
    for state, tag in zip(inferred, tags):
        if tag and all(tag.get(a) in STATES[a] for a in AXES):
            out.append(CISState(tag["C"], tag["I"], tag["S"], source="external"))
        else:
            out.append(state)
    return out


# --------------------------------------------------------------------------- priors

@dataclass
class Priors:
    """P(Y=k | Z=z) for one dimension: axis -> state -> 5 probabilities, with the counts."""

    table: dict[str, dict[str, list[float]]]
    counts: dict[str, dict[str, list[int]]]

    def q(self, axis: str, state: str) -> np.ndarray:
        return np.asarray(self.table[axis][state], dtype=float)

    def to_dict(self) -> dict:
        return {"table": self.table, "counts": self.counts}

    @classmethod
    def from_dict(cls, data: dict) -> Priors:
        return cls(table=data["table"], counts=data["counts"])


def build_priors(labels: Sequence[int], states: Sequence[CISState], n_classes: int = N_CLASSES) -> Priors:
    """Paper eq. (prior): empirical P(Y=k | Z=z) over training labels (1..5); a state with no
    samples gets the uniform 0.2 (Appendix "Prior Construction")."""
    y = np.asarray(labels, dtype=int)
    if y.size and (y.min() < 1 or y.max() > n_classes):
        raise ValueError(f"labels must be integers 1..{n_classes}")
    table: dict[str, dict[str, list[float]]] = {}
    counts: dict[str, dict[str, list[int]]] = {}
    for axis in AXES:
        column = np.asarray([s.get(axis) for s in states])
        table[axis], counts[axis] = {}, {}
        for state in STATES[axis]:
            mask = column == state
            c = np.bincount(y[mask] - 1, minlength=n_classes) if mask.any() else np.zeros(n_classes, dtype=int)
            counts[axis][state] = [int(v) for v in c]
            total = int(c.sum())
            table[axis][state] = [float(v / total) for v in c] if total else [1.0 / n_classes] * n_classes
    return Priors(table, counts)


# --------------------------------------------------------------------------- fusion

def fuse(p_model: np.ndarray, q: np.ndarray, alpha) -> np.ndarray:
    """Paper eq. (p_calib): p = a * p_M + (1 - a) * q, then clip at 1e-8 and renormalise.
    `alpha` is a scalar (unified) or a length-5 vector (per-class)."""
    a = np.asarray(alpha, dtype=float)
    p = a * p_model + (1 - a) * q
    p = np.clip(p, EPS, None)
    return p / p.sum(axis=-1, keepdims=True)


def prior_matrix(priors: Priors, axis: str, states: Sequence[CISState]) -> np.ndarray:
    return np.stack([priors.q(axis, s.get(axis)) for s in states])


def cascade(p_model: np.ndarray, priors: Priors, states: Sequence[CISState], order: Sequence[str],
            alphas: Sequence) -> list[np.ndarray]:
    """Apply fusion axis by axis in `order`; return the distribution after each step."""
    steps = []
    p = p_model
    for axis, alpha in zip(order, alphas):
        p = fuse(p, prior_matrix(priors, axis, states), alpha)
        steps.append(p)
    return steps


@dataclass
class FusionResult:
    order: tuple[str, ...]
    alphas: list  # one entry per step: float (unified) or list of 5 floats (per-class)
    dev_macro_f1: float
    baseline_dev_f1: float
    mode: str = "unified"
    per_step_f1: list[float] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"order": list(self.order), "alphas": self.alphas, "dev_macro_f1": self.dev_macro_f1,
                "baseline_dev_f1": self.baseline_dev_f1, "mode": self.mode, "per_step_f1": self.per_step_f1}

    @classmethod
    def from_dict(cls, d: dict) -> FusionResult:
        return cls(tuple(d["order"]), d["alphas"], d["dev_macro_f1"], d["baseline_dev_f1"], d.get("mode", "unified"),
                   d.get("per_step_f1", []))


def _search_step(p: np.ndarray, q: np.ndarray, y: np.ndarray, mode: str,
                 score: Callable[[np.ndarray, np.ndarray], float]) -> tuple[object, float]:
    from .metrics import f1_per_class

    n_classes = p.shape[1]
    labels = list(range(1, n_classes + 1))
    if mode == "unified":
        best_a, best_f1 = 1.0, -1.0
        for a in ALPHA_GRID:  # ties keep the larger alpha: stay closest to the model
            f1 = score(y, fuse(p, q, a).argmax(axis=1) + 1)
            if f1 > best_f1 or (f1 == best_f1 and a > best_a):
                best_a, best_f1 = a, f1
        return best_a, best_f1
    # Per-class: alpha_k chosen independently to maximise F1 of class k (Appendix, calibration protocol).
    vector = [1.0] * n_classes
    for k in range(n_classes):
        best_a, best = 1.0, -1.0
        for a in ALPHA_GRID:
            trial = list(vector)
            trial[k] = a
            f1k = f1_per_class(y, fuse(p, q, trial).argmax(axis=1) + 1, labels)[k]
            if f1k > best or (f1k == best and a > best_a):
                best_a, best = a, f1k
        vector[k] = best_a
    return vector, score(y, fuse(p, q, vector).argmax(axis=1) + 1)


def search_fusion(p_dev: np.ndarray, y_dev: Sequence[int], priors: Priors, states: Sequence[CISState],
                  order: Sequence[str], mode: str = "unified") -> FusionResult:
    """Greedy step-wise alpha search on the development split (grid 0.1 ... 1.0)."""
    from .metrics import macro_f1

    labels = list(range(1, p_dev.shape[1] + 1))

    def score(y_true, y_pred):
        return macro_f1(y_true, y_pred, labels)

    y = np.asarray(y_dev, dtype=int)
    baseline = score(y, p_dev.argmax(axis=1) + 1)
    p = p_dev
    alphas, per_step = [], []
    for axis in order:
        q = prior_matrix(priors, axis, states)
        alpha, f1 = _search_step(p, q, y, mode, score)
        p = fuse(p, q, alpha)
        alphas.append(alpha)
        per_step.append(f1)
    return FusionResult(tuple(order), alphas, per_step[-1] if per_step else baseline, baseline, mode, per_step)


def fusion_table(p_dev: np.ndarray, y_dev: Sequence[int], priors: Priors, states: Sequence[CISState],
                 mode: str = "unified") -> list[FusionResult]:
    """All 15 orders, as in the paper's full fusion-strategy table."""
    return [search_fusion(p_dev, y_dev, priors, states, order, mode) for order in all_orders()]
