"""COLD's offensive labels as an auxiliary feature (issue 23, item 2; modeling/maam/cold_aux.py).
Generated COLD-like files only: these tests do not need ../shared."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from modeling.maam.cold_aux import ColdAux, ColdFormatError, read_cold

OFFENSIVE = ["恶心", "滚出去", "变态", "去死", "垃圾"]
NEUTRAL = ["支持", "尊重", "天气", "喜欢", "朋友"]
FILLER = ["我觉得", "他们", "今天", "真的", "这个", "大家"]


def texts(words, n, rng):
    return [f"{rng.choice(FILLER)}{rng.choice(words)}{rng.choice(FILLER)}{i % 7}" for i in range(n)]


def write_cold(path, n=120, seed=0, encoding="utf-8-sig"):
    """COLD's layout: an unnamed index column, split, topic, label (0/1), TEXT."""
    rng = np.random.default_rng(seed)
    rows = [(t, 1) for t in texts(OFFENSIVE, n // 2, rng)] + [(t, 0) for t in texts(NEUTRAL, n // 2, rng)]
    rng.shuffle(rows)
    with path.open("w", encoding=encoding, newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["", "split", "topic", "label", "TEXT"])
        for i, (text, label) in enumerate(rows):
            w.writerow([i, path.stem, "gender", label, text])
    return rows


@pytest.fixture
def cold_dir(tmp_path):
    write_cold(tmp_path / "train.csv", 160, seed=0)
    write_cold(tmp_path / "dev.csv", 60, seed=1)
    return tmp_path


def test_the_feature_separates_offensive_from_non_offensive_posts(cold_dir):
    aux = ColdAux().fit(cold_dir)
    assert aux.report["n_train"] == 160 and aux.report["n_dev"] == 60
    assert aux.report["dev_macro_f1"] > 0.9  # the sanity score on COLD's own dev file
    rng = np.random.default_rng(5)
    bad, good = texts(OFFENSIVE, 20, rng), texts(NEUTRAL, 20, rng)
    x = aux.feature(bad + good)
    assert x.shape == (40, 1)
    assert x[:20].min() > 0 > x[20:].max()


def test_the_feature_follows_the_order_of_the_texts_and_survives_save_and_load(cold_dir, tmp_path):
    aux = ColdAux().fit(cold_dir / "train.csv")  # a file works as well as a directory
    rng = np.random.default_rng(6)
    posts = texts(OFFENSIVE, 5, rng) + texts(NEUTRAL, 5, rng)
    forward = aux.log_odds(posts)
    assert np.allclose(aux.log_odds(posts[::-1]), forward[::-1])
    assert np.allclose(aux.log_odds(posts[3:4]), forward[3:4])
    assert aux.log_odds([]).shape == (0,)
    aux.save(tmp_path / "saved")
    again = ColdAux.load(tmp_path / "saved")
    assert np.allclose(again.log_odds(posts), forward)
    assert again.report == aux.report


def test_gb18030_files_are_read(tmp_path):
    rows = write_cold(tmp_path / "train.csv", 20, encoding="gb18030")
    got, labels = read_cold(tmp_path / "train.csv")
    assert got == [t for t, _ in rows] and labels.tolist() == [label for _, label in rows]


@pytest.mark.parametrize("content, message", [
    (",split,topic,labels,TEXT\n0,train,race,1,你好\n", "missing \\['label'\\]"),
    (",split,topic,label,TEXT\n0,train,race,1,你好\n1,train,race,2,再见\n", "row 3: label must be 0 or 1, got '2'"),
    (",split,topic,label,TEXT\n0,train,race,1,你好\n1,train,race,1,再见\n", "needs both offensive"),
    ("", "missing"),
])
def test_a_malformed_file_is_refused_with_a_clear_error(tmp_path, content, message):
    path = tmp_path / "train.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ColdFormatError, match=message):
        ColdAux().fit(tmp_path)


def test_a_missing_file_and_an_untrained_model_say_so(tmp_path):
    with pytest.raises(ColdFormatError, match="no such COLD file"):
        read_cold(tmp_path / "absent.csv")
    with pytest.raises(RuntimeError, match="not trained"):
        ColdAux().log_odds(["你好"])
