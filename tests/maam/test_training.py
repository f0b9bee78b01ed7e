"""Backbones, training, artefacts and the command line, on tiny data the tests write themselves."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from modeling.maam import train as train_module
from modeling.maam.backbones import CharNgramBackbone, TransformerBackbone, WeightedText, pick_device
from modeling.maam.myopia import Myopia
from modeling.maam.train import MAAMModel, TrainConfig, evaluate, split_indices, train

POSITIVE = ["支持同性婚姻", "尊重每一个人", "祝福他们幸福", "平等是基本权利", "我支持彩虹旗", "理解和包容很重要"]
NEGATIVE = ["同性恋真恶心", "滚出去变态", "这些人有病", "真是丢人现眼", "太恶心了吧", "变态都该治"]


def corpus(n: int = 60):
    texts, labels = [], {"explicit": [], "implicit": [], "emotional": []}
    for i in range(n):
        pos = i % 2 == 0
        base = (POSITIVE if pos else NEGATIVE)[i % 6]
        texts.append(f"{base}{'！' * (i % 3)}第{i}条")
        labels["explicit"].append(1 if pos else 5)
        labels["implicit"].append(1 if pos else 4)
        labels["emotional"].append(2 if pos else 5)
    return texts, labels


def test_char_ngram_learns_and_roundtrips_bit_for_bit(tmp_path):
    texts, labels = corpus()
    inputs = [WeightedText.plain(t) for t in texts]
    model = CharNgramBackbone(seed=0)
    model.fit(inputs, labels["explicit"])
    probs = model.predict_proba(inputs)
    assert probs.shape == (60, 5) and np.allclose(probs.sum(axis=1), 1)
    assert (probs.argmax(axis=1) + 1 == np.asarray(labels["explicit"])).mean() == 1.0
    model.save(tmp_path / "m")
    again = CharNgramBackbone.load(tmp_path / "m").predict_proba(inputs)
    assert np.array_equal(probs, again)


def test_myopia_input_drops_level5_and_never_bridges_gaps():
    result = Myopia().weigh("月半，骗婚的同性恋谈诚信挺有趣的！", "explicit")
    item = WeightedText.from_myopia(result)
    assert "月" not in item.text and "骗婚 同性恋谈" in item.text
    assert len(item.char_weights) == len(item.text) and item.char_weights[item.text.index(" ")] == 0


def test_training_is_deterministic_and_artefact_reloads(tmp_path):
    texts, labels = corpus()
    config = TrainConfig(variant="full", seed=3)
    a = train(texts, labels, config)
    b = train(texts, labels, config)
    pa, pb = a.predict(texts[:10]), b.predict(texts[:10])
    for d in pa:
        assert np.array_equal(pa[d]["after"], pb[d]["after"])
        assert len(pa[d]["steps"]) == 3 and a.dims[d].fusion.order == ("I", "S", "C")
        assert len(a.dims[d].fusion_table) == 15
    checksum = a.save(tmp_path / "model")
    loaded = MAAMModel.load(tmp_path / "model")
    assert (tmp_path / "model" / "CHECKSUM").read_text().strip() == checksum
    for d, pred in loaded.predict(texts[:10]).items():
        assert np.array_equal(pred["after"], pa[d]["after"]) and np.array_equal(pred["before"], pa[d]["before"])
    metrics = evaluate(loaded, texts, labels)
    assert metrics["explicit"]["before"]["macro_f1"] > 0.3


def test_corrupt_artefact_is_refused(tmp_path):
    texts, labels = corpus()
    train(texts, labels, TrainConfig(variant="baseline", dimensions=("explicit",))).save(tmp_path / "m")
    with open(tmp_path / "m" / "explicit" / "weights.npz", "ab") as fh:
        fh.write(b"garbage")
    with pytest.raises(ValueError, match="checksum mismatch"):
        MAAMModel.load(tmp_path / "m")


def test_save_replaces_atomically_and_leaves_no_temporaries(tmp_path):
    texts, labels = corpus()
    model = train(texts, labels, TrainConfig(variant="baseline", dimensions=("explicit",)))
    model.save(tmp_path / "m")
    model.save(tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


@pytest.mark.parametrize("bad,message", [
    (dict(variant="nope"), "variant"), (dict(dimensions=("tone",)), "dimensions"), (dict(fusion_order="C>C"), "15"),
])
def test_bad_configuration_is_refused(bad, message):
    texts, labels = corpus()
    with pytest.raises(ValueError, match=message):
        train(texts, labels, TrainConfig(**bad))


def test_single_class_dimension_is_refused():
    texts, labels = corpus()
    labels["implicit"] = [3] * len(texts)
    with pytest.raises(ValueError, match="single class"):
        train(texts, labels, TrainConfig())


def test_split_protocol():
    train_idx, test_idx = split_indices(2000, seed=1)
    assert len(train_idx) == 1000 and len(test_idx) == 1000 and not set(train_idx) & set(test_idx)
    assert np.array_equal(split_indices(2000, seed=1)[0], train_idx)


def test_device_falls_back_to_cpu():
    import torch

    assert pick_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert pick_device("cpu") == "cpu"


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A 2-layer BERT with a character vocabulary, built and saved here (no download)."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    directory = tmp_path_factory.mktemp("tiny-bert")
    texts, _ = corpus()
    chars = sorted({c for t in texts + ["月半，骗婚的同性恋谈诚信挺有趣的！ "] for c in t})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars
    (directory / "vocab.txt").write_text("\n".join(vocab), encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(directory / "vocab.txt"), tokenize_chinese_chars=True)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    import torch

    torch.manual_seed(0)
    BertModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)


def test_transformer_backbone_with_myopia_pooling(tiny_bert, tmp_path):
    texts, labels = corpus(40)
    myopia = Myopia()
    inputs = [WeightedText.from_myopia(myopia.weigh(t, "explicit")) for t in texts]
    model = TransformerBackbone(tiny_bert, epochs=2, batch_size=8, lr=5e-3, seed=0, device="cpu")
    model.fit(inputs, labels["explicit"])
    probs = model.predict_proba(inputs)
    assert probs.shape == (40, 5) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    model.save(tmp_path / "tb")
    again = TransformerBackbone.load(tmp_path / "tb", device="cpu").predict_proba(inputs)
    assert np.allclose(probs, again, atol=1e-6)


def test_transformer_weights_follow_myopia(tiny_bert):
    model = TransformerBackbone(tiny_bert, device="cpu")
    model._load(tiny_bert)
    item = WeightedText("骗婚 同性恋", [0.8, 0.8, 0.0, 1.0, 1.0, 1.0])
    _, weights = model._batch([item])
    assert weights[0, 0] == 0 and weights[0, -1] == 0  # [CLS], [SEP]
    assert weights[0, 1].item() == pytest.approx(0.8) and weights[0, 3].item() == pytest.approx(1.0)


def test_unknown_backbone_path_is_a_clear_error(tmp_path):
    texts, labels = corpus()
    with pytest.raises(RuntimeError, match="Could not load the encoder"):
        train(texts, labels, TrainConfig(backbone=str(tmp_path / "no-such-model"), dimensions=("explicit",)))


def write_chlgbt(path: Path, texts, labels) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write('"# test corpus",,,\r\n')
        writer = csv.writer(fh, lineterminator="\r\n")
        writer.writerow(["Sentences", "Explicit", "Implicit", "Emotional"])
        for i, t in enumerate(texts):
            writer.writerow([t, labels["explicit"][i], labels["implicit"][i], labels["emotional"][i]])


def test_cli_train_predict_evaluate(tmp_path):
    texts, labels = corpus()
    data = tmp_path / "train.csv"
    write_chlgbt(data, texts, labels)
    run = lambda *args: subprocess.run([sys.executable, "-m", "modeling.maam", *args], capture_output=True,  # noqa: E731
                                       text=True)
    trained = run("train", "--data", str(data), "--variant", "full", "--backbone", "char-ngram", "--seed", "1",
                  "--out", str(tmp_path / "model"))
    assert trained.returncode == 0, trained.stderr
    predicted = run("predict", "--model", str(tmp_path / "model"), "--data", str(data), "--out", str(tmp_path / "p.csv"))
    assert predicted.returncode == 0, predicted.stderr
    rows = list(csv.DictReader((tmp_path / "p.csv").open(encoding="utf-8")))
    assert len(rows) == 60 and set(rows[0]) >= {"text", "explicit_label", "explicit_p1", "emotional_p5"}
    assert sum(float(rows[0][f"implicit_p{k}"]) for k in range(1, 6)) == pytest.approx(1, abs=1e-4)
    evaluated = run("evaluate", "--model", str(tmp_path / "model"), "--data", str(data))
    assert json.loads(evaluated.stdout)["explicit"]["after"]["accuracy"] > 0.9
    missing = run("predict", "--model", str(tmp_path / "nope"), "--data", str(data), "--out", str(tmp_path / "x.csv"))
    assert missing.returncode == 2 and "not a MAAM model directory" in missing.stderr


def test_core_imports_no_django_or_celery():
    code = ("import sys, modeling.maam.cli, modeling.maam.train, modeling.maam.experiments, modeling.maam.backbones;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'celery', 'rest_framework')];"
            "print(bad); raise SystemExit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_folds_partition_the_posts_and_spread_every_class():
    y = [1] * 10 + [2] * 5 + [5] * 23
    folds = train_module.fold_indices(y, seed=0, folds=5)
    together = np.sort(np.concatenate(folds))
    assert np.array_equal(together, np.arange(len(y)))
    for f in folds:
        assert {1, 2, 5} <= {y[i] for i in f}  # stratified: each fold sees every class with >= 5 posts


class SpyBackbone:
    """Remembers which posts it was fitted on; predicts a constant distribution."""

    fitted: list[set] = []

    def fit(self, inputs, labels, progress=None):
        SpyBackbone.fitted.append({i.text for i in inputs})

    def predict_proba(self, inputs):
        return np.full((len(inputs), 5), 0.2)


def test_crossfitting_never_lets_a_post_tune_alpha_for_itself():
    from modeling.maam.astigmatism import CISState, build_priors

    n = 40
    inputs = [WeightedText.plain(f"帖子{i}") for i in range(n)]
    y = np.asarray([1 + i % 5 for i in range(n)])
    # Post 0 is the only "Funny" post: a prior that had seen it would say class 1 with certainty.
    states = [CISState("Funny" if i == 0 else "General", "Uncertain", "Neutral") for i in range(n)]
    SpyBackbone.fitted = []
    oof, q = train_module.crossfit(inputs, y, states, SpyBackbone, folds=4, seed=0, n_classes=5)
    folds = train_module.fold_indices(y, 0, 4)
    assert len(SpyBackbone.fitted) == 4
    for fitted, held in zip(SpyBackbone.fitted, folds):
        assert not fitted & {inputs[i].text for i in held}  # no model predicted a post it was fitted on
        assert len(fitted) == n - len(held)
    assert q["C"][0] == pytest.approx([0.2] * 5)  # post 0's prior row never counted post 0's own label
    assert build_priors(y, states).q("C", "Funny") == pytest.approx([1, 0, 0, 0, 0])
    for held in folds:  # every other row is the prior of the other folds only
        rest = np.setdiff1d(np.arange(n), held)
        expected = build_priors(y[rest], [states[i] for i in rest]).matrix("S", [states[i] for i in held])
        assert np.allclose(q["S"][held], expected)


def test_every_variant_trains_its_final_backbone_on_all_training_posts(monkeypatch):
    texts, labels = corpus()
    seen = []
    original = CharNgramBackbone.fit

    def spy(self, inputs, labels, progress=None):
        seen.append(len(inputs))
        return original(self, inputs, labels, progress)

    monkeypatch.setattr(CharNgramBackbone, "fit", spy)
    for variant, folds in (("baseline", 0), ("full", 5)):
        seen.clear()
        model = train(texts, labels, TrainConfig(variant=variant, dimensions=("explicit",), folds=5))
        # full: five cross-fitting fits on 4/5 of the posts, then the final fit on all of them
        assert seen == [48] * folds + [len(texts)], (variant, seen)
        assert model.meta["n_train"] == len(texts)


@pytest.mark.parametrize("options", [
    dict(prior_mode="log-shift"), dict(prior_mode="balanced", decode="ordinal"), dict(myopia_mode="filter"),
])
def test_options_train_save_and_reload_identically(tmp_path, options):
    texts, labels = corpus()
    model = train(texts, labels, TrainConfig(variant="full", seed=1, **options))
    assert all(dm.fusion.prior_mode == model.config.prior_mode for dm in model.dims.values())
    model.save(tmp_path / "m")
    loaded = MAAMModel.load(tmp_path / "m")
    assert loaded.config.to_dict() == model.config.to_dict()
    a, b = model.predict(texts[:8]), loaded.predict(texts[:8])
    for d in a:
        assert np.array_equal(a[d]["after"], b[d]["after"]) and np.array_equal(a[d]["labels"], b[d]["labels"])


def test_presets_and_bad_options():
    assert train_module.preset_config("paper").prior_mode == "raw"
    assert train_module.preset_config("best-offline", seed=4).seed == 4
    with pytest.raises(ValueError, match="preset"):
        train_module.preset_config("nope")
    texts, labels = corpus()
    for bad, message in ((dict(prior_mode="x"), "prior_mode"), (dict(decode="x"), "decode"),
                         (dict(myopia_mode="x"), "myopia_mode"), (dict(folds=1), "folds")):
        with pytest.raises(ValueError, match=message):
            train(texts, labels, TrainConfig(**bad))


def test_myopia_filter_mode_keeps_the_filter_and_drops_the_weights():
    result = Myopia().weigh("月半，骗婚的同性恋谈诚信挺有趣的！", "explicit")
    item = WeightedText.from_myopia(result).filtered_only()
    assert set(item.char_weights) <= {0.0, 1.0} and "月" not in item.text
    assert set(item.source_weights) == {0.0, 1.0}


def test_ablation_on_a_binary_corpus_trains_on_train_and_reports_on_the_held_out_file():
    from modeling.maam.data import Corpus
    from modeling.maam.experiments import run_ablation

    texts, labels = corpus(80)
    binary = [1 if v == 1 else 2 for v in labels["explicit"]]
    train_part = Corpus(texts[:60], {"explicit": binary[:60]}, n_classes=2, name="train")
    held_out = Corpus(texts[60:], {"explicit": binary[60:]}, n_classes=2, name="dev")
    result = run_ablation(train_part, [0, 1], n_train=50, config=TrainConfig(cis="cues"), test=held_out,
                          log=lambda msg: None)
    # Two classes: macro-F1 over {1, 2} (a five-class reading would cap it at 0.4).
    assert result.scores["baseline"]["explicit"]["macro_f1"] == [1.0, 1.0]
    assert set(result.scores) == {"baseline", "astigmatism", "myopia", "full"}
    with pytest.raises(ValueError, match="myopia_mode"):
        run_ablation(train_part, [0], n_train=50, config=TrainConfig(myopia_mode="filtr"), log=lambda msg: None)


def test_the_ablation_cross_fits_the_cis_thresholds_as_train_does(monkeypatch):
    """run_ablation tunes alpha with states from thresholds chosen without the held-out posts' labels
    (train.crossfit's fold_states), not with the all-training-posts thresholds."""
    from modeling.maam import experiments
    from modeling.maam.data import Corpus

    seen = []
    real = experiments.fit_dimension

    def spy(inputs, y, states, config, **kwargs):
        fold_states = kwargs.get("fold_states")
        seen.append(None if fold_states is None else len(fold_states(np.arange(len(y) // 2))))
        return real(inputs, y, states, config, **kwargs)

    monkeypatch.setattr(experiments, "fit_dimension", spy)
    texts, labels = corpus(80)
    experiments.run_ablation(Corpus(texts, {"explicit": labels["explicit"]}, name="t"), [0], n_train=50,
                             config=TrainConfig(cis="use-m3", folds=2), log=lambda msg: None)
    assert seen and all(n == 50 for n in seen)  # a state for every training post, from half their labels
