"""Reading labelled corpora for the command line: ChLGBT's CSV format and COLD."""
from __future__ import annotations

import csv
import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path

from .taxonomy import DIMENSIONS

CHLGBT_COLUMNS = {"explicit": "Explicit", "implicit": "Implicit", "emotional": "Emotional"}


@dataclass
class Corpus:
    texts: list[str]
    labels: dict[str, list[int]]  # dimension -> labels (1..K); empty dict when unlabelled
    n_classes: int = 5
    name: str = ""

    def digest(self) -> str:
        h = hashlib.sha256()
        for i, text in enumerate(self.texts):
            h.update(text.encode("utf-8"))
            for d in sorted(self.labels):
                h.update(str(self.labels[d][i]).encode())
        return h.hexdigest()


def _decode(data: bytes) -> str:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise ValueError("the file is neither UTF-8 nor GB18030")


def read_chlgbt_csv(path: str | Path) -> Corpus:
    """ChLGBT format: optional '#' comment line, header Sentences[,Explicit,Implicit,Emotional]."""
    text = _decode(Path(path).read_bytes())
    rows = list(csv.reader(io.StringIO(text, newline="")))
    while rows and (not rows[0] or rows[0][0].lstrip().startswith("#")):
        rows.pop(0)
    if not rows or rows[0][0].strip() != "Sentences":
        raise ValueError(f"{path}: expected a header starting with 'Sentences'")
    header = [h.strip() for h in rows[0]]
    texts, labels = [], {d: [] for d in DIMENSIONS if CHLGBT_COLUMNS[d] in header}
    for number, row in enumerate(rows[1:], start=2):
        if not row or not row[0].strip():
            continue
        texts.append(row[0])
        for d in labels:
            cell = row[header.index(CHLGBT_COLUMNS[d])].strip()
            if not cell.isdigit() or not 1 <= int(cell) <= 5:
                raise ValueError(f"{path}: row {number}: {CHLGBT_COLUMNS[d]} must be 1-5, got {cell!r}")
            labels[d].append(int(cell))
    return Corpus(texts, labels, 5, Path(path).name)


def read_cold_csv(path: str | Path, topic: str | None = None) -> Corpus:
    """COLD (thu-coai/COLDataset): columns ,split,topic,label,TEXT; binary label 0/1 becomes class
    1 (non-offensive) / 2 (offensive); reported on the single 'explicit' slot."""
    text = _decode(Path(path).read_bytes())
    reader = csv.DictReader(io.StringIO(text, newline=""))
    texts, labels = [], []
    for row in reader:
        if topic and row["topic"] != topic:
            continue
        texts.append(row["TEXT"])
        labels.append(int(row["label"]) + 1)
    return Corpus(texts, {"explicit": labels}, 2, f"{Path(path).name}:{topic or 'all'}")


def write_predictions_csv(path: str | Path, texts, predictions: dict) -> None:
    """PRODUCT.md §6 predict format: text, then per dimension the label and its probabilities. A text a
    spreadsheet would run as a formula gets a leading apostrophe (core.csv_safe.restore undoes it).
    Written to a temporary name and renamed, so a reader never sees half a file."""
    from core import csv_safe  # plain Python, no Django: the workbench's one CSV writer (issue 20, finding 9)

    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8", newline="") as fh:
        writer = csv_safe.writer(fh)  # the texts are uploaded ones: no cell a spreadsheet would run
        header = ["text"]
        for dimension, pred in predictions.items():
            n_classes = pred["after"].shape[1]
            header += [f"{dimension}_label"] + [f"{dimension}_p{k}" for k in range(1, n_classes + 1)]
        writer.writerow(header)
        for i, text in enumerate(texts):
            row = [text]
            for pred in predictions.values():
                p = pred["after"][i]
                row += [int(pred["labels"][i])] + [f"{v:.6f}" for v in p]
            writer.writerow(row)
    os.replace(tmp, path)
