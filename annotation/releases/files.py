"""The bytes of a release's files, built from plain rows (no database access here)."""
from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter

import numpy as np

from core import csv_safe

from ..agreement import LEVELS
from ..importing.cleaning import CLEANING_STEPS
from ..importing.parsers import CHLGBT_HEADER
from ..models import DIMENSIONS

LICENCE = "CC BY-NC-SA 4.0"
LICENCE_ID = "cc-by-nc-sa-4.0"  # the same licence as the Hugging Face dataset-card field names it
# The data itself; diff.json and DATACARD.md describe it (and name the release number).
DATA_FILES = ("release.csv", "release.jsonl", "judgments.csv", "split.csv")
SPLITS = ("train", "test")
# The same rows per split in Parquet, and README.md - the data card with a Hugging Face YAML header
# whose `configs` map each split to its file - so the folder loads with the standard dataset
# loaders. Derived from the data files (not compared when deciding whether the data changed), but
# hashed in the manifest and verified like every file.
PARQUET_FILES = tuple(f"{split}.parquet" for split in SPLITS)
RELEASE_FILES = (*DATA_FILES, *PARQUET_FILES, "diff.json", "DATACARD.md", "README.md")
PARQUET_COLUMNS = ("id", "text", *DIMENSIONS, "provenance")
# A release holds finished labels only (selectors.unfinished_label_keys) unless its publisher asks
# for provisional ones too; then every row carries `provisional` (true for a label that is not
# finished) in release.jsonl and the Parquet files, release.csv gains a `Provisional` column and
# judgments.csv / split.csv a `provisional` one (1 / 0). Training drops them unless asked (modeling/splits.py).
PROVISIONAL = "provisional"
PAPER_TRAIN_SIZE = 1000
# How a release splits its posts (chosen at publication, recorded on the Release row and in the data
# card; docs/splits.md): the paper's 1,000 / rest (Table 2 reproduction), a stratified 80/20, or k
# stratified folds (split.csv gains a `fold` column; fold 0 is the test split of the Parquet files).
SPLIT_PAPER, SPLIT_STRATIFIED, SPLIT_KFOLD = "paper", "stratified", "kfold"
SPLIT_SCHEMES = (SPLIT_PAPER, SPLIT_STRATIFIED, SPLIT_KFOLD)
STRATIFIED_ABOVE = 2000  # more labelled posts than this: the stratified 80/20 is the default
DEFAULT_FOLDS = 5
MAX_FOLDS = 20


def post_key(external_id: str | None, text_sha256: str) -> str:
    """A stable id for a post across databases: its external id, else a prefix of its text hash."""
    return external_id or f"h{text_sha256[:16]}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _csv_bytes(rows: list[list], header: list[str], comment: str | None = None) -> bytes:
    buffer = io.StringIO(newline="")
    if comment:
        buffer.write(comment + "\r\n")
    writer = csv_safe.writer(buffer, lineterminator="\r\n")  # no cell a spreadsheet would run as a formula
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


def default_split_scheme(n_posts: int) -> str:
    """The split a release gets unless its publisher picks one: the paper's 1,000 / rest up to
    2,000 labelled posts (where it is half or more of the data), a stratified 80/20 above."""
    return SPLIT_STRATIFIED if n_posts > STRATIFIED_ABOVE else SPLIT_PAPER


def stratified_folds(rows: list[dict], seed: int, folds: int) -> dict[str, int]:
    """A fold (0..folds-1) per post, stratified by the joint (explicit, implicit, emotional) label:
    each label combination's posts, in a seeded order, are dealt round-robin to the folds, carrying
    on where the previous combination stopped, so fold sizes differ by at most one and every
    fold holds each dimension's labels in about the release's proportions."""
    if not 2 <= folds <= MAX_FOLDS:
        raise ValueError(f"folds must be between 2 and {MAX_FOLDS}, got {folds}")
    rng = np.random.default_rng(seed)
    groups: dict[tuple, list[str]] = {}
    for row in sorted(rows, key=lambda r: r["id"]):
        groups.setdefault(tuple(row[d] for d in DIMENSIONS), []).append(row["id"])
    out: dict[str, int] = {}
    offset = 0
    for combination in sorted(groups):
        members = groups[combination]
        for i, j in enumerate(rng.permutation(len(members))):
            out[members[j]] = (offset + i) % folds
        offset += len(members)
    return out


