"""One fine-tuning recipe for the torch backbones (use-m3-ft, transformers encoders): AdamW with
separate encoder / head learning rates, warmup then linear decay, gradient clipping, class-weighted
cross-entropy, bf16 autocast on CUDA, and a dev split carved from the training posts with early
stopping that keeps the best epoch's weights (docs/maam_gpu.md)."""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

import numpy as np

Progress = Callable[[str, int, int], None]


@dataclass
class FineTuneRecipe:
    epochs: int = 4
    batch_size: int = 32
    lr: float = 2e-4  # encoder parameters
    head_lr: float = 2e-3  # the classification head (fresh weights learn faster)
    weight_decay: float = 0.01
    warmup: float = 0.1  # share of the optimiser steps spent warming up (then linear decay to 0)
    clip: float = 1.0  # max global gradient norm (0: none)
    dev_fraction: float = 0.1  # carved from the training posts, stratified; 0: no dev split
    patience: int = 2  # epochs without a better dev macro-F1 before stopping
    class_weight: str | None = "balanced"
    bf16: bool = True  # autocast to bfloat16 on CUDA (ignored on the CPU)

    def to_dict(self) -> dict:
        return asdict(self)


RECIPE_KEYS = tuple(FineTuneRecipe.__dataclass_fields__)


def recipe_from(params: dict) -> FineTuneRecipe:
    return FineTuneRecipe(**{k: v for k, v in params.items() if k in RECIPE_KEYS})


def dev_split(labels: Sequence[int], fraction: float, seed: int, min_posts: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """(train, dev) indices: `fraction` of each class, at least one post of any class with five or
    more, none when the set is under `min_posts` (too few to both learn and select)."""
    y = np.asarray(labels)
    every = np.arange(len(y))
    if fraction <= 0 or len(y) < min_posts:
        return every, every[:0]
    rng = np.random.default_rng(seed + 104729)
    dev = []
    for cls in np.unique(y):
        members = np.flatnonzero(y == cls)
        take = int(round(fraction * len(members)))
        if take == 0 and len(members) >= 5:
            take = 1
        dev.extend(rng.permutation(members)[:take].tolist())
    dev_idx = np.sort(np.asarray(dev, dtype=int))
    return np.setdiff1d(every, dev_idx), dev_idx


class DevHoldout:
    """Mixin for fine-tuned backbones: the dev split `fit` carved from the training posts (never
    trained on; it picks the kept epoch) and the kept weights' probabilities on it. Full MAAM can
    tune its fusion there instead of cross-fitting (TrainConfig.fusion_tuning = "dev"): one
    fine-tune per dimension instead of folds + 1 (docs/maam_gpu.md)."""

    dev_index: np.ndarray | None = None

    def remember_dev(self, labels: Sequence[int]) -> None:
        self.dev_index = dev_split(np.asarray(labels, dtype=int), self.recipe.dev_fraction, self.seed)[1]

    def holdout(self, inputs: Sequence) -> tuple[np.ndarray, np.ndarray]:
        if self.dev_index is None:
            raise RuntimeError("the backbone was not trained in this process: no dev split to tune on")
        items = list(inputs)
        return self.dev_index, self.predict_proba([items[i] for i in self.dev_index])


def linear_schedule(total_steps: int, warmup: float) -> Callable[[int], float]:
    """LR multiplier: linear warmup over the first `warmup` share of the steps, then linear decay to 0."""
    warm = max(1, int(math.ceil(warmup * total_steps))) if warmup > 0 else 0

    def factor(step: int) -> float:
        if warm and step < warm:
            return (step + 1) / warm
        return max(0.0, (total_steps - step) / max(1, total_steps - warm))

    return factor


@dataclass
class FineTuneHistory:
    epochs_run: int = 0
    best_epoch: int = 0
    dev_macro_f1: list[float] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    n_train: int = 0
    n_dev: int = 0
    device: str = "cpu"
    autocast: str = "none"

    def to_dict(self) -> dict:
        return asdict(self)


def fine_tune(model, forward: Callable[[np.ndarray], object], labels: Sequence[int], recipe: FineTuneRecipe,
              encoder_params: list, head_params: list, device, seed: int, n_classes: int,
              progress: Progress | None = None, stage: str = "training") -> FineTuneHistory:
    """Train `model` (an nn.Module whose forward is wrapped by `forward(indices) -> logits`) on the
    posts `labels` (1..n_classes). Leaves the model in eval mode with the best dev epoch's weights."""
    import torch

    from .metrics import macro_f1

    started = time.perf_counter()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    y_all = np.asarray(labels, dtype=int)
    train_idx, dev_idx = dev_split(y_all, recipe.dev_fraction, seed)
    y = torch.tensor(y_all - 1, dtype=torch.long)
    weight = None
    if recipe.class_weight == "balanced":
        counts = np.bincount(y_all[train_idx] - 1, minlength=n_classes).astype(float)
        w = np.where(counts > 0, len(train_idx) / (n_classes * np.maximum(counts, 1)), 1.0)
        weight = torch.tensor(w, dtype=torch.float32, device=device)
    groups = [{"params": [p for p in encoder_params if p.requires_grad], "lr": recipe.lr},
              {"params": head_params, "lr": recipe.head_lr}]
    optim = torch.optim.AdamW([g for g in groups if g["params"]], weight_decay=recipe.weight_decay)
    per_epoch = math.ceil(len(train_idx) / recipe.batch_size)
    total = recipe.epochs * per_epoch
    scheduler = torch.optim.lr_scheduler.LambdaLR(optim, linear_schedule(total, recipe.warmup))
    use_bf16 = recipe.bf16 and torch.device(device).type == "cuda"
    history = FineTuneHistory(n_train=len(train_idx), n_dev=len(dev_idx), device=str(device),
                              autocast="bf16" if use_bf16 else "none")
    best_f1, best_state, stale, done = -1.0, None, 0, 0
    labels_range = list(range(1, n_classes + 1))
    for epoch in range(recipe.epochs):
        model.train()
        order = train_idx[rng.permutation(len(train_idx))]
        losses = []
        for start in range(0, len(order), recipe.batch_size):
            idx = order[start:start + recipe.batch_size]
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=use_bf16):
                logits = forward(idx)
            loss = torch.nn.functional.cross_entropy(logits.float(), y[idx].to(device), weight=weight)
            optim.zero_grad(set_to_none=True)
            loss.backward()
            if recipe.clip > 0:
                torch.nn.utils.clip_grad_norm_([p for g in optim.param_groups for p in g["params"]], recipe.clip)
            optim.step()
            scheduler.step()
            losses.append(float(loss.detach()))
            done += 1
            if progress:
                progress(f"{stage} epoch {epoch + 1}/{recipe.epochs}", done, total)
        history.epochs_run = epoch + 1
        history.train_loss.append(round(float(np.mean(losses)), 5))
        if not len(dev_idx):
            continue
        model.eval()
        with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=use_bf16):
            pred = np.concatenate([forward(dev_idx[s:s + 2 * recipe.batch_size]).float().argmax(-1).cpu().numpy()
                                   for s in range(0, len(dev_idx), 2 * recipe.batch_size)]) + 1
        f1 = macro_f1(y_all[dev_idx], pred, labels_range)
        history.dev_macro_f1.append(round(float(f1), 5))
        if f1 > best_f1:
            best_f1, stale, history.best_epoch = f1, 0, epoch + 1
            best_state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
        else:
            stale += 1
            if stale >= recipe.patience:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    else:
        history.best_epoch = history.epochs_run
    model.eval()
    history.seconds = round(time.perf_counter() - started, 3)
    return history
