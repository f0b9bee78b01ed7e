"""The fine-tuning recipe shared by the torch backbones (issue 23, item 2): schedule, dev split,
early stopping with the best checkpoint kept, clipping, and the vectorised char -> token weights."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from modeling.maam import finetune  # noqa: E402
from modeling.maam.backbones import token_weights  # noqa: E402
from modeling.maam.finetune import FineTuneRecipe, dev_split, fine_tune, linear_schedule  # noqa: E402


def test_warmup_then_linear_decay_to_zero():
    f = linear_schedule(100, 0.1)
    warm = [f(s) for s in range(10)]
    assert warm == sorted(warm) and warm[0] == pytest.approx(0.1) and warm[-1] == pytest.approx(1.0)
    decay = [f(s) for s in range(10, 100)]
    assert decay == sorted(decay, reverse=True) and decay[0] == pytest.approx(1.0) and f(100) == 0.0
    assert linear_schedule(10, 0)(0) == 1.0  # no warmup: decay from the first step


def test_the_dev_split_is_stratified_and_skipped_for_tiny_sets():
    y = [1] * 60 + [2] * 30 + [5] * 6
    train, dev = dev_split(y, 0.1, seed=0)
    assert len(np.intersect1d(train, dev)) == 0 and len(train) + len(dev) == len(y)
    picked = np.asarray(y)[dev]
    assert (picked == 1).sum() == 6 and (picked == 2).sum() == 3 and (picked == 5).sum() == 1
    assert len(dev_split(y[:40], 0.1, seed=0)[1]) == 0
    assert np.array_equal(dev_split(y, 0.1, seed=0)[1], dev)


def old_token_weights(offsets, char_weights):
    """The per-token Python loop the vectorised mapping replaced."""
    weights = torch.zeros(offsets.shape[:2], dtype=torch.float32)
    for b, cw in enumerate(char_weights):
        for t, (s, e) in enumerate(offsets[b].tolist()):
            if e > s:
                weights[b, t] = sum(cw[s:e]) / (e - s)
    return weights


def test_vectorised_token_weights_equal_the_old_loop():
    rng = np.random.default_rng(1)
    char_weights, offsets = [], []
    for length in (0, 1, 7, 23, 40):
        cw = list(np.where(rng.random(length) < 0.3, 0.0, rng.uniform(0.2, 1.0, length)))
        char_weights.append(cw)
        spans, pos = [(0, 0)], 0  # [CLS]
        while pos < length:
            step = int(rng.integers(1, 4))
            spans.append((pos, min(length, pos + step)))
            pos += step
        spans.append((0, 0))  # [SEP]
        offsets.append(spans)
    width = max(len(s) for s in offsets)
    batch = torch.tensor([s + [(0, 0)] * (width - len(s)) for s in offsets])  # padding
    assert torch.allclose(token_weights(batch, char_weights), old_token_weights(batch, char_weights), atol=1e-6)


def toy_problem(n=120):
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.normal(size=(n, 4)), dtype=torch.float32)
    y = (x[:, 0] > 0).long().numpy() * 2 + 1  # classes 1 and 3
    return x, y


def test_early_stopping_restores_the_best_dev_epoch(monkeypatch):
    x, y = toy_problem()
    net = torch.nn.Linear(4, 5)
    scripted = iter([0.5, 0.7, 0.6, 0.4, 0.9])
    snapshots = []

    def fake_f1(y_true, y_pred, labels):
        snapshots.append({k: v.clone() for k, v in net.state_dict().items()})
        return next(scripted)

    monkeypatch.setattr("modeling.maam.metrics.macro_f1", fake_f1)
    history = fine_tune(net, lambda idx: net(x[idx]), y, FineTuneRecipe(epochs=5, batch_size=16, lr=0.1, head_lr=0.1,
                                                                      patience=2, dev_fraction=0.2),
                        [], list(net.parameters()), "cpu", seed=0, n_classes=5)
    assert history.dev_macro_f1 == [0.5, 0.7, 0.6, 0.4]  # stopped after two epochs without a better dev F1
    assert history.best_epoch == 2 and history.epochs_run == 4 and history.n_dev == 24
    assert all(torch.equal(net.state_dict()[k], snapshots[1][k]) for k in snapshots[1])  # epoch 2's weights


def test_gradients_are_clipped_to_the_recipes_norm(monkeypatch):
    x, y = toy_problem()
    net = torch.nn.Linear(4, 5)
    norms = []
    real = torch.nn.utils.clip_grad_norm_

    def spy(params, max_norm):
        params = list(params)
        total = real(params, max_norm)
        norms.append(torch.sqrt(sum((p.grad ** 2).sum() for p in params)).item())
        return total

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", spy)
    fine_tune(net, lambda idx: net(x[idx]) * 50, y, FineTuneRecipe(epochs=1, batch_size=16, clip=0.5, dev_fraction=0),
              [], list(net.parameters()), "cpu", seed=0, n_classes=5)
    assert norms and max(norms) <= 0.5 + 1e-4


@pytest.mark.skipif(not torch.cuda.is_available(), reason="bf16 autocast applies on CUDA only; no GPU here")
def test_bf16_autocast_on_cuda():
    x, y = toy_problem()
    net = torch.nn.Linear(4, 5).cuda()
    seen = []
    history = fine_tune(net, lambda idx: seen.append(net(x[idx].cuda()).dtype) or net(x[idx].cuda()), y,
                        FineTuneRecipe(epochs=1, dev_fraction=0), [], list(net.parameters()), "cuda", 0, 5)
    assert history.autocast == "bf16" and torch.bfloat16 in seen


def test_the_recipe_ignores_unknown_keys():
    assert finetune.recipe_from({"epochs": 2, "C": 3.0}).epochs == 2