def split_plan(rows: list[dict], seed: int, scheme: str, folds: int = DEFAULT_FOLDS) -> dict[str, dict]:
    """Each post's split ("train" / "test") and, for k folds, its fold: {id: {"split", "fold"}}.
    Stratified 80/20 is fold 0 of five stratified folds as test; with k folds, fold 0 is the test
    split of the train/test files (a run picks its own test fold, docs/splits.md)."""
    keys = [r["id"] for r in rows]
    if scheme == SPLIT_PAPER:
        return {k: {"split": s, "fold": None} for k, s in split_assignment(keys, seed).items()}
    if scheme not in SPLIT_SCHEMES:
        raise ValueError(f"split scheme must be one of {SPLIT_SCHEMES}, got {scheme!r}")
    k = DEFAULT_FOLDS if scheme == SPLIT_STRATIFIED else folds
    if len(rows) < k:
        raise ValueError(f"{len(rows)} posts cannot be cut into {k} folds")
    fold = stratified_folds(rows, seed, k)
    return {key: {"split": "test" if fold[key] == 0 else "train",
                  "fold": fold[key] if scheme == SPLIT_KFOLD else None} for key in keys}


def split_description(scheme: str, folds: int | None = None) -> str:
    """One line for the data card (English, as the card is)."""
    if scheme == SPLIT_STRATIFIED:
        return "stratified 80/20 (by the joint label; fold 0 of five stratified folds is test)"
    if scheme == SPLIT_KFOLD:
        return (f"{folds} stratified folds (split.csv `fold`; the train/test files hold fold 0 as test; "
                "a run with seed s tests on fold s mod k)")
    return "the paper's protocol: 1,000 training posts (at most half below 2,000 posts), the rest test"


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


def data_files(labels: list[dict], judgments: list[list], seed: int, scheme: str = SPLIT_PAPER,
               folds: int = DEFAULT_FOLDS) -> dict[str, bytes]:
    """release.csv (ChLGBT format), release.jsonl, judgments.csv and split.csv (id, split, and a
    fold column for k folds); with provisional labels every one of them marks them (release.csv
    `Provisional`, release.jsonl `provisional`, judgments.csv and split.csv a `provisional` column)."""
    keys = [r["id"] for r in labels]
    plan = split_plan(labels, seed, scheme, folds)
    split_rows = ([[k, plan[k]["split"], plan[k]["fold"]] for k in keys] if scheme == SPLIT_KFOLD
                  else [[k, plan[k]["split"]] for k in keys])
    split_header = ["id", "split", "fold"] if scheme == SPLIT_KFOLD else ["id", "split"]
    comment = f'"# ChLGBT Workbench release: Sentences; Explicit; Implicit; Emotional (1-5). {LICENCE} license",,,'
    csv_rows = [[r["text"], *[r[d] for d in DIMENSIONS]] for r in labels]
    csv_header = CHLGBT_HEADER
    if has_provisional(labels):
        n = sum(bool(r[PROVISIONAL]) for r in labels)
        comment = (f'"# ChLGBT Workbench release: Sentences; Explicit; Implicit; Emotional (1-5); Provisional (1 = '
                   f'a label that is not finished: {n} of {len(labels)}). {LICENCE} license",,,,')
        csv_rows = [[*row, 1 if r[PROVISIONAL] else 0] for row, r in zip(csv_rows, labels)]
        csv_header = [*CHLGBT_HEADER, "Provisional"]
    judgment_header = ["post", "annotator", *DIMENSIONS]
    if has_provisional(labels):
        # judgments.csv and split.csv mark the provisional posts too (1 / 0), so no file of the release
        # can be read without seeing which labels are not finished.
        provisional = {r["id"] for r in labels if r[PROVISIONAL]}
        judgments = [[*j, 1 if j[0] in provisional else 0] for j in judgments]
        judgment_header.append(PROVISIONAL)
        split_rows = [[*row, 1 if row[0] in provisional else 0] for row in split_rows]
        split_header = [*split_header, PROVISIONAL]
    return {
        "release.csv": _csv_bytes(csv_rows, csv_header, comment),
        "release.jsonl": "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in labels).encode("utf-8"),
        "judgments.csv": _csv_bytes(judgments, judgment_header),
        "split.csv": _csv_bytes(split_rows, split_header),
    }


