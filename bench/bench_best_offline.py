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
* with --cold DIR (issue 23, item 2; modeling/maam/cold_aux.py): COLD's offensive log-odds - from a
  classifier trained on COLD alone, computed once for every post (it never sees a ChLGBT label) - as
  an extra stacker column: own dimension + COLD, 3 dimensions + COLD, each + offsets, and the
  preset's per-dimension choice with the COLD column among its features

    python bench/bench_best_offline.py [--outer 5] [--inner 5] [--out docs/best_offline.json]
    # only the COLD rows next to the hybrid baseline and the current preset, kept in a section of
    # the existing results file:
    python bench/bench_best_offline.py --backbones hybrid --cold ../shared/data/cold \
        --out docs/best_offline.json --section cold_aux
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
    parser.add_argument("--cold", help="COLD directory (train.csv, dev.csv): add the COLD auxiliary-signal rows")
    parser.add_argument("--section", help="with --out: store this run under this key of the existing file")
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
                  "chosen": [p.get("chosen") for p in parts], "backbones": parts[0].get("backbones"),
                  "cold": parts[0].get("cold")}
        print(json.dumps(result["summary"], indent=1))
        write(result, args)
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
    cold = cold_report = None
    if args.cold:
        from modeling.maam.cold_aux import ColdAux

        aux = ColdAux(seed=args.seed).fit(args.cold)
        cold, cold_report = aux.feature(corpus.texts), {**aux.report, "seconds": round(time.time() - started)}
        print(f"COLD model: {cold_report}", file=sys.stderr, flush=True)

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
        combos = {"stack: hybrid, 3 dimensions": [main_b]}
        if len(args.backbones) > 1:  # with one backbone the "ensemble" would repeat the rows above
            combos["stack: ensemble (" + " + ".join(args.backbones) + "), 3 dimensions"] = list(args.backbones)
        for name, names in combos.items():
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
        if cold is not None:
            cold_rows(main_b, oof, test, cold, train_idx, test_idx, inner, y, record, chosen)
        partial = summarise(scores)
        print(json.dumps({"fold": f, "partial": partial}, indent=None)[:2000], file=sys.stderr, flush=True)
    result = {"posts": n, "outer_folds": args.outer, "folds_run": args.folds_run or args.outer, "inner_folds": args.inner,
              "seconds": round(time.time() - started), "summary": summarise(scores), "per_fold": scores,
              "chosen": chosen, "backbones": list(args.backbones), "cold": cold_report}
    print(json.dumps(result["summary"], indent=1))
    write(result, args)
    return result


def cold_rows(b, oof, test, cold, train_idx, test_idx, inner, y, record, chosen) -> None:
    """The COLD column next to the stacker's log-probabilities (own dimension only, or all three),
    each with and without offsets, and the preset's per-dimension choice given the COLD column."""
    import numpy as np

    from modeling.maam.stacking import Stacker, apply_offsets, choose, log_features, stacked_oof, tune_offsets

    c_train, c_test = cold[train_idx], cold[test_idx]
    for label, dims_of in (("hybrid + COLD (stacked, own dimension)", lambda d: [d]),
                           ("stack: hybrid, 3 dimensions + COLD", lambda d: list(DIMS))):
        for d in DIMS:
            yt = y[d][train_idx]
            f_train = np.hstack([log_features([oof[(b, e)] for e in dims_of(d)]), c_train])
            f_test = np.hstack([log_features([test[(b, e)] for e in dims_of(d)]), c_test])
            stacker = Stacker().fit(f_train, yt)
            p = stacker.predict_proba(f_test)
            record(label, d, test_idx, p)
            held = stacked_oof(f_train, yt, inner, stacker.C, 5)
            record(label + " + offsets", d, test_idx, apply_offsets(p, tune_offsets(held, yt)))
    f_train = np.hstack([log_features([oof[(b, e)] for e in DIMS]), c_train])
    f_test = np.hstack([log_features([test[(b, e)] for e in DIMS]), c_test])
    for d in DIMS:
        choice = choose(oof[(b, d)], f_train, y[d][train_idx], inner)
        p = choice.stacker.predict_proba(f_test) if choice.stacker is not None else test[(b, d)]
        record(f"per-dimension choice: {b} + COLD", d, test_idx, apply_offsets(p, choice.offsets))
        chosen.setdefault(f"{b} + COLD", {}).setdefault(d, []).append(choice.name)


def write(result: dict, args) -> None:
    """--out FILE: the result is the file; with --section NAME it goes under that key of the
    existing file, the rest of which is kept."""
    if not args.out:
        return
    path = Path(args.out)
    if args.section:
        existing = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        result = {**existing, args.section: result}
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")


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
