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
# How a prior enters the fusion. "raw": the paper's convex fusion with q_z (eq. p_calib).
# Extensions (docs/maam_offline.md): "balanced" fuses convexly with the shift-corrected q_z / pi;
# "log-shift" fuses log-linearly, p ∝ p_M (q_z / pi)^(1 - a): the Bayes update of a
# class-balanced model by the state's likelihood ratio, tempered by 1 - a.
PRIOR_MODES = ("raw", "balanced", "log-shift")
SHIFT_PSEUDOCOUNTS = 10.0


def all_orders() -> list[tuple[str, ...]]:
    """The 15 fusion strategies: 3 single axes, 6 ordered pairs, 6 ordered triples."""
    return [order for r in (1, 2, 3) for order in itertools.permutations(AXES, r)]


# --------------------------------------------------------------------------- state inference

# Offline cue lexicons: the nearest-prototype rule with a bag-of-cues encoder instead of an
# embedding model. Cues were written from the prototype sentences below.
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


# Prototype sentences per state, written by the project in Chinese (Appendix "C-I-S Label
# Inference": nearest prototype in a sentence-embedding space). A state's score is the mean
# cosine similarity to its sentences.
PROTOTYPE_SENTENCES: dict[str, dict[str, tuple[str, ...]]] = {
    "C": {
        "Funny": ("哈哈哈哈笑死我了，这也太搞笑了吧", "xswl，这个梗我能笑一年", "狗头保命，开个玩笑别当真",
                  "调侃一下而已，你们别这么严肃嘛", "好家伙，这操作绝了，笑不活了", "这段子太逗了，我直接笑出声"),
        "Serious": ("从法律和社会制度的角度看，这个问题需要认真讨论", "根据研究数据，性取向并不是一种疾病",
                    "我们应该理性地讨论同性婚姻合法化的政策", "这涉及基本人权和平等保护，必须严肃对待",
                    "教育和医学界早已有明确的结论", "请大家尊重事实，不要传播错误的观点"),
        "General": ("今天刷到一个视频，随便说两句", "我朋友昨天跟我聊起这件事", "这部剧最近挺火的",
                    "有人知道这是哪里的新闻吗", "晚上去吃饭的时候看到的", "转发一下，大家看看"),
    },
    "I": {
        "Ingroup": ("作为一个同性恋，我想说说自己的经历", "我是gay，和男朋友在一起五年了", "我们les也有权利追求幸福",
                    "我出柜之后家里人慢慢接受了", "作为圈内人，我们这些人过得并不容易", "我是双性恋，被误解很多次了"),
        "Outgroup": ("他们同性恋就是喜欢搞特殊", "这些人到底在想什么，我理解不了", "那群人天天在网上闹",
                     "我身边没有这种人，只是看新闻评论一下", "作为直男，我觉得他们的事和我无关", "你们这些人能不能别到处宣传"),
        "Uncertain": ("这件事大家怎么看", "新闻里说的这个事情是真的吗", "又上热搜了",
                      "看到这条微博，说不出什么感觉", "这个话题讨论得很多", "不知道该说什么好"),
    },
    "S": {
        "Pro": ("支持同性婚姻，爱就是爱，祝福所有人", "尊重每个人的性取向，平等是基本权利", "希望大家都能被理解和包容",
                "勇敢做自己，你们值得幸福", "反对歧视，性少数群体的权益应该被保护", "彩虹骄傲，爱没有错"),
        "Anti": ("同性恋真恶心，是一种病，得治", "这些变态滚远点，别出来恶心人", "搞基的都不正常，丢人现眼",
                 "反对同性恋，违背自然，毁了下一代", "娘炮人妖，看着就想吐", "骗婚的同性恋都该死"),
        "Neutral": ("这是一个关于同性恋的新闻报道", "统计显示有一部分人是同性恋", "他们在讨论同性婚姻的问题",
                    "这部电影讲的是两个男生的故事", "有人问性取向是怎么形成的", "某地举办了一次相关活动"),
    },
}
MARGIN_QUANTILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)  # candidate thresholds (with 0): margin quantiles


