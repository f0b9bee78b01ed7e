"""use-m3-ft on this machine: one fine-tuning run (variant baseline or full, all three dimensions)
on the ChLGBT sample, scored on held-out posts, with wall times and the recipe's history.

    python bench/bench_use_m3_ft.py [--train 1000] [--test 1000] [--variant baseline] [--epochs 4]
    python bench/bench_use_m3_ft.py --train 0          # every post of the file (no test; timing only)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT.parent / "shared" / "data" / "chlgbt" / "chlgbt_sample.csv"


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", type=int, default=1000, help="training posts (0: all)")
    parser.add_argument("--test", type=int, default=1000)
    parser.add_argument("--variant", default="baseline")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dimensions", nargs="+", default=["explicit", "implicit", "emotional"])
    parser.add_argument("--params", default="{}", help="extra recipe parameters as JSON")
    args = parser.parse_args()
    import numpy as np

    from modeling.maam.data import read_chlgbt_csv
    from modeling.maam.train import evaluate, preset_config, split_indices, train

    if not SAMPLE.exists():
        sys.exit(f"needs the ChLGBT sample at {SAMPLE} (labels are needed to train)")
    corpus = read_chlgbt_csv(SAMPLE)
    n = len(corpus.texts)
    if args.train:
        tr, te = split_indices(n, args.seed, args.train)
        te = te[: args.test]
    else:
        tr, te = np.arange(n), np.arange(0)
    pick = lambda idx: ([corpus.texts[i] for i in idx], {d: [corpus.labels[d][i] for i in idx] for d in args.dimensions})
    texts, labels = pick(tr)
    config = preset_config("paper", variant=args.variant, backbone="use-m3-ft", seed=args.seed,
                           dimensions=tuple(args.dimensions),
                           backbone_params={"epochs": args.epochs, **json.loads(args.params)})
    started = time.perf_counter()
    model = train(texts, labels, config)
    train_s = time.perf_counter() - started
    result = {"posts": len(texts), "cpu_cores": os.cpu_count(), "variant": args.variant, "train_s": round(train_s, 1),
              "history": {d: dm.backbone.history for d, dm in model.dims.items()}}
    if len(te):
        t_texts, t_labels = pick(te)
        metrics = evaluate(model, t_texts, t_labels)
        result["test_posts"] = len(t_texts)
        result["macro_f1"] = {d: {k: round(metrics[d][k]["macro_f1"], 4) for k in ("before", "after")} for d in metrics}
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