def has_provisional(labels: list[dict]) -> bool:
    """Whether the release was published with provisional labels (its rows carry `provisional`)."""
    return any(PROVISIONAL in r for r in labels)


def parquet_columns(labels: list[dict]) -> tuple[str, ...]:
    return (*PARQUET_COLUMNS, PROVISIONAL) if has_provisional(labels) else PARQUET_COLUMNS


def split_tables(labels: list[dict], split: dict[str, str]) -> dict:
    """Each split's rows as an Arrow table: id, text, the three labels (int8) and provenance (and
    `provisional` when the release holds provisional labels), in the order of release.csv."""
    import pyarrow as pa

    columns = parquet_columns(labels)
    schema = pa.schema([("id", pa.string()), ("text", pa.string()), *[(d, pa.int8()) for d in DIMENSIONS],
                        ("provenance", pa.string()), *([(PROVISIONAL, pa.bool_())] if PROVISIONAL in columns else [])])
    tables = {}
    for name in SPLITS:
        rows = [r for r in labels if split[r["id"]] == name]
        tables[name] = pa.table({column: [r[column] for r in rows] for column in columns}, schema=schema)
    return tables


def parquet_files(labels: list[dict], split: dict[str, str]) -> dict[str, bytes]:
    """train.parquet and test.parquet: the tables of split_tables."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = {}
    for name, table in split_tables(labels, split).items():
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        out[f"{name}.parquet"] = sink.getvalue().to_pybytes()
    return out


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def dataset_card(number: int, labels: list[dict], split: dict[str, str], card: str) -> str:
    """README.md: the data card under a YAML header that follows the Hugging Face dataset-card
    conventions (licence, language, task categories, features, and configs mapping the splits to
    their Parquet files)."""
    # The loaders read `splits` only when each has name, num_bytes and num_examples (otherwise they
    # ignore it, with a warning); num_bytes is the split's size as an Arrow table, as theirs is.
    tables = split_tables(labels, split)
    dtypes = {"id": "string", "text": "string", **{d: "int8" for d in DIMENSIONS}, "provenance": "string",
              PROVISIONAL: "bool"}
    header = ["---", f"license: {LICENCE_ID}", "language:", "- zh", "task_categories:", "- text-classification",
              "task_ids:", "- multi-class-classification", "- hate-speech-detection",
              f"pretty_name: ChLGBT Workbench release {number}", "size_categories:", f"- {_size_category(len(labels))}",
              "tags:", "- lgbt", "- discrimination", "- ordinal-labels", "dataset_info:", "  features:"]
    for column in parquet_columns(labels):
        header += [f"  - name: {column}", f"    dtype: {dtypes[column]}"]
    header += ["  splits:"]
    for name in SPLITS:
        header += [f"  - name: {name}", f"    num_bytes: {tables[name].nbytes}", f"    num_examples: {tables[name].num_rows}"]
    header += [f"  dataset_size: {sum(table.nbytes for table in tables.values())}"]
    header += ["configs:", "- config_name: default", "  data_files:"]
    for name in SPLITS:
        header += [f"  - split: {name}", f"    path: {name}.parquet"]
    return "\n".join(header) + "\n---\n\n" + card


def content_hash(files: dict[str, bytes]) -> str:
    """The snapshot's identity: a hash of the labelled content (release.csv), so an identical
    dataset has an identical hash whatever database it was exported from."""
    return sha256(files["release.csv"])


def summary(labels: list[dict], n_judgments: int, agreement: dict) -> dict:
    return {"posts": len(labels), "judgments": n_judgments,
            "distribution": {d: dict(Counter(str(r[d]) for r in labels)) for d in DIMENSIONS},
            "alpha": {d: agreement["dimensions"][d]["alpha"] for d in DIMENSIONS}}


def unfinished_section(left_out: int, provisional: int) -> str:
    """The data card's account of labels that are not finished: how many were left out, or how many
    are in the release marked provisional, and why."""
    why = ("A label is finished when a person set it (adjudicated, or imported with the post), when its post has "
           "the k counted judgments its batch asks for, or when its batch is locked. A post still being scored in "
           "an open batch has only an automatic label of the judgments so far, which can change with the next "
           "one.")
    lines = ["## Finished labels", "", why, ""]
    if provisional:
        lines += [f"- provisional labels included at the publisher's request: {provisional} (`provisional` is "
                  "true in release.jsonl and the Parquet files, 1 in release.csv's `Provisional` column and in the "
                  "`provisional` column of judgments.csv and split.csv); leave them out for training or evaluation "
                  "that needs final labels (the workbench's training runs do unless asked)"]
    else:
        lines += [f"- posts left out because their labels are not finished: {left_out}"]
    return "\n".join(lines) + "\n\n"


def datacard(number: int, labels: list[dict], split: dict[str, str], agreement: dict, diff: dict, seed: int,
             n_judgments: int, quality: str = "", scheme: str = SPLIT_PAPER, folds: int | None = None) -> str:
    """DATACARD.md; `quality` is the section on label aggregation and annotator quality
    (annotation/quality/selectors.py `datacard_section`), placed after the agreement figures;
    `scheme` / `folds` name the split the release offers."""
    lines = [f"# ChLGBT Workbench release {number}", "",
             "Chinese LGBT-focused discriminatory-language dataset: Weibo posts scored 1-5 on explicit bias, "
             "implicit bias and emotional intensity.", "",
             "## Counts", "", f"- posts: {len(labels)}", f"- judgments: {n_judgments}",
             f"- split (seed {seed}): {sum(v == 'train' for v in split.values())} train / "
             f"{sum(v == 'test' for v in split.values())} test",
             f"- split scheme: `{scheme}` - {split_description(scheme, folds)}",
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
              "set them or the workbench is set to the model-based aggregate; `release.jsonl` records the "
              "provenance of each label.", ""]
    if quality:
        lines += [quality]
    lines += [
              "## Cleaning", "", *[f"- {step}" for step in CLEANING_STEPS], "- exact duplicates rejected at import", "",
              "## Changes since the previous release", "",
              f"- added {diff['added']}, removed {diff['removed']}, labels changed: "
              + ", ".join(f"{d} {n}" for d, n in diff["changed"].items()), "",
              "## Files", "", "- `release.csv` - ChLGBT format: `Sentences,Explicit,Implicit,Emotional`",
              "- `release.jsonl` - one post per line with id, text, labels and provenance",
              "- `judgments.csv` - every judgment, annotators pseudonymised"
              + (" (`provisional` 1 for a post whose label is not finished)" if has_provisional(labels) else ""),
              "- `split.csv` - id, split" + (", provisional" if has_provisional(labels) else ""),
              "- `train.parquet`, `test.parquet` - the rows of each split (id, text, labels, provenance"
              + (", provisional)" if has_provisional(labels) else ")"),
              "- `README.md` - this card with a Hugging Face YAML header (`configs` map the splits to the "
              "Parquet files)",
              "- `diff.json` - the change list against the previous release",
              "- `gold.csv` (when asked for at publication) - the gold items used to measure annotators, apart "
              "from the data", "",
              "## Licence", "", f"{LICENCE}. Contains offensive language by nature; the labels are ordinal research "
              "labels under this annotation protocol, not judgments about any person.", ""]
    return "\n".join(lines)


def parse_rows(jsonl: bytes, split_csv: bytes) -> list[dict]:
    """A release's rows (id, text, labels, provenance) with their split (and fold, for k folds),
    from its two files."""
    reader = csv.DictReader(io.StringIO(split_csv.decode("utf-8")))
    split = {csv_safe.restore(row["id"]): row for row in reader}
    rows = [json.loads(line) for line in jsonl.decode("utf-8").splitlines() if line.strip()]
    out = []
    for row in rows:
        entry = split.get(row["id"], {})
        fold = entry.get("fold")
        out.append({**row, "split": entry.get("split", ""), **({"fold": int(fold)} if fold not in (None, "") else {})})
    return out
