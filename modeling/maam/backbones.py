"""Model-agnostic predictors: (text, Myopia weights) -> 5-class probabilities.

* CharNgramBackbone - the offline default. Character n-grams of the Myopia-filtered text, each
  occurrence weighted by its characters' Myopia weights and pooled with normalised weights
  (Algorithm 1 with one-hot n-gram "states"), idf-scaled, L2-normalised, multinomial logistic
  regression. Without Myopia every character weighs the same (plain mean pooling).
* TransformerBackbone - any transformers encoder by hub name or local path (MacBERT,
  RoBERTa-wwm-ext): level-5 tokens are removed before encoding and the retained token states are
  pooled with the normalised Myopia weights (Algorithm 1), then a linear head.
"""
from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol, Sequence

import numpy as np

from .finetune import DevHoldout

N_CLASSES = 5
Progress = Callable[[str, int, int], None]


@dataclass
class WeightedText:
    """What a backbone sees: the (filtered) text and one weight per character of it."""

    text: str
    char_weights: list[float]
    # The original text and a weight per original character (0 where Myopia removed a token):
    # what a token-state encoder pools over (use-m3), so each post is encoded once.
    source: str | None = None
    source_weights: list[float] | None = None

    @classmethod
    def plain(cls, text: str) -> WeightedText:
        return cls(text, [1.0] * len(text), text, None)

    def filtered_only(self) -> WeightedText:
        """Myopia as a filter only (extension): the same kept tokens, each weighing 1."""
        return WeightedText(self.text, [1.0 if w > 0 else 0.0 for w in self.char_weights], self.source,
                            None if self.source_weights is None else [1.0 if w > 0 else 0.0 for w in self.source_weights])

    def pooling_input(self) -> tuple[str, list[float] | None]:
        return (self.source if self.source is not None else self.text), self.source_weights

    @classmethod
    def from_myopia(cls, result) -> WeightedText:
        """Level-5 tokens removed (Algorithm 1, line 2). Where tokens were removed a zero-weight
        space marks the gap, so no n-gram or subword joins words that were never adjacent."""
        parts: list[str] = []
        weights: list[float] = []
        last_end = None
        for t in result.kept_tokens():
            if last_end is not None and t.start != last_end:
                parts.append(" ")
                weights.append(0.0)
            parts.append(t.text)
            weights.extend([t.weight] * len(t.text))
            last_end = t.end
        if not parts:  # everything was level 5: fall back to the raw text rather than an empty input
            return cls.plain(result.text)
        return cls("".join(parts), weights, result.text, result.char_weights())


class Backbone(Protocol):
    name: str

    def fit(self, inputs: Sequence[WeightedText], labels: Sequence[int], progress: Progress | None = None) -> None: ...

    def predict_proba(self, inputs: Sequence[WeightedText]) -> np.ndarray: ...

    def save(self, directory: Path) -> None: ...


def pick_device(preference: str = "auto") -> str:
    import torch

    if preference == "cpu":
        return "cpu"
    if preference in ("auto", "cuda") and torch.cuda.is_available():
        return "cuda"
    if preference == "cuda":
        raise RuntimeError("CUDA was requested but no GPU is visible to torch")
    return "cpu"


# --------------------------------------------------------------------------- offline default

_NGRAM_CACHE: dict[tuple, dict[str, float]] = {}
_NGRAM_CACHE_SIZE = 10_000  # ~30 KB a post: ~300 MB at most per process

