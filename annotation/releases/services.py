"""Publishing a release - the one service the releases page, the admin and `export_release` call:
refresh the final labels, take the next number, build the files, refuse a copy of the last release
(unless forced), write the files to a temporary directory and rename it into place, and record the
hashes. The database row is created only after every file is complete: a failed export publishes
nothing."""
from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import uuid
from pathlib import Path

from auditlog.models import LogEntry
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core.errors import Conflict, DomainError

from ..adjudication.services import final_labels_refresh
from ..agreement.selectors import agreement_report
from ..models import Release
from ..quality.selectors import GOLD_FILE, datacard_section, gold_csv, release_label_fields
from ..quality.services import aggregation_ensure_current
from ..signals import release_published
from . import files
from .selectors import (
    current_label_rows,
    judgment_rows,
    release_file_bytes,
    release_latest,
    release_rows,
    unfinished_label_keys,
)

logger = logging.getLogger(__name__)
# Publishing is serialised: two publishes at once would otherwise both take the same number.
PUBLISH_LOCK_KEY = 20_260_001  # pg_advisory_xact_lock key, unique to release publishing
_process_lock = threading.Lock()  # SQLite, the embedded default, serves one process


class ReleaseUnchanged(Conflict):
    """The data are byte-for-byte those of the latest release; `release` is that release."""

    def __init__(self, release: Release):
        self.release = release
        super().__init__(_("Nothing was published: the data are identical to release %(number)s (%(hash)s). "
                           "Publish anyway to mint a copy under a new number.")
                         % {"number": release.number, "hash": release.content_hash[:12]})


