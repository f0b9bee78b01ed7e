"""What earns a place in the best-offline preset (issue 23, item 3; docs/best_offline.md).

No posts outside the shared file exist here, so "trained on the whole file, scored on posts outside
it" is measured with held-out folds of the file: K outer stratified folds; in each, every candidate
is trained on the other folds only (its own choices - stacker, offsets - made by inner folds of
those training posts), and scored on the held-out fold. Candidates share the base models:

* hybrid baseline (the reference), char-ngram baseline
* + per-class decision offsets (tuned for macro-F1 on inner out-of-fold predictions)
* stacking over the three dimensions' out-of-fold log-probabilities (hybrid only)
* the same stacker with the char-ngram model's probabilities too (an ensemble)
* each stacker + offsets

    python bench/bench_best_offline.py [--outer 5] [--inner 5] [--out docs/best_offline.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT.parent / "shared" / "data" / "chlgbt" / "chlgbt_sample.csv"
DIMS = ("explicit", "implicit", "emotional")


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--outer", type=int, default=5)
    parser.add_argument("--inner", type=int, default=5)
    parser.add_argument("--folds-run", type=int, help="run only the first N outer folds (time)")
    parser.add_argument("--only-fold", type=int, help="run this outer fold only (one lock hold per fold)")
    parser.add_argument("--merge", nargs="+", help="merge per-fold result files into one summary")
    parser.add_argument("--backbones", nargs="+", default=["hybrid", "char-ngram"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    args = parser.parse_args()
    import numpy as np

    if args.merge:
        parts = [json.loads(Path(f).read_text()) for f in args.merge]
        scores: dict = {}
        for part in parts:
            for name, per in part["per_fold"].items():
                for d, values in per.items():
                    scores.setdefault(name, {k: [] for k in DIMS})[d].extend(values)
        result = {**{k: parts[0][k] for k in ("posts", "outer_folds", "inner_folds")}, "folds_run": len(parts),
                  "seconds": sum(p["seconds"] for p in parts), "summary": summarise(scores), "per_fold": scores,
                  "chosen": [p.get("chosen") for p in parts]}
        print(json.dumps(result["summary"], indent=1))
        if args.out:
            Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
        return result

    from modeling.maam.backbones import WeightedText, make_backbone
    from modeling.maam.data import read_chlgbt_csv
    from modeling.maam.metrics import macro_f1
    from modeling.maam.stacking import Stacker, apply_offsets, choose, log_features, stacked_oof, tune_offsets
    from modeling.maam.train import fold_indices

    if not SAMPLE.exists():
        sys.exit(f"needs the ChLGBT sample at {SAMPLE}")
    corpus = read_chlgbt_csv(SAMPLE)
    n = len(corpus.texts)
    inputs = [WeightedText.plain(t) for t in corpus.texts]
    y = {d: np.asarray(corpus.labels[d], dtype=int) for d in DIMS}
    outer = fold_indices(y["explicit"], args.seed, args.outer)
    labels = [1, 2, 3, 4, 5]
    scores: dict[str, dict[str, list[float]]] = {}
    chosen: dict[str, dict[str, list[str]]] = {}
    started = time.time()

    def record(name, d, test_idx, p):
        scores.setdefault(name, {k: [] for k in DIMS})[d].append(macro_f1(y[d][test_idx], p.argmax(1) + 1, labels))

    for f, test_idx in enumerate(outer[: args.folds_run or args.outer]):
        if args.only_fold is not None and f != args.only_fold:
            continue
        train_idx = np.setdiff1d(np.arange(n), test_idx)
        inner = fold_indices(y["explicit"][train_idx], args.seed, args.inner)
        oof, test = {}, {}
        for b in args.backbones:
            for d in DIMS:
                yt = y[d][train_idx]
                oof[(b, d)] = np.zeros((len(train_idx), 5))
                for held in inner:
                    rest = np.setdiff1d(np.arange(len(train_idx)), held)
                    m = make_backbone(b, seed=args.seed)
                    m.fit([inputs[train_idx[i]] for i in rest], yt[rest])
                    oof[(b, d)][held] = m.predict_proba([inputs[train_idx[i]] for i in held])
                m = make_backbone(b, seed=args.seed)
                m.fit([inputs[i] for i in train_idx], yt)
                test[(b, d)] = m.predict_proba([inputs[i] for i in test_idx])
                print(f"fold {f}: {b} {d} done ({time.time() - started:.0f} s)", file=sys.stderr, flush=True)
        main_b = args.backbones[0]
        for b in args.backbones:
            for d in DIMS:
                record(f"{b} baseline", d, test_idx, test[(b, d)])
                off = tune_offsets(oof[(b, d)], y[d][train_idx])
                record(f"{b} + offsets", d, test_idx, apply_offsets(test[(b, d)], off))
                record(f"{b} + other dimensions (stacked)", d, test_idx, Stacker().fit(
                    log_features([oof[(b, e)] for e in DIMS]), y[d][train_idx]).predict_proba(
                    log_features([test[(b, e)] for e in DIMS])))
        combos = {"stack: hybrid, 3 dimensions": [main_b],
                  "stack: ensemble (" + " + ".join(args.backbones) + "), 3 dimensions": list(args.backbones)}
        for name, names in combos.items():
            if len(names) > 1 and len(args.backbones) < 2:
                continue
            f_train = log_features([oof[(names[0], e)] for e in DIMS] + [oof[(b, e)] for e in DIMS for b in names[1:]])
            f_test = log_features([test[(names[0], e)] for e in DIMS] + [test[(b, e)] for e in DIMS for b in names[1:]])
            for d in DIMS:
                yt = y[d][train_idx]
                stacker = Stacker().fit(f_train, yt)
                p = stacker.predict_proba(f_test)
                record(name, d, test_idx, p)
                held = stacked_oof(f_train, yt, inner, stacker.C, 5)
                record(name + " + offsets", d, test_idx, apply_offsets(p, tune_offsets(held, yt)))
            # what the preset does: per dimension, keep whichever candidate wins on inner folds
            for d in DIMS:
                yt = y[d][train_idx]
                choice = choose(oof[(names[0], d)], f_train, yt, inner)
                p = choice.stacker.predict_proba(f_test) if choice.stacker is not None else test[(names[0], d)]
                record("per-dimension choice: " + " + ".join(names), d, test_idx, apply_offsets(p, choice.offsets))
                chosen.setdefault(" + ".join(names), {}).setdefault(d, []).append(choice.name)
            # ensemble by averaging (no stacker) for reference
            if len(names) > 1:
                for d in DIMS:
                    record("average: " + " + ".join(names), d, test_idx, np.mean([test[(b, d)] for b in names], axis=0))
        partial = summarise(scores)
        print(json.dumps({"fold": f, "partial": partial}, indent=None)[:2000], file=sys.stderr, flush=True)
    result = {"posts": n, "outer_folds": args.outer, "folds_run": args.folds_run or args.outer, "inner_folds": args.inner,
              "seconds": round(time.time() - started), "summary": summarise(scores), "per_fold": scores,
              "chosen": chosen}
    print(json.dumps(result["summary"], indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


def summarise(scores: dict) -> dict:
    import numpy as np
    from scipy import stats

    ref = scores.get("hybrid baseline")
    out = {}
    for name, per in scores.items():
        means = {d: round(float(np.mean(v)), 4) for d, v in per.items()}
        entry = {**means, "mean": round(float(np.mean(list(means.values()))), 4)}
        if ref and name != "hybrid baseline" and len(per["explicit"]) > 1:
            diffs = np.concatenate([np.asarray(per[d]) - np.asarray(ref[d]) for d in DIMS])
            entry["delta_vs_hybrid"] = {d: round(float(np.mean(np.asarray(per[d]) - np.asarray(ref[d]))), 4) for d in DIMS}
            entry["p_paired"] = round(float(stats.ttest_rel(np.concatenate([per[d] for d in DIMS]),
                                                            np.concatenate([ref[d] for d in DIMS])).pvalue), 4) \
                if np.any(diffs) else 1.0
        out[name] = entry
    return out


if __name__ == "__main__":
    main()