class CharNgramBackbone:
    """Character n-grams (and, in subclasses, use-m3 sentence vectors) into one multinomial
    logistic regression."""

    name = "char-ngram"
    use_ngrams = True
    use_weight = 0.0  # scale of the use-m3 sentence vector appended to the features (0 = none)

    def __init__(self, ngram_min: int = 1, ngram_max: int = 3, min_df: int = 2, C: float = 2.0,
                 class_weight: str | None = "balanced", seed: int = 0, max_iter: int = 3000, n_classes: int = N_CLASSES,
                 use_weight: float | None = None):
        self.n_classes = n_classes
        if use_weight is not None:
            self.use_weight = use_weight
        self.ngram_min, self.ngram_max, self.min_df = ngram_min, ngram_max, min_df
        self.C, self.class_weight, self.seed, self.max_iter = C, class_weight, seed, max_iter
        self.vocab: dict[str, int] = {}
        self.idf: np.ndarray | None = None
        self.coef: np.ndarray | None = None
        self.intercept: np.ndarray | None = None
        self.classes: np.ndarray | None = None

    def _ngrams(self, item: WeightedText) -> dict[str, float]:
        """Weighted pooling over n-gram occurrences: w(g) = mean char weight, normalised to sum 1.
        Memoised (cross-fitting featurises the same posts once per fold); callers never mutate it."""
        key = (item.text, tuple(item.char_weights), self.ngram_min, self.ngram_max)
        hit = _NGRAM_CACHE.get(key)
        if hit is None:
            hit = self._count_ngrams(item)
            if len(_NGRAM_CACHE) >= _NGRAM_CACHE_SIZE:
                _NGRAM_CACHE.pop(next(iter(_NGRAM_CACHE)))
            _NGRAM_CACHE[key] = hit
        return hit

    def _count_ngrams(self, item: WeightedText) -> dict[str, float]:
        text, w = item.text, item.char_weights
        raw: dict[str, float] = {}
        for n in range(self.ngram_min, self.ngram_max + 1):
            for i in range(len(text) - n + 1):
                span = w[i:i + n]
                if min(span) <= 0:  # n-grams never bridge a removed token
                    continue
                gram = text[i:i + n]
                raw[gram] = raw.get(gram, 0.0) + sum(span) / n
        total = sum(raw.values())
        return {g: v / total for g, v in raw.items()} if total else {}

    def _matrix(self, inputs: Sequence[WeightedText]):
        from scipy.sparse import csr_matrix, hstack

        blocks = [self._ngram_matrix(inputs)] if self.use_ngrams else []
        if self.use_weight > 0:
            from .use_m3 import shared_encoder

            pairs = [i.pooling_input() for i in inputs]
            vectors = shared_encoder().encode([t for t, _ in pairs], char_weights=[w for _, w in pairs])
            blocks.append(csr_matrix(vectors.astype(np.float64) * self.use_weight))
        return hstack(blocks).tocsr() if len(blocks) > 1 else blocks[0]

    def _ngram_matrix(self, inputs: Sequence[WeightedText]):
        from scipy.sparse import csr_matrix

        rows, cols, vals = [], [], []
        for r, item in enumerate(inputs):
            for gram, value in self._ngrams(item).items():
                c = self.vocab.get(gram)
                if c is not None:
                    rows.append(r)
                    cols.append(c)
                    vals.append(value)
        m = csr_matrix((vals, (rows, cols)), shape=(len(inputs), len(self.vocab)), dtype=np.float64)
        m = m.multiply(self.idf).tocsr()
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1))).ravel()
        norms[norms == 0] = 1.0
        return csr_matrix(m.multiply(1.0 / norms[:, None]))

    def fit(self, inputs, labels, progress: Progress | None = None) -> None:
        from sklearn.linear_model import LogisticRegression

        df = Counter()
        for item in (inputs if self.use_ngrams else ()):
            df.update(set(self._ngrams(item)))
        grams = sorted(g for g, c in df.items() if c >= self.min_df)
        self.vocab = {g: i for i, g in enumerate(grams)}
        n_docs = len(inputs)
        self.idf = np.asarray([math.log((1 + n_docs) / (1 + df[g])) + 1.0 for g in grams])
        if progress:
            progress("training", 0, 1)
        x = self._matrix(inputs)
        y = np.asarray(labels, dtype=int)
        if len(set(y.tolist())) < 2:
            raise ValueError("training labels have a single class; a classifier cannot be trained")
        # newton-cg: converges in a handful of Newton steps here, several times faster than lbfgs
        # at the same optimum (docs/maam_offline.md).
        model = LogisticRegression(C=self.C, class_weight=self.class_weight, max_iter=self.max_iter,
                                   random_state=self.seed, solver="newton-cg")
        model.fit(x, y)
        self.coef, self.intercept, self.classes = model.coef_, model.intercept_, model.classes_
        if progress:
            progress("training", 1, 1)

    def predict_proba(self, inputs) -> np.ndarray:
        if self.coef is None:
            raise RuntimeError("the backbone is not trained")
        x = self._matrix(inputs)
        logits = np.asarray(x @ self.coef.T) + self.intercept
        if logits.shape[1] == 1:  # binary logistic regression
            logits = np.hstack([-logits / 2, logits / 2])
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        out = np.zeros((len(inputs), self.n_classes))
        for j, cls in enumerate(self.classes):
            out[:, int(cls) - 1] = p[:, j]
        return out

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        grams = sorted(self.vocab, key=self.vocab.get)
        (directory / "vocab.json").write_text(json.dumps(grams, ensure_ascii=False), encoding="utf-8")
        np.savez(directory / "weights.npz", idf=self.idf, coef=self.coef, intercept=self.intercept, classes=self.classes)
        (directory / "backbone.json").write_text(json.dumps(
            {"name": self.name, "ngram_min": self.ngram_min, "ngram_max": self.ngram_max, "min_df": self.min_df,
             "C": self.C, "class_weight": self.class_weight, "seed": self.seed, "max_iter": self.max_iter,
             "n_classes": self.n_classes, "use_weight": self.use_weight}))

    @classmethod
    def load(cls, directory: Path) -> CharNgramBackbone:
        cfg = json.loads((directory / "backbone.json").read_text())
        cls = LINEAR_BACKBONES[cfg.pop("name")]
        obj = cls(**cfg)
        grams = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
        obj.vocab = {g: i for i, g in enumerate(grams)}
        data = np.load(directory / "weights.npz", allow_pickle=False)
        obj.idf, obj.coef, obj.intercept, obj.classes = data["idf"], data["coef"], data["intercept"], data["classes"]
        return obj


