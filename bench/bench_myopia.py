"""Myopia weights for the 2,000 ChLGBT sample posts vs bare jieba.posseg tokenisation.

    python bench/bench_myopia.py    (reads ../shared/data/chlgbt/chlgbt_sample.csv)
"""
from __future__ import annotations

import json
import time

from common import SAMPLE


def main() -> dict:
    import jieba
    import jieba.posseg

    from modeling.maam.data import read_chlgbt_csv
    from modeling.maam.myopia import Myopia

    texts = read_chlgbt_csv(SAMPLE).texts
    jieba.setLogLevel(60)
    tokenizer = jieba.posseg.POSTokenizer(jieba.Tokenizer())
    tokenizer.tokenizer.initialize()
    myopia = Myopia()
    for text in texts[:50]:  # warm both
        list(tokenizer.cut(text))
        myopia.weigh_all(text)
    best_jieba = best_myopia = best_one = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for text in texts:
            list(tokenizer.cut(text))
        best_jieba = min(best_jieba, time.perf_counter() - start)
        start = time.perf_counter()
        for text in texts:
            myopia.weigh(text, "explicit")
        best_one = min(best_one, time.perf_counter() - start)
        start = time.perf_counter()
        for text in texts:
            myopia.weigh_all(text)
        best_myopia = min(best_myopia, time.perf_counter() - start)
    results = {"posts": len(texts), "jieba_posseg_s": best_jieba, "myopia_one_dimension_s": best_one,
               "myopia_three_dimensions_s": best_myopia, "ratio_one_dimension": best_one / best_jieba,
               "ratio_three_dimensions": best_myopia / best_jieba}
    print(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
