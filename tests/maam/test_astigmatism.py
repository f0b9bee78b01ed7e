"""Astigmatism: priors, fusion, cascades, alpha search; metrics."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from modeling.maam.astigmatism import (
    CISState,
    CueInferer,
    EmbeddingInferer,
    all_orders,
    build_priors,
    cascade,
    fuse,
    resolve_states,
    search_fusion,
)
from modeling.maam.metrics import brier, ece, macro_f1, paired_test


def test_fifteen_orders():
    orders = all_orders()
    assert len(orders) == 15 and len(set(orders)) == 15
    assert ("I", "S", "C") in orders and ("C",) in orders and ("S", "I") in orders


def test_priors_are_empirical_with_uniform_fill():
    states = [CISState("Funny", "Outgroup", "Anti")] * 3 + [CISState("Serious", "Outgroup", "Pro")]
    priors = build_priors([5, 5, 4, 1], states)
    assert priors.table["C"]["Funny"] == pytest.approx([0, 0, 0, 1 / 3, 2 / 3])
    assert priors.table["I"]["Outgroup"] == pytest.approx([0.25, 0, 0, 0.25, 0.5])
    assert priors.table["C"]["General"] == [0.2] * 5  # no samples in this state
    assert priors.counts["S"]["Anti"] == [0, 0, 0, 1, 2]


def test_fusion_is_convex_then_clipped_and_renormalised():
    p = np.array([[1.0, 0, 0, 0, 0]])
    q = np.array([[0, 0, 0, 0, 1.0]])
    fused = fuse(p, q, 0.7)
    assert fused[0] == pytest.approx([0.7, 1e-8, 1e-8, 1e-8, 0.3], abs=1e-7)
    assert fused.sum() == pytest.approx(1.0)
    per_class = fuse(p, q, [1.0, 1.0, 1.0, 1.0, 0.5])
    assert per_class[0, 4] == pytest.approx(0.5 / 1.5, rel=1e-6)


@given(arrays(float, (4, 5), elements=st.floats(0, 1)), arrays(float, (4, 5), elements=st.floats(0, 1)),
       st.floats(0, 1))
def test_fused_distributions_are_valid(p_raw, q_raw, alpha):
    p = (p_raw + 1e-3) / (p_raw + 1e-3).sum(axis=1, keepdims=True)
    q = (q_raw + 1e-3) / (q_raw + 1e-3).sum(axis=1, keepdims=True)
    out = fuse(p, q, alpha)
    assert np.allclose(out.sum(axis=1), 1.0) and (out >= 1e-8 / 2).all()


def test_cascade_applies_axes_in_order():
    states = [CISState("Funny", "Ingroup", "Pro")]
    priors = build_priors([1], states)
    p = np.full((1, 5), 0.2)
    steps = cascade(p, priors, states, ("I", "S"), [0.5, 0.5])
    assert len(steps) == 2
    assert steps[0][0, 0] == pytest.approx(0.6) and steps[1][0, 0] == pytest.approx(0.8)


def test_alpha_search_picks_the_prior_when_it_helps():
    rng = np.random.default_rng(0)
    y = rng.integers(1, 6, size=300)
    states = [CISState(["Funny", "General", "Serious"][(v - 1) % 3], "Uncertain", "Neutral") for v in y]
    # The model is useless (uniform noise); the C prior separates classes 1-3 perfectly.
    p = rng.dirichlet(np.ones(5), size=300)
    priors = build_priors(y, states)
    result = search_fusion(p, y, priors, states, ("C",))
    assert result.alphas[0] < 1.0 and result.dev_macro_f1 > result.baseline_dev_f1
    per_class = search_fusion(p, y, priors, states, ("C",), mode="per-class")
    assert len(per_class.alphas[0]) == 5


def test_external_tags_override_inference_and_record_source():
    states = resolve_states(["哈哈哈笑死", "普通的话"], [{"C": "Serious", "I": "Ingroup", "S": "Pro"}, None], CueInferer())
    assert states[0].as_dict() == {"C": "Serious", "I": "Ingroup", "S": "Pro"} and states[0].source == "external"
    assert states[1].source.startswith("inferred")


def test_cue_inferer_routes_ambiguity_to_defaults():
    inferer = CueInferer()
    assert inferer.infer("哈哈哈笑死我了").C == "Funny"
    assert inferer.infer("我支持平等，祝福他们").S == "Pro"
    assert inferer.infer("今天天气").as_dict() == {"C": "General", "I": "Uncertain", "S": "Neutral"}


def test_embedding_inferer_nearest_prototype_with_a_stub_encoder():
    class Encoder:  # maps texts to one-hot by a keyword so the geometry is known
        def encode(self, texts, normalize_embeddings=True, show_progress_bar=False):
            keys = ["幽默", "严肃", "普通", "一员", "之外", "无法", "支持", "反对", "中立", "哈哈", "法律"]
            out = np.zeros((len(texts), len(keys)))
            for i, t in enumerate(texts):
                for j, k in enumerate(keys):
                    out[i, j] = t.count(k)
                if t.count("哈哈"):
                    out[i, 0] += 1
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            norms[norms == 0] = 1
            return out / norms

    inferer = EmbeddingInferer(encoder=Encoder(), model="stub")
    assert inferer.infer("幽默").C == "Funny"
    assert inferer.infer("").as_dict() == {"C": "General", "I": "Uncertain", "S": "Neutral"}


def test_embedding_inferer_without_the_model_says_what_to_do(tmp_path):
    with pytest.raises(RuntimeError, match="offline cue inferer"):
        EmbeddingInferer(model=str(tmp_path / "missing-bge"))


def test_metrics_known_values():
    y = [1, 2, 3]
    probs = np.array([[1.0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0], [0.5, 0.5, 0, 0, 0]])
    assert brier(y, probs) == pytest.approx((0 + 0 + (0.25 + 0.25 + 1)) / 3)
    assert macro_f1([1, 2], [1, 1]) == pytest.approx((2 / 3 + 0) / 5)  # zero_division=0 over 5 labels
    # perfectly calibrated confident predictions: ECE 0
    assert ece([1, 2], np.array([[1.0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0]])) == 0
    assert ece([2], np.array([[0.8, 0.2, 0, 0, 0]])) == pytest.approx(0.8)


def test_paired_test():
    better = paired_test([0.5, 0.52, 0.49, 0.51, 0.5], [0.4, 0.41, 0.42, 0.39, 0.4])
    assert better["p"] < 0.05 and better["mean_diff"] > 0
    assert paired_test([0.4], [0.4])["p"] == 1.0