class UseM3Backbone(CharNgramBackbone):
    """Multilingual USE v3 (modeling/maam/use_m3.py): Myopia-weighted pooling of its token states
    (Algorithm 1), its frozen post-pooling layers, and a logistic-regression head. A head that
    fine-tunes the post-pooling layers in torch was measured worse on 1,000 posts
    (docs/maam_offline.md)."""

    name = "use-m3"
    use_ngrams = False
    use_weight = 1.0

    def __init__(self, C: float = 1.0, **kwargs):
        super().__init__(C=C, **kwargs)


class HybridBackbone(CharNgramBackbone):
    """use-m3 sentence vector and character n-gram tf-idf in one logistic regression; Myopia
    weights both (pooling of token states and of n-gram occurrences)."""

    name = "hybrid"
    use_weight = 0.7  # chosen on random 1,000/1,000 splits of the sample (docs/maam_offline.md)


LINEAR_BACKBONES = {b.name: b for b in (CharNgramBackbone, UseM3Backbone, HybridBackbone)}
USE_M3_FT = "use-m3-ft"  # USE-m3 fine-tuned end to end in torch (use_m3_ft.py)
# Need no download: what the admin offers besides a model path.
OFFLINE_BACKBONES = (*LINEAR_BACKBONES, USE_M3_FT)


# --------------------------------------------------------------------------- transformers encoder