def mutual_information(states: Sequence[str], labels: Sequence[int]) -> float:
    """I(Z; Y) in bits from the empirical joint, minus the Miller-Madow bias (|Z|-1)(|Y|-1)/(2N ln 2)
    so that splitting posts into more states is not rewarded by chance."""
    z = np.asarray(states)
    y = np.asarray(labels)
    n = len(y)
    if n == 0:
        return 0.0
    zs, zi = np.unique(z, return_inverse=True)
    ys, yi = np.unique(y, return_inverse=True)
    joint = np.zeros((len(zs), len(ys)))
    np.add.at(joint, (zi, yi), 1.0)
    joint /= n
    pz, py = joint.sum(axis=1, keepdims=True), joint.sum(axis=0, keepdims=True)
    nz = joint > 0
    mi = float((joint[nz] * np.log2(joint[nz] / (pz @ py)[nz])).sum())
    return mi - (len(zs) - 1) * (len(ys) - 1) / (2 * n * np.log(2))


class EmbeddingInferer:
    """Nearest prototype by cosine similarity with a sentence encoder: any object with
    `encode(texts)` (the bundled USE v3 offline; a sentence-transformers model by hub name or
    local path when configured). If the best state does not beat the runner-up by more than the
    axis's margin threshold, the axis default is used (Appendix); a tie always goes to the default. `fit` tunes the thresholds on
    training data and adds hand-tagged training posts as extra prototypes."""

    name = "embedding"

    def __init__(self, model: str = "BAAI/bge-small-zh-v1.5", threshold: float | dict = 0.02, device: str | None = None,
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
                    "Pass a local directory, or use the offline inferers (--cis use-m3 or cues)."
                ) from exc
        self.encoder = encoder
        self.model_name = model
        self.thresholds = dict(threshold) if isinstance(threshold, dict) else {axis: float(threshold) for axis in AXES}
        self.extra: dict[str, dict[str, list[str]]] = {axis: {s: [] for s in STATES[axis]} for axis in AXES}
        self._protos: dict[str, tuple[list[str], np.ndarray]] | None = None
        self._sums: dict[str, tuple[list[str], np.ndarray]] | None = None
        self._fitted: dict | None = None  # the last fit's scores, for states_fitted_on

    def _encode(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.encoder.encode(texts, normalize_embeddings=True, show_progress_bar=False), dtype=float)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms > 0, norms, 1.0)

    def _prototype_sums(self) -> dict[str, tuple[list[str], np.ndarray]]:
        """Per axis: state names and the sum of each state's sentence vectors (written + tagged)."""
        if self._sums is None:
            self._sums = {}
            for axis, states in PROTOTYPE_SENTENCES.items():
                names = list(states)
                self._sums[axis] = (names, np.stack([self._encode(list(states[s]) + self.extra[axis][s]).sum(axis=0)
                                                     for s in names]))
        return self._sums

    def _prototypes(self) -> dict[str, tuple[list[str], np.ndarray]]:
        """Per axis: state names and the normalised mean embedding of each state's sentences."""
        if self._protos is None:
            self._protos = {axis: (names, sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), EPS))
                            for axis, (names, sums) in self._prototype_sums().items()}
        return self._protos

    def scores(self, texts: Sequence[str]) -> dict[str, tuple[list[str], np.ndarray]]:
        vectors = self._encode(list(texts))
        return {axis: (names, vectors @ protos.T) for axis, (names, protos) in self._prototypes().items()}

    @staticmethod
    def _decide(names: list[str], sims: np.ndarray, threshold: float, axis: str) -> list[str]:
        ranked = np.sort(sims, axis=1)
        margin = ranked[:, -1] - ranked[:, -2]
        best = sims.argmax(axis=1)
        return [names[b] if m > threshold else DEFAULT_STATE[axis] for b, m in zip(best, margin)]

    def infer_many(self, texts: Sequence[str]) -> list[CISState]:
        if not texts:
            return []
        return self._states({axis: sims for axis, (_, sims) in self.scores(texts).items()}, self.thresholds)

    def _states(self, sims_by_axis: dict[str, np.ndarray], thresholds: dict[str, float]) -> list[CISState]:
        names = {axis: names for axis, (names, _) in self._prototypes().items()}
        chosen = {axis: self._decide(names[axis], sims, thresholds[axis], axis) for axis, sims in sims_by_axis.items()}
        n = len(next(iter(chosen.values()))) if chosen else 0
        return [CISState(chosen["C"][i], chosen["I"][i], chosen["S"][i], source=f"inferred:{self.model_name}")
                for i in range(n)]

    def infer(self, text: str) -> CISState:
        return self.infer_many([text])[0]

    def fit(self, texts: Sequence[str], labels: dict[str, Sequence[int]] | None = None,
            tags: Sequence[dict | None] | None = None, min_tagged: int = 30) -> dict[str, dict]:
        """Tune each axis's margin threshold on training data. Hand-tagged training posts become
        extra prototypes of their states; where at least `min_tagged` posts carry a tag for the
        axis, the threshold maximises agreement with those tags, otherwise it maximises the
        mutual information between the axis's states and the training labels, summed over the
        dimensions (docs/maam_offline.md). Returns what was chosen and why. The posts' scores are
        kept, so that `states_fitted_on` can repeat the choice on a subset of them (cross-fitting)."""
        tagged = [(i, tag) for i, tag in enumerate(tags or []) if tag]
        for i, tag in tagged:
            for axis in AXES:
                if tag.get(axis) in STATES[axis]:
                    self.extra[axis][tag[axis]].append(texts[i])
        self._protos = self._sums = None
        self._fitted = None
        if not texts:
            return {}
        vectors = self._encode(list(texts))
        sums = self._prototype_sums()
        scored: dict[str, tuple[np.ndarray, np.ndarray, list[tuple[int, str]]]] = {}
        for axis, (names, protos) in self._prototypes().items():
            sims = vectors @ protos.T
            # Leave-one-out: a tagged post is scored against its state's prototype without itself.
            loo = sims.copy()
            axis_tags = [(i, tag[axis]) for i, tag in tagged if tag.get(axis) in STATES[axis]]
            for i, state in axis_tags:
                k = names.index(state)
                rest = sums[axis][1][k] - vectors[i]
                loo[i, k] = float(vectors[i] @ rest) / max(float(np.linalg.norm(rest)), EPS)
            scored[axis] = (sims, loo, axis_tags)
        self._fitted = {"n": len(texts), "scored": scored, "min_tagged": min_tagged}
        thresholds, report = self._choose_thresholds(np.arange(len(texts)), labels)
        self.thresholds.update(thresholds)
        return report

    def _choose_thresholds(self, rows: np.ndarray, labels: dict[str, Sequence[int]] | None
                           ) -> tuple[dict[str, float], dict[str, dict]]:
        """`fit`'s choice made from the fitted posts `rows` only: candidates from their margins,
        the objective from their tags or their labels (indexed like the fitted posts)."""
        fitted = self._fitted
        names_of = {axis: names for axis, (names, _) in self._prototypes().items()}
        position = {int(i): r for r, i in enumerate(rows)}
        label_rows = [np.asarray(y)[rows] for y in (labels or {}).values()]
        thresholds: dict[str, float] = {}
        report: dict[str, dict] = {}
        for axis, (_, loo, all_tags) in fitted["scored"].items():
            names = names_of[axis]
            sims = loo[rows]
            ranked = np.sort(sims, axis=1)
            margins = ranked[:, -1] - ranked[:, -2]
            candidates = sorted({0.0} | {float(np.quantile(margins, q)) for q in MARGIN_QUANTILES}) \
                if len(rows) else [0.0]
            axis_tags = [(position[i], t) for i, t in all_tags if i in position]
            if len(axis_tags) >= fitted["min_tagged"]:
                picked = [r for r, _ in axis_tags]
                truth = [t for _, t in axis_tags]

                def objective(th, picked=picked, truth=truth, names=names, sims=sims, axis=axis):
                    picks = self._decide(names, sims[picked], th, axis)
                    return float(np.mean([p == t for p, t in zip(picks, truth)]))
                criterion = "agreement with hand tags"
            elif label_rows:
                def objective(th, names=names, sims=sims, axis=axis):
                    picks = self._decide(names, sims, th, axis)
                    return sum(mutual_information(picks, y) for y in label_rows)
                criterion = "mutual information with labels"
            else:
                continue
            best = max(candidates, key=lambda th: (round(objective(th), 12), th))
            thresholds[axis] = best
            report[axis] = {"threshold": best, "criterion": criterion, "objective": objective(best)}
        return thresholds, report

    def states_fitted_on(self, rows: Sequence[int], labels: dict[str, Sequence[int]] | None = None) -> list[CISState]:
        """The states of every post of the last `fit`, decided with the thresholds `fit` would have
        chosen from the posts `rows` alone (their margins, tags and labels; `labels` are indexed
        like the fitted posts, and the others' labels are never read). Cross-fitting
        (train.crossfit) decides a held-out fold's states, and counts the other folds' priors, with
        the other folds' thresholds, so no post's own label moves its state or its prior row. The
        prototypes (with every hand-tagged post) and the scores are the fitted ones."""
        if self._fitted is None:
            raise RuntimeError("states_fitted_on needs a fit on training posts first")
        chosen, _ = self._choose_thresholds(np.asarray(rows, dtype=int), labels)
        thresholds = {**self.thresholds, **chosen}
        return self._states({axis: sims for axis, (sims, _, _) in self._fitted["scored"].items()}, thresholds)

    def params(self) -> dict:
        return {"thresholds": self.thresholds, "extra": self.extra}

    def set_params(self, params: dict) -> None:
        self.thresholds.update(params.get("thresholds", {}))
        for axis, states in params.get("extra", {}).items():
            for state, texts in states.items():
                self.extra[axis][state] = list(texts)
        self._protos = self._sums = self._fitted = None


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
    return apply_tags(inferer.infer_many(texts), tags)


