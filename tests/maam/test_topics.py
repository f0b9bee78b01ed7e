"""The topic keyword map (docs/topics.md) and per-topic scores in evaluate()."""
from __future__ import annotations

import json

import numpy as np
import pytest

from modeling.maam.topics import OTHER, TopicMap
from modeling.maam.train import TrainConfig, evaluate, train


def test_the_first_matching_topic_in_map_order_wins():
    topics = TopicMap.default()
    assert topics.topic("跨性别的人也会说同性恋这个词") == "跨性别"  # 跨性别 comes before 同性恋
    assert topics.topic("支持同性婚姻") == "同性恋"
    assert topics.topic("LGBT 群体") == "性少数" and topics.topic("lgbt") == "性少数"
    assert topics.topic("今天天气很好") == OTHER
    assert topics.names()[-1] == OTHER


def test_a_map_file_is_validated_and_its_order_is_the_precedence(tmp_path):
    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"婚姻": ["结婚", "婚姻"], "同性恋": ["同性恋"]}, ensure_ascii=False), encoding="utf-8")
    topics = TopicMap.from_file(path)
    assert topics.topic("同性恋结婚") == "婚姻"
    for bad in ([], {"x": []}, {"x": "同性恋"}, {"other": ["y"]}):
        path.write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(ValueError):
            TopicMap.from_file(path)


def test_evaluate_reports_scores_per_topic():
    rng = np.random.default_rng(0)
    words = {1: "支持", 3: "讨论", 5: "讨厌"}
    texts, y = [], []
    for i in range(90):
        label = [1, 3, 5][i % 3]
        texts.append(f"{words[label]}{'跨性别' if i % 2 else '同性恋'}第{i}条{rng.integers(0, 99)}")
        y.append(label)
    model = train(texts, {"explicit": y}, TrainConfig(variant="baseline", dimensions=("explicit",)))
    scores = evaluate(model, texts, {"explicit": y})["explicit"]["by_topic"]
    assert set(scores) == {"跨性别", "同性恋"} and scores["跨性别"]["n"] == 45 == scores["同性恋"]["n"]
    assert all(0 <= s["macro_f1"] <= 1 for s in scores.values())


def test_latin_keywords_match_whole_words_only():
    """Review 23, finding 8: "trans", "les" and "gay" matched inside unrelated English words."""
    topics = TopicMap.default()
    assert topics.topic("translate这句话") == OTHER
    assert topics.topic("我在学英语lesson") == OTHER
    assert topics.topic("lesser evil") == OTHER and topics.topic("olgbtoo") == OTHER
    assert topics.topic("les和gay") == "同性恋"  # beside CJK characters a Latin keyword is a word
    assert topics.topic("我是GAY") == "同性恋" and topics.topic("Gay pride!") == "同性恋"  # case-insensitive
    assert topics.topic("trans women are women") == "跨性别"
    assert topics.topic("LGBT群体") == "性少数"
    # A trailing "*" makes a Latin keyword a word prefix: the shared file drops the spaces between words.
    assert topics.topic("LGBTQ+") == "性少数" and topics.topic("LGBTcommunity") == "性少数"
    assert topics.topic("lesbiancouple客串") == "同性恋" and topics.topic("Bisexualisnotaphase") == "双性恋"
    assert topics.topic("gaylor党") == OTHER  # "gay" has no "*"


def test_cjk_keywords_still_match_as_substrings():
    topics = TopicMap.default()
    assert topics.topic("他们都是同性恋者") == "同性恋"
    assert topics.topic("我是双性恋，被误解很多次了") == "双性恋"


def test_intersex_is_not_bisexual():
    """双性人 (intersex) shared the 双性恋 (bisexual) topic through the keyword 双性."""
    topics = TopicMap.default()
    assert topics.topic("双性人是天生的生理特征") == "间性人"
    assert topics.topic("intersex people exist") == "间性人"
    assert topics.topic("间性人的权益") == "间性人"
    assert topics.topic("我是双性恋") == "双性恋"


def test_a_map_file_gets_the_same_matching_rules(tmp_path):
    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"跨性别": ["trans", "跨性别"], "同性恋": ["les", "同性"]}, ensure_ascii=False),
                    encoding="utf-8")
    topics = TopicMap.from_file(path)
    assert topics.topic("translate") == OTHER and topics.topic("TRANS rights") == "跨性别"
    assert topics.topic("lesson") == OTHER and topics.topic("同性婚姻") == "同性恋"
    path.write_text(json.dumps({"跨性别": ["trans*"]}), encoding="utf-8")
    assert TopicMap.from_file(path).topic("transissue") == "跨性别"
    path.write_text(json.dumps({"跨性别": ["*"]}), encoding="utf-8")
    with pytest.raises(ValueError):
        TopicMap.from_file(path)