def token_weights(offsets, char_weights: Sequence[Sequence[float]]):
    """Myopia weight per subword token: the mean weight of the characters its offsets span
    (special and padding tokens have empty spans and weigh 0). Vectorised with prefix sums: one
    gather per batch instead of a Python loop over tokens."""
    import torch

    offsets = torch.as_tensor(offsets, dtype=torch.long)
    longest = max((len(w) for w in char_weights), default=0)
    prefix = torch.zeros((len(char_weights), longest + 1), dtype=torch.float64)
    for b, w in enumerate(char_weights):
        if len(w):
            prefix[b, 1:len(w) + 1] = torch.cumsum(torch.as_tensor(w, dtype=torch.float64), dim=0)
            prefix[b, len(w) + 1:] = prefix[b, len(w)]
    start = offsets[..., 0].clamp(0, longest)
    end = offsets[..., 1].clamp(0, longest)
    span = (end - start).to(torch.float64)
    total = torch.gather(prefix, 1, end) - torch.gather(prefix, 1, start)
    return torch.where(span > 0, total / span.clamp_min(1), torch.zeros_like(total)).to(torch.float32)


class TransformerBackbone(DevHoldout):
    """Fine-tunes a transformers encoder with Myopia weighted pooling (Algorithm 1) and a linear head."""

    name = "transformer"

    def __init__(self, model_name_or_path: str, epochs: int = 3, batch_size: int = 16, lr: float = 2e-5,
                 max_length: int = 128, seed: int = 0, device: str = "auto", weight_decay: float = 0.01,
                 n_classes: int = N_CLASSES, **recipe):
        from .finetune import recipe_from

        self.n_classes = n_classes
        self.model_name_or_path = model_name_or_path
        self.max_length, self.seed, self.device_pref = max_length, seed, device
        # The shared recipe (finetune.py): warmup + linear decay, clipping, bf16 on CUDA, dev split
        # with early stopping; the head learns at its own (higher) rate.
        self.recipe = recipe_from({"head_lr": 1e-3, **recipe, "epochs": epochs, "batch_size": batch_size, "lr": lr,
                                   "weight_decay": weight_decay})
        self.epochs, self.batch_size, self.lr, self.weight_decay = epochs, batch_size, lr, weight_decay
        self.device = pick_device(device)
        self.history: dict = {}
        self._tokenizer = None
        self._encoder = None
        self._head = None

    def _load(self, path: str) -> None:
        from transformers import AutoModel, AutoTokenizer

        offline = not os.path.isdir(path)
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=offline)
            self._encoder = AutoModel.from_pretrained(path, local_files_only=offline)
        except OSError as exc:
            raise RuntimeError(
                f"Could not load the encoder {path!r}: not a local directory and not in the Hugging Face cache "
                f"(this machine cannot download). Point --backbone at a saved model directory. ({exc})"
            ) from exc
        if not getattr(self._tokenizer, "is_fast", False):
            raise RuntimeError(f"{path!r} has no fast tokenizer; offsets are needed to map Myopia weights")
        self._encoder.to(self.device)

    def _batch(self, items: Sequence[WeightedText]):

        enc = self._tokenizer([i.text for i in items], padding=True, truncation=True, max_length=self.max_length,
                              return_offsets_mapping=True, return_tensors="pt")
        offsets = enc.pop("offset_mapping")
        weights = token_weights(offsets, [i.char_weights for i in items])
        return {k: v.to(self.device) for k, v in enc.items()}, weights.to(self.device)

    def _forward(self, items):
        import torch

        inputs, w = self._batch(items)
        hidden = self._encoder(**inputs).last_hidden_state
        w = w * inputs["attention_mask"].float()
        denom = w.sum(dim=1, keepdim=True).clamp_min(1e-8)
        pooled = torch.bmm((w / denom).unsqueeze(1), hidden).squeeze(1)  # Algorithm 1, line 4
        return self._head(pooled)

    def fit(self, inputs, labels, progress: Progress | None = None) -> None:
        import torch

        from .finetune import fine_tune

        torch.manual_seed(self.seed)
        self._load(self.model_name_or_path)
        hidden = self._encoder.config.hidden_size
        self._head = torch.nn.Linear(hidden, self.n_classes).to(self.device)
        items = list(inputs)
        wrapper = torch.nn.ModuleDict({"encoder": self._encoder, "head": self._head})
        history = fine_tune(wrapper, lambda idx: self._forward([items[i] for i in idx]), labels, self.recipe,
                            list(self._encoder.parameters()), list(self._head.parameters()), self.device, self.seed,
                            self.n_classes, progress)
        self.history = history.to_dict()
        self.remember_dev(labels)

    def predict_proba(self, inputs) -> np.ndarray:
        import torch

        out = []
        use_bf16 = self.recipe.bf16 and self.device == "cuda"
        with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=use_bf16):
            for start in range(0, len(inputs), self.batch_size * 2):
                logits = self._forward(list(inputs[start:start + self.batch_size * 2])).float()
                out.append(torch.softmax(logits, dim=-1).cpu().numpy())
        return np.concatenate(out).astype(np.float64) if out else np.zeros((0, self.n_classes))

    def save(self, directory: Path) -> None:
        import torch

        directory.mkdir(parents=True, exist_ok=True)
        self._encoder.save_pretrained(directory / "encoder")
        self._tokenizer.save_pretrained(directory / "encoder")
        torch.save(self._head.state_dict(), directory / "head.pt")
        (directory / "backbone.json").write_text(json.dumps(
            {"name": self.name, "model_name_or_path": self.model_name_or_path, "epochs": self.epochs,
             "batch_size": self.batch_size, "lr": self.lr, "max_length": self.max_length, "seed": self.seed,
             "device": self.device_pref, "weight_decay": self.weight_decay, "n_classes": self.n_classes,
             **{k: v for k, v in self.recipe.to_dict().items() if k not in ("epochs", "batch_size", "lr", "weight_decay")},
             "history": self.history}))

    @classmethod
    def load(cls, directory: Path, device: str = "auto") -> TransformerBackbone:
        import torch

        cfg = json.loads((directory / "backbone.json").read_text())
        cfg.pop("name")
        history = cfg.pop("history", {})
        cfg["device"] = device
        obj = cls(**cfg)
        obj.history = history
        obj._load(str(directory / "encoder"))
        obj._encoder.eval()
        obj._head = torch.nn.Linear(obj._encoder.config.hidden_size, obj.n_classes).to(obj.device)
        obj._head.load_state_dict(torch.load(directory / "head.pt", map_location=obj.device, weights_only=True))
        return obj