def apply_tags(inferred: Sequence[CISState], tags: Sequence[dict | None] | None) -> list[CISState]:
    """A post's external tags (all three axes) replace its inferred state."""
    if not tags:
        return list(inferred)
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

    def base_rate(self, axis: str) -> np.ndarray:
        """pi_k: the class distribution of the labels the priors were counted on."""
        total = np.asarray([self.counts[axis][s] for s in STATES[axis]], dtype=float).sum(axis=0)
        n_classes = len(total)
        return total / total.sum() if total.sum() else np.full(n_classes, 1.0 / n_classes)

    def shift(self, axis: str, state: str, strength: float = SHIFT_PSEUDOCOUNTS) -> np.ndarray:
        """Extension (docs/maam_offline.md): the state's likelihood ratio q_z / pi, normalised.
        q_z is smoothed towards pi with `strength` pseudo-counts, so a rare or empty state carries
        no information (uniform) instead of the noise of a few labels."""
        pi = self.base_rate(axis)
        c = np.asarray(self.counts[axis][state], dtype=float)
        q = (c + strength * pi) / (c.sum() + strength)
        # A class absent from the training labels gets no prior mass (the model cannot predict it either).
        ratio = np.where(pi > 0, q / np.maximum(pi, EPS), 0.0)
        return ratio / ratio.sum() if ratio.sum() > 0 else np.full(len(pi), 1.0 / len(pi))

    def matrix(self, axis: str, states: Sequence[CISState], prior_mode: str = "raw") -> np.ndarray:
        """One prior row per post for `axis`: q_z (the paper) or, for the shift-corrected modes, q_z / pi."""
        if prior_mode not in PRIOR_MODES:
            raise ValueError(f"prior_mode must be one of {PRIOR_MODES}, got {prior_mode!r}")
        rows: dict[str, np.ndarray] = {}
        for state in STATES[axis]:
            rows[state] = self.q(axis, state) if prior_mode == "raw" else self.shift(axis, state)
        return np.stack([rows[s.get(axis)] for s in states]) if len(states) else np.zeros((0, len(rows[STATES[axis][0]])))

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

