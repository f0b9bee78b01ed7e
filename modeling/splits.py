"""Which posts a training run trains and is tested on (docs/splits.md): a release's own split, its
k-fold partition (seed s tests on fold s mod k), or, without a release, the current final labels
split the way a release of them would be by default."""
from __future__ import annotations

from annotation.models import Release, SplitScheme
from annotation.releases.files import default_split_scheme
from annotation.releases.selectors import label_rows


def run_split(release: Release | None, seed: int = 0) -> dict:
    """{"train": rows, "test": rows, "split": description}; each row carries id, text, labels."""
    rows = label_rows(release=release, seed=seed)
    if release is None:
        info = {"scheme": default_split_scheme(len(rows)), "seed": seed, "release": None}
    else:
        info = {"scheme": release.split_scheme, "seed": release.split_seed, "release": release.number}
    if release is not None and release.split_scheme == SplitScheme.KFOLD and release.split_folds:
        test_fold = seed % release.split_folds
        info.update(folds=release.split_folds, test_fold=test_fold)
        train = [r for r in rows if r.get("fold") != test_fold]
        test = [r for r in rows if r.get("fold") == test_fold]
    else:
        train = [r for r in rows if r["split"] == "train"]
        test = [r for r in rows if r["split"] == "test"]
    return {"train": train, "test": test, "split": info}
