"""Versioned release datasets: files written to a temporary directory and renamed into place,
the database row created only after every file is complete - a failed export publishes nothing."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Max

from core.errors import DomainError

from .agreement import LEVELS, agreement_report
from .cleaning import CLEANING_STEPS
from .importers import CHLGBT_HEADER
from .models import DIMENSIONS, AnnotatorProfile, FinalLabel, Judgment, Release

LICENCE = "CC BY-NC-SA 4.0"
RELEASE_FILES = ("release.csv", "release.jsonl", "judgments.csv", "split.csv", "diff.json", "DATACARD.md")
PAPER_TRAIN_SIZE = 1000


def post_key(external_id: str | None, text_sha256: str) -> str:
    """A stable id for a post across databases: its external id, else a prefix of its text hash."""
    return external_id or f"h{text_sha256[:16]}"


def _csv_bytes(rows: list[list], header: list[str], comment: str | None = None) -> bytes:
    buffer = io.StringIO(newline="")
    if comment:
        buffer.write(comment + "\r\n")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _labels() -> list[dict]:
    rows = (FinalLabel.objects.select_related("post").order_by("post__text_sha256")
            .values_list("post__external_id", "post__text_sha256", "post__text", *DIMENSIONS, "provenance"))
    return [{"id": post_key(r[0], r[1]), "text": r[2], **dict(zip(DIMENSIONS, r[3:6])), "provenance": r[6]}
            for r in rows]


def split_assignment(keys: list[str], seed: int) -> dict[str, str]:
    """The paper's protocol: 1,000 training posts (at most half when there are fewer than 2,000),
    the rest test; seeded permutation of the sorted keys so it is reproducible."""
    n_train = min(PAPER_TRAIN_SIZE, len(keys) // 2) if len(keys) < 2 * PAPER_TRAIN_SIZE else PAPER_TRAIN_SIZE
    order = np.random.default_rng(seed).permutation(len(keys))
    train = {keys[i] for i in order[:n_train]}
    return {k: ("train" if k in train else "test") for k in keys}


def release_diff(previous: list[dict] | None, current: list[dict]) -> dict:
    now = {r["id"]: r for r in current}
    if previous is None:
        return {"previous": None, "added": len(now), "removed": 0, "changed": {d: 0 for d in DIMENSIONS},
                "added_ids": sorted(now)[:1000], "removed_ids": [], "changed_ids": {d: [] for d in DIMENSIONS}}
    before = {r["id"]: r for r in previous}
    added = sorted(set(now) - set(before))
    removed = sorted(set(before) - set(now))
    changed = {d: sorted(k for k in set(now) & set(before) if now[k][d] != before[k][d]) for d in DIMENSIONS}
    return {"added": len(added), "removed": len(removed), "changed": {d: len(v) for d, v in changed.items()},
            "added_ids": added[:1000], "removed_ids": removed[:1000], "changed_ids": {d: v[:1000] for d, v in changed.items()}}


def _datacard(number: int, labels: list[dict], split: dict[str, str], agreement: dict, diff: dict, seed: int,
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


def _read_release_labels(release: Release) -> list[dict] | None:
    path = Path(release.directory) / "release.jsonl"
    if not path.exists():
        return None
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build_release_files(*, number: int, seed: int, previous: Release | None, bootstrap: int = 200) -> tuple[dict[str, bytes], dict]:
    labels = _labels()
    if not labels:
        raise DomainError("There are no final labels to release: import labelled posts or lock and refresh a batch first.")
    keys = [r["id"] for r in labels]
    split = split_assignment(keys, seed)
    pseudonyms = dict(AnnotatorProfile.objects.values_list("user_id", "pseudonym"))
    judgment_rows = [
        [post_key(ext, sha), pseudonyms.get(uid, f"A-{uid}"), *[("" if v is None else v) for v in scores]]
        for ext, sha, uid, *scores in Judgment.objects.order_by("post__text_sha256", "annotator_id")
        .values_list("post__external_id", "post__text_sha256", "annotator_id", *DIMENSIONS)
    ]
    # The data card reports the interval of the primary (ordinal) level only: bootstrap just that.
    agreement = agreement_report(bootstrap=bootstrap, with_trend=False, interval_levels=("ordinal",))
    diff = release_diff(_read_release_labels(previous) if previous else None, labels)
    diff["previous"] = previous.number if previous else None
    comment = f'"# ChLGBT Workbench release: Sentences; Explicit; Implicit; Emotional (1-5). {LICENCE} license",,,'
    files = {
        "release.csv": _csv_bytes([[r["text"], *[r[d] for d in DIMENSIONS]] for r in labels], CHLGBT_HEADER, comment),
        "release.jsonl": "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in labels).encode("utf-8"),
        "judgments.csv": _csv_bytes(judgment_rows, ["post", "annotator", *DIMENSIONS]),
        "split.csv": _csv_bytes([[k, split[k]] for k in keys], ["id", "split"]),
        "diff.json": json.dumps(diff, indent=1, sort_keys=True).encode("utf-8"),
    }
    files["DATACARD.md"] = _datacard(number, labels, split, agreement, diff, seed, len(judgment_rows)).encode("utf-8")
    summary = {"posts": len(labels), "judgments": len(judgment_rows),
               "distribution": {d: dict(Counter(str(r[d]) for r in labels)) for d in DIMENSIONS},
               "alpha": {d: agreement["dimensions"][d]["alpha"] for d in DIMENSIONS}}
    return files, {"summary": summary, "diff": diff}


def content_hash(files: dict[str, bytes]) -> str:
    """The snapshot's identity: a hash of the labelled content (release.csv), so an identical
    dataset has an identical hash whatever database it was exported from."""
    return hashlib.sha256(files["release.csv"]).hexdigest()


def release_publish(*, created_by=None, seed: int = 0, bootstrap: int = 200) -> Release:
    """Publish the next numbered release from the current final labels."""
    root = Path(settings.MEDIA_ROOT) / "releases"
    previous = Release.objects.order_by("-number").first()
    number = (Release.objects.aggregate(n=Max("number"))["n"] or 0) + 1
    files, info = build_release_files(number=number, seed=seed, previous=previous, bootstrap=bootstrap)
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".release-{number}-", dir=root))
    except OSError as exc:
        raise DomainError(f"Cannot write releases to {root}: {exc.strerror or exc}. Nothing was published.") from exc
    target = root / f"release-{number:04d}"
    try:
        for name, data in files.items():
            with open(tmp / name, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        if target.exists():
            raise DomainError(f"{target} already exists; refusing to overwrite a published release.")
        tmp.rename(target)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DomainError(f"Writing the release failed ({exc.strerror or exc}); nothing was published.") from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        with transaction.atomic():
            release = Release.objects.create(
                number=number, content_hash=content_hash(files), directory=str(target),
                manifest={n: hashlib.sha256(b).hexdigest() for n, b in files.items()},
                summary=info["summary"], diff=info["diff"], split_seed=seed, created_by=created_by)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    from .signals import release_published

    release_published.send(sender=Release, release=release)
    return release


def release_copy(*, release: Release, outdir: Path) -> list[Path]:
    """Copy a published release's files, verifying each against the manifest."""
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, digest in sorted(release.manifest.items()):
        data = (Path(release.directory) / name).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise DomainError(f"{name} of release {release.number} does not match its manifest; the copy was stopped.")
        (outdir / name).write_bytes(data)
        written.append(outdir / name)
    return written
