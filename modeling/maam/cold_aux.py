"""COLD's offensive labels as an auxiliary signal for ChLGBT (issue 23, item 2; docs/best_offline.md).

COLD (thu-coai/COLDataset, Apache-2.0) labels ~26k Chinese posts offensive (1) or not (0). A binary
classifier trained on COLD alone - character n-gram tf-idf into a logistic regression by default,
the same linear backbones as MAAM - gives every ChLGBT post one number, its **offensive log-odds**
log P(offensive) / P(not). The best-offline bench (bench/bench_best_offline.py) offers that column to
the per-dimension stacker next to the three dimensions' out-of-fold log-probabilities.

The COLD model never sees a ChLGBT label, so computing the feature once for all posts of a file
leaks nothing into a cross-validated evaluation on that file.

    aux = ColdAux().fit("../shared/data/cold")      # train.csv (dev.csv, when present, is scored)
    x = aux.feature(texts)                          # shape (len(texts), 1), in the order of texts
    aux.save(directory); ColdAux.load(directory)
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

CLIP = 10.0  # log-odds are clipped to [-CLIP, CLIP] (the backbone's probabilities can saturate)
REQUIRED = ("label", "TEXT")


class ColdFormatError(ValueError):
    """A COLD file that cannot be read: missing, wrong header, labels other than 0/1, or one class."""


def read_cold(path: str | Path) -> tuple[list[str], np.ndarray]:
    """Texts and 0/1 offensive labels of a COLD CSV (columns ',split,topic,label,TEXT'; only label
    and TEXT are needed). Raises ColdFormatError naming the file and row on anything malformed."""
    from .data import _decode

    path = Path(path)
    if not path.is_file():
        raise ColdFormatError(f"{path}: no such COLD file")
    try:
        text = _decode(path.read_bytes())
    except ValueError as exc:
        raise ColdFormatError(f"{path}: {exc}") from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ColdFormatError(f"{path}: expected COLD columns {list(REQUIRED)}; missing {missing} (header {header})")
    texts, labels = [], []
    for number, row in enumerate(reader, start=2):
        row = {(k or "").strip(): v for k, v in row.items()}
        cell = (row.get("label") or "").strip()
        if cell not in ("0", "1"):
            raise ColdFormatError(f"{path}: row {number}: label must be 0 or 1, got {cell!r}")
        body = row.get("TEXT") or ""
        if not body.strip():
            continue
        texts.append(body)
        labels.append(int(cell))
    if len(set(labels)) < 2:
        raise ColdFormatError(f"{path}: needs both offensive (1) and non-offensive (0) posts, "
                              f"got {len(labels)} post(s) of {sorted(set(labels))}")
    return texts, np.asarray(labels, dtype=int)


def _train_file(source: str | Path) -> Path:
    source = Path(source)
    return source / "train.csv" if source.is_dir() else source


@dataclass
class ColdAux:
    """A binary offensive classifier trained on COLD; `feature` gives ChLGBT posts its log-odds."""

    backbone: str = "char-ngram"
    seed: int = 0
    model: object | None = None
    report: dict = field(default_factory=dict)

    def fit(self, source: str | Path) -> ColdAux:
        """Train on `source` (a COLD directory's train.csv, or a CSV file). A dev.csv next to it is
        scored (macro-F1, accuracy) into `report`, as a sanity check of the auxiliary model."""
        from .backbones import WeightedText, make_backbone
        from .metrics import macro_f1

        train_path = _train_file(source)
        texts, y = read_cold(train_path)
        self.model = make_backbone(self.backbone, seed=self.seed, n_classes=2)
        self.model.fit([WeightedText.plain(t) for t in texts], y + 1)
        self.report = {"backbone": self.backbone, "train": str(train_path.name), "n_train": len(texts),
                       "offensive_share": round(float(y.mean()), 4)}
        dev = train_path.with_name("dev.csv")
        if dev.is_file() and dev != train_path:
            dev_texts, dev_y = read_cold(dev)
            pred = (self.log_odds(dev_texts) > 0).astype(int)
            self.report.update(n_dev=len(dev_texts), dev_macro_f1=round(macro_f1(dev_y + 1, pred + 1, [1, 2]), 4),
                               dev_accuracy=round(float((pred == dev_y).mean()), 4))
        return self

    def log_odds(self, texts: Sequence[str]) -> np.ndarray:
        """log P(offensive) / P(not offensive) per text, in the order of `texts` (clipped)."""
        from .backbones import WeightedText

        if self.model is None:
            raise RuntimeError("the COLD model is not trained (call fit or load)")
        if not len(texts):
            return np.zeros(0)
        p = np.clip(self.model.predict_proba([WeightedText.plain(t) for t in texts]), 1e-9, None)
        return np.clip(np.log(p[:, 1]) - np.log(p[:, 0]), -CLIP, CLIP)

    def feature(self, texts: Sequence[str]) -> np.ndarray:
        """The stacker's extra column: shape (len(texts), 1)."""
        return self.log_odds(texts)[:, None]

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.model.save(directory)
        (directory / "cold_aux.json").write_text(json.dumps(
            {"backbone": self.backbone, "seed": self.seed, "report": self.report}, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> ColdAux:
        from .backbones import load_backbone

        directory = Path(directory)
        meta = json.loads((directory / "cold_aux.json").read_text(encoding="utf-8"))
        return cls(backbone=meta["backbone"], seed=meta["seed"], model=load_backbone(directory),
                   report=meta.get("report", {}))
