"""The bytes of a release's files, built from plain rows (no database access here)."""
from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter

import numpy as np

from ..agreement import LEVELS
from ..importing.cleaning import CLEANING_STEPS
from ..importing.parsers import CHLGBT_HEADER
from ..models import DIMENSIONS

LICENCE = "CC BY-NC-SA 4.0"
# The data itself; diff.json and DATACARD.md describe it (and name the release number).
DATA_FILES = ("release.csv", "release.jsonl", "judgments.csv", "split.csv")
RELEASE_FILES = (*DATA_FILES, "diff.json", "DATACARD.md")
PAPER_TRAIN_SIZE = 1000


def post_key(external_id: str | None, text_sha256: str) -> str:
    """A stable id for a post across databases: its external id, else a prefix of its text hash."""
    return external_id or f"h{text_sha256[:16]}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _csv_bytes(rows: list[list], header: list[str], comment: str | None = None) -> bytes:
    buffer = io.StringIO(newline="")
    if comment:
        buffer.write(comment + "\r\n")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def split_assignment(keys: list[str], seed: int) -> dict[str, str]:
    """The paper's protocol: 1,000 training posts (at most half when there are fewer than 2,000),
    the rest test; seeded permutation of the sorted keys so it is reproducible."""
    n_train = min(PAPER_TRAIN_SIZE, len(keys) // 2) if len(keys) < 2 * PAPER_TRAIN_SIZE else PAPER_TRAIN_SIZE
    order = np.random.default_rng(seed).permutation(len(keys))
    train = {keys[i] for i in order[:n_train]}
    return {k: ("train" if k in train else "test") for k in keys}


def release_diff(previous: list[dict] | None, current: list[dict], previous_number: int | None = None) -> dict:
    now = {r["id"]: r for r in current}
    if previous is None:
        return {"previous": None, "added": len(now), "removed": 0, "changed": {d: 0 for d in DIMENSIONS},
                "added_ids": sorted(now)[:1000], "removed_ids": [], "changed_ids": {d: [] for d in DIMENSIONS}}
    before = {r["id"]: r for r in previous}
    added = sorted(set(now) - set(before))
    removed = sorted(set(before) - set(now))
    changed = {d: sorted(k for k in set(now) & set(before) if now[k][d] != before[k][d]) for d in DIMENSIONS}
    return {"previous": previous_number, "added": len(added), "removed": len(removed),
            "changed": {d: len(v) for d, v in changed.items()}, "added_ids": added[:1000],
            "removed_ids": removed[:1000], "changed_ids": {d: v[:1000] for d, v in changed.items()}}


def data_files(labels: list[dict], judgments: list[list], seed: int) -> dict[str, bytes]:
    """release.csv (ChLGBT format), release.jsonl, judgments.csv and split.csv."""
    keys = [r["id"] for r in labels]
    split = split_assignment(keys, seed)
    comment = f'"# ChLGBT Workbench release: Sentences; Explicit; Implicit; Emotional (1-5). {LICENCE} license",,,'
    return {
        "release.csv": _csv_bytes([[r["text"], *[r[d] for d in DIMENSIONS]] for r in labels], CHLGBT_HEADER, comment),
        "release.jsonl": "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in labels).encode("utf-8"),
        "judgments.csv": _csv_bytes(judgments, ["post", "annotator", *DIMENSIONS]),
        "split.csv": _csv_bytes([[k, split[k]] for k in keys], ["id", "split"]),
    }


def content_hash(files: dict[str, bytes]) -> str:
    """The snapshot's identity: a hash of the labelled content (release.csv), so an identical
    dataset has an identical hash whatever database it was exported from."""
    return sha256(files["release.csv"])


def summary(labels: list[dict], n_judgments: int, agreement: dict) -> dict:
    return {"posts": len(labels), "judgments": n_judgments,
            "distribution": {d: dict(Counter(str(r[d]) for r in labels)) for d in DIMENSIONS},
            "alpha": {d: agreement["dimensions"][d]["alpha"] for d in DIMENSIONS}}


def datacard(number: int, labels: list[dict], split: dict[str, str], agreement: dict, diff: dict, seed: int,
             n_judgments: int) -> str:
    lines = [f"# ChLGBT Workbench release {number}", "",
             "Chinese LGBT-focused discriminatory-language dataset: Weibo posts scored 1-5 on explicit bias, "
             "implicit bias and emotional intensity.", "",
             "## Counts", "", f"- posts: {len(labels)}", f"- judgments: {n_judgments}",
             f"- split (seed {seed}): {sum(v == 'train' for v in split.values())} train / "
             f"{sum(v == 'test' for v in split.values())} test",
             "- label provenance: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r['provenance'] for r in labels).items())),
             "", "## Label distributions", "", "| dimension | 1 | 2 | 3 | 4 | 5 |", "|---|---|---|---|---|---|"]
    for d in DIMENSIONS:
        c = Counter(r[d] for r in labels)
        lines.append(f"| {d} | " + " | ".join(str(c.get(k, 0)) for k in range(1, 6)) + " |")
    lines += ["", "## Inter-annotator agreement (Krippendorff's alpha)", "",
              "| dimension | " + " | ".join(LEVELS) + " | ordinal 95% interval |", "|---|---|---|---|---|"]
    for d in DIMENSIONS:
        entry = agreement["dimensions"][d]
        cells = [f"{entry['alpha'][lvl]:.3f}" if entry["alpha"][lvl] is not None else "n/a" for lvl in LEVELS]
        interval = (entry.get("interval") or {}).get("ordinal")
        cells.append(f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "n/a")
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    lines += ["", "Final labels are the rounded mean of the judgments (halves rounded up) unless an adjudicator "
              "set them; `release.jsonl` records the provenance of each label.", "",
              "## Cleaning", "", *[f"- {step}" for step in CLEANING_STEPS], "- exact duplicates rejected at import", "",
              "## Changes since the previous release", "",
              f"- added {diff['added']}, removed {diff['removed']}, labels changed: "
              + ", ".join(f"{d} {n}" for d, n in diff["changed"].items()), "",
              "## Files", "", "- `release.csv` - ChLGBT format: `Sentences,Explicit,Implicit,Emotional`",
              "- `release.jsonl` - one post per line with id, text, labels and provenance",
              "- `judgments.csv` - every judgment, annotators pseudonymised", "- `split.csv` - id, split",
              "- `diff.json` - the change list against the previous release", "",
              "## Licence", "", f"{LICENCE}. Contains offensive language by nature; the labels are ordinal research "
              "labels under this annotation protocol, not judgments about any person.", ""]
    return "\n".join(lines)


def parse_rows(jsonl: bytes, split_csv: bytes) -> list[dict]:
    """A release's rows (id, text, labels, provenance) with their split, from its two files."""
    reader = csv.reader(io.StringIO(split_csv.decode("utf-8")))
    next(reader, None)  # header: id,split
    split = dict(reader)
    rows = [json.loads(line) for line in jsonl.decode("utf-8").splitlines() if line.strip()]
    return [{**row, "split": split.get(row["id"], "")} for row in rows]
