"""LLM baseline client throughput (issue 28): 1,000 test posts against an OpenAI-compatible endpoint on
loopback that takes 200 ms per answer, at the default concurrency (settings.LLM_CONCURRENCY).
Target: <= 30 s wall. Reports requests per second, the workbench's own CPU per request (its process
only: the endpoint runs in another process), and a second run answered by the cache.

    python bench/bench_llm.py                     # 2,000 posts (1,000 train / 1,000 test), writes bench/bench_llm.json
    python bench/bench_llm.py --posts 40 --delay 0.01 --out /tmp/x.json    # the small run CI does
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import common

SERVER = """
import sys, time
sys.path.insert(0, {root!r})
from tests.llm.openai_server import OpenAIServer
with OpenAIServer(delay={delay}) as server:
    print(server.url, flush=True)
    sys.stdin.read()  # until the bench closes our stdin
"""


def csv_for(n: int) -> bytes:
    import random

    rng = random.Random(0)
    lines = ["Sentences,Explicit,Implicit,Emotional"]
    for text in common.synthetic_posts(n):
        lines.append(f"{text},{rng.randint(1, 5)},{rng.randint(1, 5)},{rng.randint(1, 5)}")
    return ("\n".join(lines) + "\n").encode()


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=2000, help="labelled posts (the paper's split: half test up to 2,000)")
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the endpoint takes per answer")
    parser.add_argument("--concurrency", type=int, default=None, help="default: settings.LLM_CONCURRENCY")
    parser.add_argument("--out", default=str(Path(__file__).with_name("bench_llm.json")))
    args = parser.parse_args()
    database = common.setup_django(False, name="chlgbt_bench_llm")
    from django.conf import settings

    from annotation.importing.services import import_posts
    from annotation.releases.services import release_publish
    from llm import services
    from llm.models import LLMRun

    import_posts(csv_for(args.posts), with_labels=True)
    release = release_publish(bootstrap=0, split="paper")
    server = subprocess.Popen([sys.executable, "-c", SERVER.format(root=str(common.ROOT), delay=args.delay)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=common.ROOT)
    try:
        url = server.stdout.readline().strip()
        concurrency = args.concurrency or settings.LLM_CONCURRENCY
        # A worker imports the client library once: warm the process with one request, timed apart.
        from llm.client import ChatClient

        wall0 = time.perf_counter()
        client = ChatClient(base_url=url, api_key="not-needed", model="warm-up")
        client.complete([{"role": "user", "content": "warm-up"}], temperature=0.0, seed=0, max_tokens=8)
        client.close()
        warm_up = time.perf_counter() - wall0
        timings = []
        for label in ("cold", "cached"):
            run = services.llm_run_launch(created_by=None, release_id=release.pk, endpoint=url, model_name="bench",
                                          runs=1, concurrency=concurrency, enqueue=False)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            run = services.llm_run_execute(run_id=run.pk)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
            assert run.status == LLMRun.Status.SUCCEEDED, run.error
            timings.append({"run": label, "answers": run.n_test, "requests": run.requests_sent,
                            "cache_hits": run.cache_hits, "unparsed": run.unparsed, "wall_s": round(wall, 2),
                            "requests_per_s": round(run.requests_sent / wall, 1) if run.requests_sent else None,
                            "workbench_cpu_s": round(cpu, 2),
                            "workbench_cpu_ms_per_request": round(1000 * cpu / run.requests_sent, 2)
                            if run.requests_sent else None})
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    results = {"database": database, "test_posts": timings[0]["answers"], "endpoint_delay_s": args.delay,
               "concurrency": concurrency, "target_wall_s": 30.0, "process_warm_up_s": round(warm_up, 2), "cold": timings[0], "cached": timings[1],
               "ideal_wall_s": round(timings[0]["answers"] * args.delay / concurrency, 2),
               "machine": f"{os.cpu_count()} cores, shared", "load_average": os.getloadavg()[0]}
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
