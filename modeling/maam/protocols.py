"""Evaluation that matches use (issue 23; `python -m modeling.maam protocols`, `make eval`):

* the paper's protocol - 1,000 training posts, the rest test, several seeds;
* stratified k-fold over all posts - what a group training on a release gets;
* per-topic scores of the k-fold's held-out predictions (topics.py keyword map);
* leave-one-topic-out - trained on every other topic, tested on the one left out;

for a list of candidates (backbone and variant, or a preset), with paired t-tests against a
reference candidate across seeds / folds / topics."""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from .metrics import macro_f1
from .taxonomy import DIMENSIONS
from .topics import OTHER, TopicMap
from .train import TrainConfig, fold_indices, preset_config, split_indices, train

LABELS = [1, 2, 3, 4, 5]
# Settings of a protocols run that every candidate shares, presets included.
# (Not --params: those are for BACKBONE:VARIANT candidates; a preset keeps its own backbone settings.)
RUN_WIDE = ("seed", "folds", "device", "parser")


@dataclass
class Candidate:
    name: str
    config: TrainConfig


def parse_candidate(spec: str, base: TrainConfig, parse_options: Callable[[str], dict] | None = None) -> Candidate:
    """'BACKBONE:VARIANT' (settings of `base`, e.g. hybrid:full), 'BACKBONE:VARIANT:KEY=VALUE,...' (with
    options on top, read by `parse_options`, e.g. use-m3-ft:full:fusion_tuning=dev) or 'preset:NAME'."""
    head, _, tail = spec.partition(":")
    if head == "preset":  # the preset as is, with the run-wide settings of `base` (folds, seed, device, ...)
        config = preset_config(tail, **{k: getattr(base, k) for k in RUN_WIDE})
        config.validate()
        return Candidate(f"{tail} preset", config)
    variant, _, options = tail.partition(":")
    if variant not in ("baseline", "astigmatism", "myopia", "full"):
        raise ValueError(f"bad candidate {spec!r}: use BACKBONE:VARIANT (e.g. hybrid:full) or preset:NAME")
    if options and parse_options is None:
        raise ValueError(f"bad candidate {spec!r}: options are not accepted here")
    # A plain BACKBONE:VARIANT is that backbone and variant, never a stacked model: a base taken from
    # --preset best-offline keeps its fusion settings here, not its stacker or offsets.
    extra = {"stack": False, "stack_backbones": (), "offsets": False,
             **(parse_options(options) if options else {})}
    config = replace(base, backbone=head, variant=variant, **extra)
    config.validate()
    return Candidate(f"{head} {variant}" + (f" ({options})" if options else ""), config)


def fit_predict(config: TrainConfig, texts: Sequence[str], labels: dict[str, Sequence[int]],
                test_texts: Sequence[str]) -> dict[str, np.ndarray]:
    model = train(list(texts), {d: list(v) for d, v in labels.items()}, config)
    predictions = model.predict(list(test_texts))
    return {d: np.asarray(p["labels"]) for d, p in predictions.items()}


def scores_of(y: dict[str, np.ndarray], pred: dict[str, np.ndarray], idx=None) -> dict[str, float]:
    out = {}
    for d in DIMENSIONS:
        yt, yp = (y[d], pred[d]) if idx is None else (y[d][idx], pred[d][idx])
        out[d] = macro_f1(yt, yp, LABELS)
    out["mean"] = float(np.mean([out[d] for d in DIMENSIONS]))
    return out


def paired_p(a: Sequence[float], b: Sequence[float]) -> float | None:
    from scipy import stats

    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 2 or np.allclose(a, b):
        return None
    return float(stats.ttest_rel(a, b).pvalue)


