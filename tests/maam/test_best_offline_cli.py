"""`train --preset best-offline` with no other flag, through the CLI's `main` (review 23, finding 9):
the saved model records its stacking / offsets choice, and `predict` writes one row per post."""
from __future__ import annotations

import csv
import json

from modeling.maam.cli import main
from modeling.maam.taxonomy import DIMENSIONS

WORDS = {1: "阳光灿烂支持", 2: "普通日子聊聊", 3: "有点烦人吐槽", 4: "真是恶心讨厌", 5: "滚出去去死"}


def write_csv(path, n_per_class: int = 12) -> list[str]:
    texts = []
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["Sentences", "Explicit", "Implicit", "Emotional"])
        for label, word in WORDS.items():
            for i in range(n_per_class):
                text = f"第{i}条：{word}，同性恋话题{i % 7}"
                texts.append(text)
                writer.writerow([text, label, 1 + (label + i % 2) % 5, max(1, label - i % 2)])
    return texts


def test_train_with_the_best_offline_preset_alone_then_predict(tmp_path):
    data, out = tmp_path / "train.csv", tmp_path / "model"
    texts = write_csv(data)
    assert main(["train", "--preset", "best-offline", "--data", str(data), "--out", str(out)]) == 0
    meta = json.loads((out / "model.json").read_text(encoding="utf-8"))
    config = meta["config"]
    assert (config["variant"], config["backbone"], config["stack"], config["offsets"]) == \
        ("baseline", "hybrid", True, True)
    assert tuple(config["dimensions"]) == DIMENSIONS
    kept = {"backbone", "backbone+offsets", "stack", "stack+offsets"}
    for d in DIMENSIONS:
        report = meta["stacking"][d]
        assert report["kept"] in kept and set(report["oof_macro_f1"]) <= kept
        calibration = json.loads((out / d / "calibration.json").read_text())
        assert (calibration["stacker"] is not None) == report["kept"].startswith("stack")
        assert (calibration["offsets"] is not None) == report["kept"].endswith("offsets")
        assert (report["offsets"] is not None) == report["kept"].endswith("offsets")
    predictions = tmp_path / "p.csv"
    assert main(["predict", "--model", str(out), "--data", str(data), "--out", str(predictions)]) == 0
    rows = list(csv.reader(predictions.open(encoding="utf-8")))
    assert rows[0][0] == "text" and [r[0] for r in rows[1:]] == texts  # one row per post, in order
    assert {f"{d}_label" for d in DIMENSIONS} <= set(rows[0])
