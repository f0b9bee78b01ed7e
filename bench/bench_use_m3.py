"""use-m3 on this machine: posts per second for token states (cold cache) and the wall time of
one `use-m3` training run (variant full, preset paper: Myopia weighting, encoding, C-I-S inference,
cross-fitted fusion search, final refit) on 1,000
posts. Reads the ChLGBT sample when ../shared is present, else the project's synthetic posts.

    python bench/bench_use_m3.py [--posts 1000]
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
    parser.add_argument("--posts", type=int, default=1000)
    args = parser.parse_args()
    from modeling.maam.data import read_chlgbt_csv
    from modeling.maam.train import preset_config, train
    from modeling.maam.use_m3 import UseM3Encoder, shared_encoder

    if not SAMPLE.exists():
        sys.exit(f"needs the ChLGBT sample at {SAMPLE} (labels are needed to train)")
    corpus = read_chlgbt_csv(SAMPLE)
    texts = corpus.texts[: args.posts]
    labels = {d: v[: args.posts] for d, v in corpus.labels.items()}
    encoder = UseM3Encoder()
    started = time.perf_counter()
    encoder.token_states(texts)
    encode_s = time.perf_counter() - started
    shared_encoder()  # the training run below starts with its own empty cache
    started = time.perf_counter()
    # The paper's reading with use-m3: 5-fold cross-fitted fusion search, USE-embedding C-I-S inference.
    train(texts, labels, preset_config("paper", variant="full", backbone="use-m3", seed=0))
    train_s = time.perf_counter() - started
    result = {"posts": len(texts), "cpu_cores": os.cpu_count(), "token_states_s": round(encode_s, 2),
              "token_states_posts_per_s": round(len(texts) / encode_s, 1),
              "train_full_use_m3_s": round(train_s, 2)}
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