def run_protocols(texts: Sequence[str], labels: dict[str, Sequence[int]], candidates: list[Candidate],
                  seeds: Sequence[int] = (0, 1, 2), folds: int = 5, topics: TopicMap | None = None,
                  min_topic_posts: int = 100, protocols: Sequence[str] = ("paper", "kfold", "loto"),
                  log: Callable[[str], None] = lambda msg: None, paper_train: int = 1000) -> dict:
    """Every protocol for every candidate: per split, macro-F1 per dimension and their mean."""
    topics = topics or TopicMap.default()
    y = {d: np.asarray(labels[d], dtype=int) for d in DIMENSIONS}
    n = len(texts)
    topic_of = np.asarray(topics.assign(texts))
    result: dict = {"n": n, "paper_train": paper_train, "candidates": [c.name for c in candidates], "seeds": list(seeds), "folds": folds,
                    "topics": {t: int((topic_of == t).sum()) for t in topics.names()}, "seconds": {}}

    def run(train_idx, test_idx, tag):
        out = {}
        for c in candidates:
            started = time.time()
            pred = fit_predict(replace(c.config), [texts[i] for i in train_idx],
                               {d: y[d][train_idx] for d in DIMENSIONS}, [texts[i] for i in test_idx])
            out[c.name] = pred
            result["seconds"][c.name] = result["seconds"].get(c.name, 0) + round(time.time() - started, 1)
            log(f"{tag}: {c.name} ({time.time() - started:.0f} s)")
        return out

    if "paper" in protocols:
        result["paper"] = {c.name: [] for c in candidates}
        for s in seeds:
            tr, te = split_indices(n, s, paper_train)
            preds = run(tr, te, f"paper seed {s}")
            for c in candidates:
                result["paper"][c.name].append(scores_of({d: y[d][te] for d in DIMENSIONS}, preds[c.name]))
    if "kfold" in protocols:
        result["kfold"] = {c.name: [] for c in candidates}
        pooled = {c.name: {d: np.zeros(n, dtype=int) for d in DIMENSIONS} for c in candidates}
        for f, held in enumerate(fold_indices(y["explicit"], 0, folds)):
            rest = np.setdiff1d(np.arange(n), held)
            preds = run(rest, held, f"fold {f}")
            for c in candidates:
                result["kfold"][c.name].append(scores_of({d: y[d][held] for d in DIMENSIONS}, preds[c.name]))
                for d in DIMENSIONS:
                    pooled[c.name][d][held] = preds[c.name][d]
        result["by_topic"] = {c.name: {t: scores_of(y, pooled[c.name], topic_of == t)
                                       for t in topics.names() if (topic_of == t).sum()} for c in candidates}
    if "loto" in protocols:
        result["loto"] = {c.name: {} for c in candidates}
        for t in topics.names():
            members = topic_of == t
            if t == OTHER or members.sum() < min_topic_posts:
                continue
            preds = run(np.flatnonzero(~members), np.flatnonzero(members), f"leave out {t}")
            for c in candidates:
                result["loto"][c.name][t] = scores_of({d: y[d][members] for d in DIMENSIONS}, preds[c.name])
    return result


def _cells(values: list[dict]) -> list[str]:
    return [f"{np.mean([v[d] for v in values]):.3f}±{np.std([v[d] for v in values]):.3f}" if len(values) > 1
            else f"{values[0][d]:.3f}" for d in (*DIMENSIONS, "mean")]


def protocols_markdown(result: dict, reference: str) -> str:
    names = result["candidates"]
    lines: list[str] = []

    def table(rows: dict[str, list[dict]], unit: str) -> None:
        lines.extend(["| Candidate | Exp. F1 | Imp. F1 | Emo. F1 | Mean | Δ mean vs " + reference + " | p (paired, " + unit + ") |",
                      "|---|---|---|---|---|---|---|"])
        ref = [v["mean"] for v in rows[reference]]
        for name in names:
            mine = [v["mean"] for v in rows[name]]
            p = paired_p(mine, ref) if name != reference else None
            delta = f"{np.mean(mine) - np.mean(ref):+.3f}" if name != reference else "-"
            lines.append(f"| {name} | " + " | ".join(_cells(rows[name])) + f" | {delta} | "
                         + ("-" if p is None else f"{p:.3f}") + " |")
        lines.append("")

    if "paper" in result:
        lines += [f"## The paper's protocol ({result['paper_train']} training posts, the other "
                  f"{result['n'] - result['paper_train']} test; "
                  f"seeds {', '.join(map(str, result['seeds']))})", ""]
        table(result["paper"], "seeds")
    if "kfold" in result:
        lines += [f"## Stratified {result['folds']}-fold over all {result['n']} posts (what a group training on a "
                  "release gets)", ""]
        table(result["kfold"], "folds")
        lines += ["### Per topic (the k-fold's held-out predictions; topic from the keyword map, docs/topics.md)", "",
                  "Mean macro-F1 over the three dimensions (Exp / Imp / Emo in brackets).", "",
                  "| Topic (posts) | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for t, count in result["topics"].items():
            if not count:
                continue
            cells = []
            for name in names:
                s = result["by_topic"][name].get(t)
                cells.append(f"{s['mean']:.3f} ({s['explicit']:.3f} / {s['implicit']:.3f} / {s['emotional']:.3f})"
                             if s else "-")
            lines.append(f"| {t} ({count}) | " + " | ".join(cells) + " |")
        lines.append("")
    if "loto" in result:
        left = list(next(iter(result["loto"].values())))
        lines += ["## Leave one topic out (trained on every other topic, tested on the one left out)", "",
                  "| Topic left out (posts) | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for t in left:
            lines.append(f"| {t} ({result['topics'][t]}) | " + " | ".join(
                f"{result['loto'][name][t]['mean']:.3f}" for name in names) + " |")
        lines.append("")
        table({name: [result["loto"][name][t] for t in left] for name in names}, "topics")
    return "\n".join(lines)