NGRAM_PARAMS = ("ngram_min", "ngram_max", "min_df", "C", "class_weight", "use_weight")
TRANSFORMER_PARAMS = ("epochs", "batch_size", "lr", "max_length", "weight_decay", "head_lr", "warmup", "clip",
                      "dev_fraction", "patience", "class_weight", "bf16")


def make_backbone(spec: str, seed: int = 0, device: str = "auto", n_classes: int = N_CLASSES, **params):
    """'char-ngram', 'use-m3', 'hybrid', 'use-m3-ft' (all offline) or a transformers model name / local path."""
    if spec in ("ngram", "default"):
        spec = "char-ngram"
    if spec in LINEAR_BACKBONES:
        allowed = {k: v for k, v in params.items() if k in NGRAM_PARAMS}
        return LINEAR_BACKBONES[spec](seed=seed, n_classes=n_classes, **allowed)
    if spec == USE_M3_FT:
        from .finetune import RECIPE_KEYS
        from .use_m3_ft import UseM3FtBackbone

        allowed = {k: v for k, v in params.items() if k in (*RECIPE_KEYS, "max_tokens")}
        return UseM3FtBackbone(seed=seed, device=device, n_classes=n_classes, **allowed)
    allowed = {k: v for k, v in params.items() if k in TRANSFORMER_PARAMS}
    return TransformerBackbone(spec, seed=seed, device=device, n_classes=n_classes, **allowed)


def load_backbone(directory: Path, device: str = "auto"):
    name = json.loads((directory / "backbone.json").read_text())["name"]
    if name in LINEAR_BACKBONES:
        return CharNgramBackbone.load(directory)
    if name == USE_M3_FT:
        from .use_m3_ft import UseM3FtBackbone

        return UseM3FtBackbone.load(directory, device=device)
    return TransformerBackbone.load(directory, device=device)
