"""The evaluation protocols behind `make eval` (issue 23, item 4) on a tiny generated corpus."""
from __future__ import annotations

import json

import numpy as np
import pytest

from modeling.maam.protocols import parse_candidate, paired_p, protocols_markdown, run_protocols
from modeling.maam.topics import TopicMap
from modeling.maam.train import TrainConfig


def corpus(n=160, seed=0):
    rng = np.random.default_rng(seed)
    words = {1: "支持平等", 3: "随便说说", 5: "恶心变态"}
    texts, labels = [], {"explicit": [], "implicit": [], "emotional": []}
    for i in range(n):
        label = [1, 3, 5][int(rng.integers(0, 3))]
        topic = ["同性恋", "跨性别", "双性恋"][i % 3] if i % 10 else "天气"
        texts.append(f"{words[label]}{topic}第{i}条")
        for d in labels:
            labels[d].append(label)
    return texts, labels


def test_every_protocol_for_every_candidate(tmp_path):
    texts, labels = corpus()
    base = TrainConfig(cis="cues")
    candidates = [parse_candidate("char-ngram:baseline", base), parse_candidate("char-ngram:astigmatism", base)]
    result = run_protocols(texts, labels, candidates, seeds=[0, 1], folds=3, min_topic_posts=30, paper_train=60)
    names = ["char-ngram baseline", "char-ngram astigmatism"]
    assert result["candidates"] == names
    assert all(len(result["paper"][n]) == 2 and len(result["kfold"][n]) == 3 for n in names)
    assert result["topics"] == {"变性人": 0, "跨性别": 48, "非二元": 0, "间性人": 0, "双性恋": 48, "同性恋": 48,
                                "性少数": 0, "other": 16}
    # per topic from the pooled held-out predictions; leave-one-topic-out skips small topics and "other"
    assert set(result["by_topic"][names[0]]) == {"跨性别", "双性恋", "同性恋", "other"}
    assert set(result["loto"][names[0]]) == {"跨性别", "双性恋", "同性恋"}
    assert all(0 <= s["mean"] <= 1 for s in result["loto"][names[1]].values())
    text = protocols_markdown(result, names[0])
    for heading in ("The paper's protocol (60 training posts", "Stratified 3-fold", "Per topic", "Leave one topic out"):
        assert heading in text
    json.dumps(result)  # the raw scores serialise


def test_candidates_and_significance():
    assert parse_candidate("preset:best-offline", TrainConfig()).config.stack
    assert parse_candidate("hybrid:full", TrainConfig(cis="cues")).config.cis == "cues"
    assert paired_p([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]) is None
    assert paired_p([0.6, 0.62, 0.61, 0.63], [0.5, 0.51, 0.5, 0.52]) < 0.01
    try:
        parse_candidate("hybrid:fast", TrainConfig())
    except ValueError as exc:
        assert "BACKBONE:VARIANT" in str(exc)
    else:
        raise AssertionError("a bad candidate was accepted")


def test_a_candidate_can_carry_its_own_options():
    from modeling.maam.cli import _parse_option

    c = parse_candidate("use-m3-ft:full:fusion_tuning=dev,min_gain=0.01", TrainConfig(), _parse_option)
    assert (c.config.backbone, c.config.variant, c.config.fusion_tuning, c.config.min_gain) == ("use-m3-ft", "full",
                                                                                                 "dev", 0.01)
    assert c.name == "use-m3-ft full (fusion_tuning=dev,min_gain=0.01)"
    assert TrainConfig().fusion_tuning == "crossfit"  # the base is untouched
    with pytest.raises(ValueError, match="fine-tuned backbone"):  # validated when parsed, not hours later
        parse_candidate("hybrid:full:fusion_tuning=dev", TrainConfig(), _parse_option)
    with pytest.raises(ValueError, match="not accepted"):
        parse_candidate("hybrid:full:min_gain=0.01", TrainConfig())


def test_candidates_under_the_best_offline_preset_are_what_their_names_say():
    from modeling.maam.train import preset_config

    base = preset_config("best-offline", folds=3, backbone_params={"epochs": 2})
    plain = parse_candidate("char-ngram:baseline", base)
    assert (plain.config.stack, plain.config.offsets, plain.config.stack_backbones) == (False, False, ())
    assert plain.config.prior_mode == "log-shift"  # the preset's fusion settings are kept
    full = parse_candidate("hybrid:full", base)  # validated: no stacking on an Astigmatism variant
    assert full.config.variant == "full" and not full.config.stack
    preset = parse_candidate("preset:best-offline", base)
    assert preset.config.stack and preset.config.offsets and preset.config.folds == 3
    assert preset.config.backbone_params == {}  # --params are for BACKBONE:VARIANT candidates


def test_a_custom_topic_map_drives_the_protocols(tmp_path):
    texts, labels = corpus(90)
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"天气": ["天气"]}, ensure_ascii=False), encoding="utf-8")
    result = run_protocols(texts, labels, [parse_candidate("char-ngram:baseline", TrainConfig())], folds=2,
                           topics=TopicMap.from_file(path), protocols=["kfold"])
    assert result["topics"] == {"天气": 9, "other": 81}


def test_the_protocols_command_line_parses():
    from modeling.maam.cli import build_parser

    args = build_parser().parse_args(["protocols", "--data", "x.csv", "--kfold", "3", "--folds", "4", "--candidates",
                                      "hybrid:baseline", "preset:best-offline", "--protocols", "kfold", "--append"])
    assert (args.kfold, args.folds, args.protocols, args.append) == (3, 4, ["kfold"], True)