def fuse(p_model: np.ndarray, q: np.ndarray, alpha, prior_mode: str = "raw") -> np.ndarray:
    """Paper eq. (p_calib): p = a * p_M + (1 - a) * q, then clip at 1e-8 and renormalise.
    `alpha` is a scalar (unified) or a length-5 vector (per-class). With prior_mode "log-shift"
    (extension) the prior enters as a tempered likelihood ratio: p ∝ p_M * q^(1 - a), q = q_z / pi;
    the model's distribution itself is not flattened, and a = 1 leaves it unchanged."""
    a = np.asarray(alpha, dtype=float)
    if prior_mode == "log-shift":
        logits = np.log(np.clip(p_model, EPS, None)) + (1 - a) * np.log(np.clip(q, EPS, None))
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
    else:
        p = a * p_model + (1 - a) * q
    p = np.clip(p, EPS, None)
    return p / p.sum(axis=-1, keepdims=True)


def prior_matrix(priors: Priors, axis: str, states: Sequence[CISState], prior_mode: str = "raw") -> np.ndarray:
    return priors.matrix(axis, states, prior_mode)


def prior_matrices(priors: Priors, states: Sequence[CISState], prior_mode: str = "raw") -> dict[str, np.ndarray]:
    return {axis: priors.matrix(axis, states, prior_mode) for axis in AXES}


def cascade(p_model: np.ndarray, priors: Priors, states: Sequence[CISState], order: Sequence[str],
            alphas: Sequence, prior_mode: str = "raw") -> list[np.ndarray]:
    """Apply fusion axis by axis in `order`; return the distribution after each step."""
    steps = []
    p = p_model
    for axis, alpha in zip(order, alphas):
        p = fuse(p, prior_matrix(priors, axis, states, prior_mode), alpha, prior_mode)
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
    prior_mode: str = "raw"
    decode: str = "argmax"

    def to_dict(self) -> dict:
        return {"order": list(self.order), "alphas": self.alphas, "dev_macro_f1": self.dev_macro_f1,
                "baseline_dev_f1": self.baseline_dev_f1, "mode": self.mode, "per_step_f1": self.per_step_f1,
                "prior_mode": self.prior_mode, "decode": self.decode}

    @classmethod
    def from_dict(cls, d: dict) -> FusionResult:
        return cls(tuple(d["order"]), d["alphas"], d["dev_macro_f1"], d["baseline_dev_f1"], d.get("mode", "unified"),
                   d.get("per_step_f1", []), d.get("prior_mode", "raw"), d.get("decode", "argmax"))


