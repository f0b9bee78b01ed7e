"""Full MAAM can always fall back to its baseline (issue 23, item 1): the alpha search can choose
"no prior" (alpha = 1 leaves the model's distribution unchanged), and the Myopia gate can choose
plain inputs, so where neither helps on cross-fitted predictions, full MAAM predicts exactly what
its baseline predicts."""
from __future__ import annotations

import numpy as np
import pytest

from modeling.maam.astigmatism import PRIOR_MODES, CISState, fuse, search_fusion
from modeling.maam.backbones import WeightedText
from modeling.maam.train import TrainConfig, fit_dimension, train


def noisy_problem(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(1, 6, n)
    p = np.full((n, 5), 0.1)
    p[np.arange(n), y - 1] += rng.uniform(0.0, 0.6, n)  # an informative but imperfect model
    p[np.arange(n), rng.integers(0, 5, n)] += rng.uniform(0.0, 0.6, n)
    p /= p.sum(axis=1, keepdims=True)
    return y, p


@pytest.mark.parametrize("prior_mode", PRIOR_MODES)
def test_alpha_one_is_no_prior(prior_mode):
    _, p = noisy_problem(20)
    q = np.random.default_rng(1).dirichlet(np.ones(5), size=20)
    assert np.allclose(fuse(p, q, 1.0, prior_mode), p, atol=1e-7)
    assert np.allclose(fuse(p, q, [1.0] * 5, prior_mode), p, atol=1e-7)


@pytest.mark.parametrize("mode", ["unified", "per-class"])
def test_the_search_chooses_no_prior_when_the_prior_misleads(mode):
    y, p = noisy_problem()
    wrong = np.full((len(y), 5), 0.01)
    wrong[np.arange(len(y)), (y % 5)] = 0.96  # every prior row points at a wrong class
    q = {axis: wrong for axis in "CIS"}
    result = search_fusion(p, y, q, ("I", "S", "C"), mode)
    flat = np.ravel(result.alphas)
    assert np.all(flat == 1.0) and result.dev_macro_f1 == pytest.approx(result.baseline_dev_f1)
    right = np.full((len(y), 5), 0.01)
    right[np.arange(len(y)), y - 1] = 0.96  # and takes a prior that helps
    helped = search_fusion(p, y, {axis: right for axis in "CIS"}, ("I", "S", "C"), mode)
    assert np.ravel(helped.alphas).min() < 1.0 and helped.dev_macro_f1 > helped.baseline_dev_f1


def corpus(n=120, seed=0):
    rng = np.random.default_rng(seed)
    words = {1: "支持平等", 2: "尊重他们", 3: "随便说说", 4: "真的讨厌", 5: "恶心变态"}
    y = [int(v) for v in rng.integers(1, 6, n)]
    texts = [f"{words[label]}{'的' * int(rng.integers(0, 3))}第{i}条" for i, label in enumerate(y)]
    return texts, y


def blind_myopia(texts):
    """A Myopia that weighs the informative words 0: only the numbering is left to learn from."""
    return [WeightedText(t, [0.0] * 4 + [1.0] * (len(t) - 4), t, [0.0] * 4 + [1.0] * (len(t) - 4)) for t in texts]


def test_the_gate_drops_a_myopia_that_hurts_and_keeps_one_that_helps():
    texts, y = corpus()
    states = [CISState("General", "Uncertain", "Neutral")] * len(texts)  # priors carry nothing
    plain = [WeightedText.plain(t) for t in texts]
    config = TrainConfig(backbone="char-ngram", folds=3, min_gain=0.01)
    dm = fit_dimension(blind_myopia(texts), y, states, config, full_table=False, plain_inputs=plain)
    assert dm.use_myopia is False and dm.gate["plain_dev_f1"] > dm.gate["myopia_dev_f1"]
    assert np.all(np.ravel(dm.fusion.alphas) == 1.0)  # and no prior: the baseline itself
    baseline = fit_dimension(plain, y, None, config)
    assert np.allclose(dm.backbone.predict_proba(plain), baseline.backbone.predict_proba(plain))
    kept = fit_dimension(plain, y, states, config, full_table=False, plain_inputs=blind_myopia(texts))
    assert kept.use_myopia is True  # "Myopia" (here the informative inputs) wins and stays


def test_a_gated_full_model_predicts_like_its_baseline_where_neither_part_helps(tmp_path):
    texts, y = corpus(150)
    labels = {"explicit": y}
    # Every post in one C-I-S state (no tags, an inferer that finds nothing): the priors are the
    # label distribution, which cannot beat the model by the required margin.
    tags = [{"C": "General", "I": "Uncertain", "S": "Neutral"}] * len(texts)
    common = dict(dimensions=("explicit",), backbone="char-ngram", folds=3, min_gain=0.01, cis="cues")
    full = train(texts, labels, TrainConfig(variant="full", myopia_gate=True, **common), tags=tags)
    base = train(texts, labels, TrainConfig(variant="baseline", **common))
    dm = full.dims["explicit"]
    probe = [f"{w}第{i}条" for i, w in enumerate(["支持平等", "恶心变态", "随便说说"] * 5)]
    probe_tags = [tags[0]] * len(probe)
    # Myopia ties plain inputs here and the single-state priors cannot add 0.01: both fall back.
    assert dm.use_myopia is False and np.all(np.ravel(dm.fusion.alphas) == 1.0), (dm.gate, dm.fusion)
    got = full.predict(probe, probe_tags)["explicit"]["after"]
    assert np.allclose(got, base.predict(probe)["explicit"]["after"])
    full.save(tmp_path / "m")
    from modeling.maam.train import MAAMModel

    again = MAAMModel.load(tmp_path / "m")
    assert again.dims["explicit"].use_myopia == dm.use_myopia and again.dims["explicit"].gate == dm.gate
