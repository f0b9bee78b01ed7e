"""Stacking over dimensions and per-class decision offsets (issue 23, item 3; stacking.py)."""
from __future__ import annotations

import numpy as np
import pytest

from modeling.maam.metrics import macro_f1
from modeling.maam.stacking import Stacker, apply_offsets, choose, log_features, tune_offsets
from modeling.maam.train import MAAMModel, TrainConfig, preset_config, train


def test_offsets_recover_a_rare_class_that_argmax_never_predicts():
    rng = np.random.default_rng(0)
    y = np.where(rng.random(600) < 0.1, 2, 1)
    p = np.full((600, 5), 0.01)
    p[:, 0] = 0.6
    p[:, 1] = np.where(y == 2, 0.45, 0.2) + rng.uniform(0, 0.1, 600)  # ranked right, never on top
    p /= p.sum(axis=1, keepdims=True)
    before = macro_f1(y, p.argmax(1) + 1, [1, 2])
    offsets = tune_offsets(p, y)
    after = macro_f1(y, apply_offsets(p, offsets).argmax(1) + 1, [1, 2])
    assert offsets[1] > offsets[0] and after > before + 0.3
    assert np.allclose(apply_offsets(p, offsets).sum(axis=1), 1)


def test_offsets_stay_zero_when_argmax_is_already_best():
    y = np.array([1, 2, 3, 4, 5] * 20)
    p = np.full((100, 5), 0.05)
    p[np.arange(100), y - 1] = 0.8
    assert np.all(tune_offsets(p, y) == 0)


def test_the_stacker_reads_another_dimensions_predictions():
    rng = np.random.default_rng(1)
    y = rng.integers(1, 6, 500)
    own = rng.dirichlet(np.ones(5), 500)  # this dimension's model knows nothing
    other = np.full((500, 5), 0.05)
    other[np.arange(500), y - 1] = 0.8  # the correlated dimension's model does
    alone = Stacker().fit(log_features([own]), y).predict_proba(log_features([own]))
    both = Stacker().fit(log_features([own, other]), y).predict_proba(log_features([own, other]))
    assert macro_f1(y, both.argmax(1) + 1) > 0.9 > 0.4 > macro_f1(y, alone.argmax(1) + 1)


def corpus(n=150, seed=0):
    rng = np.random.default_rng(seed)
    words = {1: "支持平等", 2: "尊重他们", 3: "随便说说", 4: "真的讨厌", 5: "恶心变态"}
    y = [int(v) for v in rng.choice([1, 1, 1, 2, 2, 3, 4, 5], n)]
    texts = [f"{words[label]}{'的' * int(rng.integers(0, 3))}第{i}条" for i, label in enumerate(y)]
    jitter = lambda v: int(min(5, max(1, v + rng.choice([-1, 0, 0, 1]))))  # noqa: E731
    return texts, {"explicit": y, "implicit": [jitter(v) for v in y], "emotional": [jitter(v) for v in y]}


def test_choose_keeps_the_stacker_only_where_it_helps():
    rng = np.random.default_rng(2)
    y = rng.integers(1, 6, 600)
    good = np.full((600, 5), 0.05)
    good[np.arange(600), y - 1] = 0.8  # a dimension whose own model is right
    noise = rng.dirichlet(np.ones(5), 600)  # one whose own model knows nothing
    folds = [np.arange(i, 600, 5) for i in range(5)]
    features = log_features([noise, good])
    helped = choose(noise, features, y, folds)
    assert helped.name.startswith("stack") and helped.stacker is not None
    assert helped.scores[helped.name] > helped.scores["backbone"] + 0.3
    kept = choose(good, log_features([good, noise]), y, folds)
    assert kept.name == "backbone" and kept.stacker is None and kept.offsets is None


def test_a_stacked_model_with_offsets_trains_saves_and_predicts_the_same(tmp_path):
    texts, labels = corpus()
    config = TrainConfig(variant="baseline", backbone="char-ngram", folds=3, stack=True, offsets=True,
                         stack_backbones=("char-ngram",))
    model = train(texts, labels, config)
    report = model.meta["stacking"]
    assert set(report) == {"explicit", "implicit", "emotional"}
    for d, entry in report.items():
        assert entry["kept"] in entry["oof_macro_f1"] and set(entry["oof_macro_f1"]) == {
            "backbone", "backbone+offsets", "stack", "stack+offsets"}
        dm = model.dims[d]
        assert (dm.stacker is not None) == entry["kept"].startswith("stack")
        assert (dm.offsets is not None) == entry["kept"].endswith("offsets")
    probe = texts[:20] + ["支持平等的人", "恶心变态滚"]
    first = model.predict(probe)
    model.save(tmp_path / "m")
    again = MAAMModel.load(tmp_path / "m").predict(probe)
    for d in labels:
        assert np.allclose(first[d]["after"], again[d]["after"]) and np.array_equal(first[d]["labels"], again[d]["labels"])


def test_stacking_refuses_astigmatism_variants():
    with pytest.raises(ValueError, match="without Astigmatism"):
        TrainConfig(variant="full", stack=True).validate()


def test_the_best_offline_preset_needs_no_other_flag(tmp_path):
    from modeling.maam.cli import build_parser, _config

    args = build_parser().parse_args(["train", "--preset", "best-offline", "--data", "x.csv", "--out", str(tmp_path)])
    config = _config(args, **({"variant": args.variant} if args.variant else {}))
    expected = preset_config("best-offline")
    assert config.variant == expected.variant and config.backbone == expected.backbone
    assert (config.stack, config.offsets) == (expected.stack, expected.offsets)
