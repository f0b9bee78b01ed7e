"""Full MAAM with fusion tuned on the fine-tune's dev split (TrainConfig.fusion_tuning = "dev",
issue 23 item 3): one fine-tune per dimension instead of folds + 1, the alpha search sees only dev
posts, and the dev posts' prior rows are counted without their own labels."""
from __future__ import annotations

import numpy as np
import pytest

from modeling.maam import train as train_module
from modeling.maam.finetune import DevHoldout, FineTuneRecipe, dev_split
from modeling.maam.train import TrainConfig, train

WORDS = {1: "阳光灿烂", 2: "普通日子", 3: "有点烦人", 4: "真是恶心", 5: "滚出去死"}


def generated(n_per_class: int = 20):
    texts, labels = [], []
    for label, word in WORDS.items():
        for i in range(n_per_class):
            texts.append(f"第{i}条：{word}，同性恋话题{i % 7}")
            labels.append(label)
    return texts, labels


class CountingFineTuned(DevHoldout):
    """A stand-in fine-tuned backbone: learns a word -> label table, carves the recipe's dev split."""

    fits: list[int] = []

    def __init__(self, seed: int = 0, **_):
        self.seed, self.recipe, self.table = seed, FineTuneRecipe(dev_fraction=0.2), {}

    def fit(self, inputs, labels, progress=None):
        CountingFineTuned.fits.append(len(inputs))
        self.remember_dev(labels)
        keep = np.setdiff1d(np.arange(len(labels)), self.dev_index)
        for i in keep:
            self.table[inputs[i].text.split("：")[1][:4]] = int(labels[i])

    def predict_proba(self, inputs):
        out = np.full((len(inputs), 5), 0.05)
        for row, item in enumerate(inputs):
            out[row, self.table.get(item.text.split("：")[1][:4], 3) - 1] = 0.8
        return out


@pytest.fixture
def counting(monkeypatch):
    CountingFineTuned.fits = []
    monkeypatch.setattr(train_module, "make_backbone", lambda spec, **kw: CountingFineTuned(**kw))
    return CountingFineTuned


def test_dev_tuning_fits_once_per_dimension_and_tunes_on_the_dev_posts_only(counting, monkeypatch):
    texts, labels = generated()
    seen = {}
    real_search = train_module._fusion_for

    def spy(p, y, q, config, full_table):
        seen["rows"] = len(y)
        seen["q_rows"] = {axis: len(v) for axis, v in q.items()}
        return real_search(p, y, q, config, full_table)

    built = []
    real_build = train_module.build_priors

    def spy_build(y, states, n_classes):
        built.append(np.asarray(y).copy())
        return real_build(y, states, n_classes)

    monkeypatch.setattr(train_module, "_fusion_for", spy)
    monkeypatch.setattr(train_module, "build_priors", spy_build)
    config = TrainConfig(variant="astigmatism", backbone="use-m3-ft", dimensions=("explicit",), cis="cues",
                         fusion_tuning="dev")
    model = train(texts, {"explicit": labels}, config)
    assert counting.fits == [len(texts)]  # cross-fitting would have fitted folds + 1 = 6 times
    dev = dev_split(np.asarray(labels), 0.2, 0)[1]
    assert seen["rows"] == len(dev) == 20 and set(seen["q_rows"].values()) == {20}
    # the dev posts' priors were counted on the other posts; the final priors on every post
    assert len(built[0]) == len(texts) - len(dev) and len(built[-1]) == len(texts)
    predictions = model.predict(texts[:10])["explicit"]["labels"]
    assert list(predictions) == labels[:10]


def test_crossfit_still_fits_folds_plus_one(counting):
    texts, labels = generated()
    config = TrainConfig(variant="astigmatism", backbone="use-m3-ft", dimensions=("explicit",), cis="cues", folds=3)
    train(texts, {"explicit": labels}, config)
    assert len(counting.fits) == 4


def test_dev_tuning_without_a_dev_split_is_a_clear_error(counting):
    texts, labels = generated(8)  # 40 posts: too few for the recipe to carve a dev split
    config = TrainConfig(variant="astigmatism", backbone="use-m3-ft", dimensions=("explicit",), cis="cues",
                         fusion_tuning="dev")
    with pytest.raises(ValueError, match="no dev split"):
        train(texts, {"explicit": labels}, config)


@pytest.mark.parametrize("backbone", ["char-ngram", "hybrid", "use-m3", "ngram"])
def test_dev_tuning_is_refused_for_backbones_without_a_dev_split(backbone):
    with pytest.raises(ValueError, match="fine-tuned backbone"):
        TrainConfig(backbone=backbone, fusion_tuning="dev").validate()
    with pytest.raises(ValueError, match="fusion_tuning must be one of"):
        TrainConfig(fusion_tuning="holdout").validate()


def test_use_m3_ft_full_maam_with_dev_tuning_trains_one_encoder_per_dimension(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from modeling.maam.use_m3_ft import UseM3FtBackbone

    fits = []
    real_fit = UseM3FtBackbone.fit
    monkeypatch.setattr(UseM3FtBackbone, "fit", lambda self, *a, **k: (fits.append(1), real_fit(self, *a, **k))[1])
    texts, labels = generated(12)
    config = TrainConfig(variant="full", backbone="use-m3-ft", dimensions=("explicit",), cis="cues",
                         fusion_tuning="dev", device="cpu",
                         backbone_params={"epochs": 2, "batch_size": 12, "dev_fraction": 0.2})
    model = train(texts, {"explicit": labels}, config)
    assert len(fits) == 1
    dm = model.dims["explicit"]
    assert dm.fusion is not None and dm.backbone.history["n_dev"] == len(dev_split(np.asarray(labels), 0.2, 0)[1]) == 10
    model.save(tmp_path / "m")
    again = type(model).load(tmp_path / "m", device="cpu")
    assert again.config.fusion_tuning == "dev"
    a, b = model.predict(texts[:8]), again.predict(texts[:8])
    assert np.allclose(a["explicit"]["after"], b["explicit"]["after"], atol=1e-5)
