"""The C-I-S inferer's margin thresholds are cross-fitted (review 23, finding 2): the states behind
a held-out post's prior rows come from thresholds chosen without its label, in cross-fitting and
in the dev-split path; the final states / priors still use every training post."""
from __future__ import annotations

import numpy as np
import pytest

from modeling.maam import train as train_module
from modeling.maam.astigmatism import AXES, PROTOTYPE_SENTENCES, EmbeddingInferer
from modeling.maam.finetune import DevHoldout, FineTuneRecipe, dev_split
from modeling.maam.train import TrainConfig, train

# Every prototype sentence is a basis vector of its (axis, state); post i lies in the S plane at
# angle ANGLES[i] between Pro and Anti, so its S margin |cos - sin| shrinks with i, and its C and I
# margins are 0 (the axis default).
BASIS = {sentence: AXES.index(axis) * 3 + list(states).index(state)
         for axis, states in PROTOTYPE_SENTENCES.items() for state, sentences in states.items()
         for sentence in sentences}
N = 60
ANGLES = np.deg2rad(np.linspace(0, 44, N))
TEXTS = [f"post-{i}" for i in range(N)]
EXPLICIT = [1 + i % 5 for i in range(N)]
# Implicit: class 1 for the 26 most Pro posts, 5 for the rest. Post X sits between two candidate
# thresholds: labelled 1 it pulls the MI-best S threshold below its margin (Pro), labelled 5 above
# it (Neutral). X is also in the explicit labels' dev split (for the dev path).
BOUNDARY, X = 26, 27


class PlaneEncoder:
    def encode(self, texts, normalize_embeddings=True, show_progress_bar=False):
        out = np.zeros((len(texts), 9))
        for row, text in enumerate(texts):
            if text in BASIS:
                out[row, BASIS[text]] = 1.0
            else:
                angle = ANGLES[int(text.split("-")[1])]
                out[row, 6], out[row, 7] = np.cos(angle), np.sin(angle)
        return out


def implicit_labels(x_label: int) -> list[int]:
    labels = [1 if i < BOUNDARY else 5 for i in range(N)]
    labels[X] = x_label
    return labels


def stub_inferer(*_, **__):
    return EmbeddingInferer(encoder=PlaneEncoder(), model="stub")


def test_the_post_moves_the_all_posts_threshold():
    """The premise: fitted on every post, X's own label decides X's state."""
    states = {}
    for x_label in (1, 5):
        inferer = stub_inferer()
        report = inferer.fit(TEXTS, {"explicit": EXPLICIT, "implicit": implicit_labels(x_label)})
        assert report["S"]["criterion"] == "mutual information with labels"
        states[x_label] = inferer.infer_many(TEXTS)[X].S
    assert states == {1: "Pro", 5: "Neutral"}


def test_states_fitted_on_other_posts_ignore_the_held_posts_labels():
    rest = np.setdiff1d(np.arange(N), [X, 3, 40])
    seen = []
    for x_label in (1, 5):
        inferer = stub_inferer()
        labels = {"explicit": EXPLICIT, "implicit": implicit_labels(x_label)}
        inferer.fit(TEXTS, labels)
        seen.append([s.as_dict() for s in inferer.states_fitted_on(rest, labels)])
        # Fitted on every post, the states are exactly those the fitted inferer infers.
        assert [s.as_dict() for s in inferer.states_fitted_on(np.arange(N), labels)] == \
            [s.as_dict() for s in inferer.infer_many(TEXTS)]
    assert seen[0] == seen[1]


class ConstantFineTuned(DevHoldout):
    """A stand-in fine-tuned backbone (it carves the recipe's dev split) predicting a constant."""

    def __init__(self, seed: int = 0, **_):
        self.seed, self.recipe = seed, FineTuneRecipe(dev_fraction=0.2)

    def fit(self, inputs, labels, progress=None):
        self.remember_dev(labels)

    def predict_proba(self, inputs):
        return np.tile([0.3, 0.1, 0.2, 0.15, 0.25], (len(inputs), 1))


@pytest.mark.parametrize("fusion_tuning", ["crossfit", "dev"])
def test_a_posts_own_label_never_moves_its_tuning_prior_rows(monkeypatch, fusion_tuning):
    monkeypatch.setattr(train_module, "make_inferer", stub_inferer)
    monkeypatch.setattr(train_module, "make_backbone", lambda spec, **kw: ConstantFineTuned(**kw))
    seen = []
    real_fusion_for = train_module._fusion_for

    def spy(p, y, q, config, full_table):
        seen.append({axis: rows.copy() for axis, rows in q.items()})
        return real_fusion_for(p, y, q, config, full_table)

    monkeypatch.setattr(train_module, "_fusion_for", spy)
    config = TrainConfig(variant="astigmatism", backbone="use-m3-ft", dimensions=("explicit", "implicit"),
                         cis="use-m3", folds=4, fusion_tuning=fusion_tuning)
    rows, final = {}, {}
    for x_label in (1, 5):
        seen.clear()
        model = train(TEXTS, {"explicit": EXPLICIT, "implicit": implicit_labels(x_label)}, config)
        q = seen[0]  # the explicit dimension: its folds / dev split do not depend on the implicit labels
        if fusion_tuning == "crossfit":
            held = next(f for f in train_module.fold_indices(EXPLICIT, config.seed, config.folds) if X in f)
            rows[x_label] = {axis: q[axis][held] for axis in AXES}
        else:
            dev = dev_split(np.asarray(EXPLICIT), 0.2, config.seed)[1]
            assert X in dev
            rows[x_label] = {axis: q[axis] for axis in AXES}  # every dev post's rows
        final[x_label] = model.meta["cis"]["params"]["thresholds"]["S"]
    assert final[1] != final[5]  # the final model's threshold still uses every label, X's included
    for axis in AXES:
        assert np.array_equal(rows[1][axis], rows[5][axis]), axis