def _hold_publish_lock() -> None:
    """Inside the publish transaction: wait for any other publish to finish (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PUBLISH_LOCK_KEY])


def _same_data(built: dict[str, bytes], release: Release) -> bool:
    return all(release.manifest.get(name) == files.sha256(built[name]) for name in files.DATA_FILES)


def _write_into_place(root: Path, number: int, contents: dict[str, bytes]) -> Path:
    """Write every file to a temporary directory, fsync, then rename it to release-NNNN."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".release-{number}-", dir=root))
    except OSError as exc:
        raise DomainError(_("Cannot write releases to %(root)s: %(error)s. Nothing was published.")
                          % {"root": root, "error": exc.strerror or exc}) from exc
    target = root / f"release-{number:04d}"
    try:
        for name, data in contents.items():
            with open(tmp / name, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        if target.exists():
            raise DomainError(_("%(target)s already exists; refusing to overwrite a published release.") % {"target": target})
        tmp.rename(target)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DomainError(_("Writing the release failed (%(error)s); nothing was published.")
                          % {"error": exc.strerror or exc}) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def _set_aside_unrecorded(root: Path, number: int) -> Path | None:
    """A release-NNNN folder for a number no release row holds: a publication killed after its files
    were renamed into place and before its row was committed (a crash, a kill, a power cut). Moved
    aside (never deleted) so the publication can be done again; the new path, or None."""
    target = root / f"release-{number:04d}"
    if not target.exists() or Release.objects.filter(Q(number=number) | Q(directory=str(target))).exists():
        return None
    aside = root / f".interrupted-{target.name}-{uuid.uuid4().hex[:8]}"
    target.rename(aside)
    logger.warning("%s had no release row (an interrupted publication); moved aside to %s", target, aside)
    return aside


def _split_choice(split: str, folds: int, n_posts: int) -> tuple[str, int | None]:
    """The split scheme to publish with ("auto": the default for the release's size) and its folds."""
    scheme = files.default_split_scheme(n_posts) if split == "auto" else split
    if scheme not in files.SPLIT_SCHEMES:
        raise DomainError(_("Unknown split %(split)r; choose one of %(choices)s.")
                          % {"split": split, "choices": ", ".join(("auto", *files.SPLIT_SCHEMES))})
    if scheme != files.SPLIT_KFOLD:
        return scheme, None
    if not 2 <= folds <= files.MAX_FOLDS:
        raise DomainError(_("The number of folds must be between 2 and %(max)s.") % {"max": files.MAX_FOLDS})
    if n_posts < 2 * folds:
        raise DomainError(_("%(posts)s labelled posts are too few for %(folds)s folds.")
                          % {"posts": n_posts, "folds": folds})
    return scheme, folds


def release_publish(*, kind: str = "internal", created_by=None, seed: int = 0, bootstrap: int = 200, force: bool = False,
                    include_gold: bool = False, split: str = "auto", folds: int = files.DEFAULT_FOLDS,
                    include_provisional: bool = False) -> Release:
    """Publish the next numbered release from the current final labels. ReleaseUnchanged when the
    data equal the latest release's, unless `force`. Only finished labels go in (adjudicated,
    imported, k counted judgments, or a locked batch: `selectors.unfinished_label_keys`); the data
    card counts the rest; `include_provisional` puts them in too, each row marked `provisional`
    in every file that holds labels. `include_gold` adds gold.csv, the gold items
    used to measure annotators, listed apart from the data. `split`: "paper" (1,000 / rest),
    "stratified" (80/20), "kfold" (`folds` stratified folds) or "auto" (stratified above 2,000
    labelled posts, else the paper's; docs/splits.md)."""
    root = Path(settings.MEDIA_ROOT) / "releases"
    target: Path | None = None
    with _process_lock:
        try:
            with transaction.atomic():
                _hold_publish_lock()
                # Both automatic labels are recorded: the model-based aggregate is fitted on these judgments.
                aggregation_ensure_current()
                final_labels_refresh()
                # The diff and the identical-data check compare with the latest release of the same kind.
                previous = Release.objects.filter(kind=kind).order_by("-number").first()
                latest = release_latest()
                number = latest.number + 1 if latest else 1
                labels = release_label_fields(current_label_rows())
                if not labels:
                    raise DomainError(_("There are no final labels to release: import labelled posts or lock and "
                                        "refresh a batch first."))
                unfinished = unfinished_label_keys()
                if include_provisional:
                    if unfinished:
                        labels = [{**r, files.PROVISIONAL: r["id"] in unfinished} for r in labels]
                    n_unfinished_out = 0
                else:
                    n_unfinished_out = sum(r["id"] in unfinished for r in labels)
                    labels = [r for r in labels if r["id"] not in unfinished]
                    if not labels:
                        raise DomainError(_(
                            "No label is finished yet: %(n)s posts are still being scored in open batches (fewer "
                            "than k counted judgments, not adjudicated). Lock a batch, adjudicate its posts, or "
                            "include provisional labels to publish them marked as such.") % {"n": n_unfinished_out})
                judgments = judgment_rows()
                # What a release of this kind may hold: takedowns left out; a public release holds confirmed,
                # non-searchable rewrites only (publication/releasing.py).
                from publication.releasing import release_shape

                shaped = release_shape(kind, labels, judgments, include_gold=include_gold)
                labels, judgments = shaped.labels, shaped.judgments
                if not labels:
                    raise DomainError(_("No post can go into this release: %(left_out)s.")
                                      % {"left_out": ", ".join(f"{k} {v}" for k, v in shaped.summary["left_out"].items())})
                _set_aside_unrecorded(root, number)
                scheme, n_folds = _split_choice(split, folds, len(labels))
                contents = files.data_files(labels, judgments, seed, scheme, n_folds or files.DEFAULT_FOLDS)
                if previous is not None and not force and _same_data(contents, previous):
                    raise ReleaseUnchanged(previous)
                # The data card reports the interval of the primary (ordinal) level only: bootstrap just that.
                agreement = agreement_report(bootstrap=bootstrap, with_trend=False, interval_levels=("ordinal",))
                diff = files.release_diff(release_rows(previous) if previous else None, labels,
                                          previous.number if previous else None)
                split = {key: entry["split"] for key, entry in
                         files.split_plan(labels, seed, scheme, n_folds or files.DEFAULT_FOLDS).items()}
                diff["taken_down_ids"] = [k for k in shaped.taken_down_ids if k in set(diff["removed_ids"])]
                contents["diff.json"] = json.dumps(diff, indent=1, sort_keys=True).encode("utf-8")
                # Provisional rows left out of a public release by its own rules are not counted as included.
                n_provisional = sum(bool(r.get(files.PROVISIONAL)) for r in labels)
                card = files.datacard(number, labels, split, agreement, diff, seed, len(judgments),
                                      quality=files.unfinished_section(n_unfinished_out, n_provisional)
                                      + datacard_section(labels) + shaped.card_section, scheme=scheme, folds=n_folds)
                contents["DATACARD.md"] = card.encode("utf-8")
                contents.update(files.parquet_files(labels, split))
                contents["README.md"] = files.dataset_card(number, labels, split, card).encode("utf-8")
                if include_gold:
                    contents[GOLD_FILE] = gold_csv()
                target = _write_into_place(root, number, contents)
                release = Release.objects.create(
                    number=number, content_hash=files.content_hash(contents), directory=str(target),
                    manifest={name: files.sha256(data) for name, data in contents.items()},
                    summary={**files.summary(labels, len(judgments), agreement), **shaped.summary,
                             "unfinished": {"left_out": n_unfinished_out, "provisional": n_provisional},
                             "split": {name: sum(v == name for v in split.values()) for name in files.SPLITS}},
                    diff=diff, split_seed=seed, kind=kind,
                    split_scheme=scheme, split_folds=n_folds, created_by=created_by)
                if created_by is not None:
                    # The log names the publisher the releases page names, whether published from the page,
                    # the admin, a command or the demo (outside a request auditlog records no one).
                    LogEntry.objects.get_for_object(release).filter(actor__isnull=True).update(actor=created_by)
        except BaseException:
            if target is not None:
                shutil.rmtree(target, ignore_errors=True)
            raise
    release_published.send(sender=Release, release=release)
    return release


def release_copy(*, release: Release, outdir: Path) -> list[Path]:
    """Copy a published release's files, each verified against the manifest."""
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in sorted(release.manifest):
        data = release_file_bytes(release, name)
        (outdir / name).write_bytes(data)
        written.append(outdir / name)
    from audit.services import audit_event

    audit_event(actor=None, event="export", params={"number": release.number, "folder": outdir.name},
                what=gettext_noop("Exported release %(number)s to a folder %(folder)s"),
                changes={"files": (None, len(written))})
    return written