def _search_step(p: np.ndarray, q: np.ndarray, y: np.ndarray, mode: str, prior_mode: str,
                 predict: Callable[[np.ndarray], np.ndarray],
                 score: Callable[[np.ndarray, np.ndarray], float], min_gain: float = 0.0) -> tuple[object, float]:
    from .metrics import f1_per_class

    n_classes = p.shape[1]
    labels = list(range(1, n_classes + 1))
    if mode == "unified":
        best_a, best_f1 = 1.0, -1.0
        for a in ALPHA_GRID:  # ties keep the larger alpha: stay closest to the model
            f1 = score(y, predict(fuse(p, q, a, prior_mode)))
            if f1 > best_f1 or (f1 == best_f1 and a > best_a):
                best_a, best_f1 = a, f1
        unchanged = score(y, predict(p))
        if best_f1 < unchanged + min_gain:  # extension: a prior must earn its place on held-out posts
            return 1.0, unchanged
        return best_a, best_f1
    # Per-class: each alpha_k searched independently (the others left at 1, unfused) to maximise F1 of
    # class k (Appendix, calibration protocol), then the chosen alphas are applied together.
    vector = [1.0] * n_classes
    for k in range(n_classes):
        best_a, best = 1.0, -1.0
        for a in ALPHA_GRID:
            trial = [1.0] * n_classes
            trial[k] = a
            f1k = f1_per_class(y, predict(fuse(p, q, trial, prior_mode)), labels)[k]
            if f1k > best or (f1k == best and a > best_a):
                best_a, best = a, f1k
        vector[k] = best_a
    fused = score(y, predict(fuse(p, q, vector, prior_mode)))
    unchanged = score(y, predict(p))
    if fused < unchanged + min_gain:  # the same bar as the unified search
        return [1.0] * n_classes, unchanged
    return vector, fused


def search_fusion(p_dev: np.ndarray, y_dev: Sequence[int], q_by_axis: dict[str, np.ndarray], order: Sequence[str],
                  mode: str = "unified", prior_mode: str = "raw", decode: str = "argmax",
                  min_gain: float = 0.0) -> FusionResult:
    """Greedy step-wise alpha search (grid 0.1 ... 1.0) on held-out predictions `p_dev`.

    `q_by_axis[axis]` holds one prior row per post. Under cross-fitting (train.crossfit) each
    row comes from priors counted, and a state decided with C-I-S thresholds chosen, without that
    post's fold, so no post tunes alpha with a prior or a state that has seen its own label. With `min_gain` > 0 (extension) a step keeps alpha = 1 unless
    fusing raises the held-out macro-F1 by at least that much."""
    from .metrics import decode_labels, macro_f1

    labels = list(range(1, p_dev.shape[1] + 1))

    def score(y_true, y_pred):
        return macro_f1(y_true, y_pred, labels)

    def predict(p):
        return decode_labels(p, decode)

    y = np.asarray(y_dev, dtype=int)
    baseline = score(y, predict(p_dev))
    p = p_dev
    alphas, per_step = [], []
    for axis in order:
        q = q_by_axis[axis]
        if q.shape != p.shape:
            raise ValueError(f"prior rows for {axis} have shape {q.shape}, predictions {p.shape}")
        alpha, f1 = _search_step(p, q, y, mode, prior_mode, predict, score, min_gain)
        p = fuse(p, q, alpha, prior_mode)
        alphas.append(alpha)
        per_step.append(f1)
    return FusionResult(tuple(order), alphas, per_step[-1] if per_step else baseline, baseline, mode, per_step,
                        prior_mode, decode)


def fusion_table(p_dev: np.ndarray, y_dev: Sequence[int], q_by_axis: dict[str, np.ndarray], mode: str = "unified",
                 prior_mode: str = "raw", decode: str = "argmax", min_gain: float = 0.0) -> list[FusionResult]:
    """All 15 orders, as in the paper's full fusion-strategy table."""
    return [search_fusion(p_dev, y_dev, q_by_axis, order, mode, prior_mode, decode, min_gain) for order in all_orders()]
