"""Which posts a training run trains and is tested on (docs/splits.md): a release's own split, its
k-fold partition (seed s tests on fold s mod k), or, without a release, the current final labels
split the way a release of them would be by default."""
from __future__ import annotations

from annotation.models import Release, SplitScheme
from annotation.releases.files import PROVISIONAL, default_split_scheme
from annotation.releases.selectors import label_rows


def run_split(release: Release | None, seed: int = 0, include_provisional: bool = False) -> dict:
    """{"train": rows, "test": rows, "split": description, "provisional_dropped": {"train": n, "test": n}};
    each row carries id, text, labels. A release published with provisional labels (posts still being
    scored, marked `provisional`) has them dropped from both splits unless `include_provisional`: a
    model is trained and evaluated on finished labels only."""
    rows = label_rows(release=release, seed=seed)
    dropped = [r for r in rows if r.get(PROVISIONAL)] if not include_provisional else []
    if dropped:
        rows = [r for r in rows if not r.get(PROVISIONAL)]
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
    split_of = (lambda r: "test" if r.get("fold") == info["test_fold"] else "train") if "test_fold" in info \
        else (lambda r: r["split"])
    provisional_dropped = {part: sum(split_of(r) == part for r in dropped) for part in ("train", "test")}
    return {"train": train, "test": test, "split": info, "provisional_dropped": provisional_dropped}
