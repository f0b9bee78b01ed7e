"""Submit latency with 50 concurrent annotators against gunicorn + PostgreSQL on loopback.

    python bench/bench_submit.py [--annotators 50] [--per-annotator 20] [--workers 4]

Each simulated annotator (one thread, its own keep-alive connection and API token) asks for its
next item and submits it, as the browser page does. Reports p50/p95/p99 of the submit call and
checks that the database holds exactly the judgments the clients saw acknowledged."""
from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time

from common import ROOT, percentile, setup_django

PORT = 8765


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--per-annotator", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--think", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"),
                        help="seconds an annotator reads a post before submitting (0 0 = stress test)")
    args = parser.parse_args()
    setup_django(postgres=True, name="chlgbt_bench_http")

    from rest_framework.authtoken.models import Token

    from annotation.importing.services import import_posts
    from annotation.models import Assignment, Batch, Judgment
    from annotation.services import annotator_ensure
    from bench_common_posts import posts_csv

    import_posts(posts_csv(2000), batch_name="load")
    batch = Batch.objects.get(name="load")
    users = [annotator_ensure(username=f"load{i}") for i in range(args.annotators)]
    tokens = [Token.objects.create(user=u).key for u in users]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.base", "DJANGO_ALLOWED_HOSTS": "127.0.0.1"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "chlgbt_site.wsgi", "--bind", f"127.0.0.1:{PORT}",
                               "--workers", str(args.workers), "--log-level", "warning"], cwd=ROOT, env=env)
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT, timeout=1).request("GET", "/accounts/login/")
                break
            except OSError:
                time.sleep(0.2)
        latencies: list[float] = []
        next_latencies: list[float] = []
        acknowledged: list[tuple[int, str]] = []
        errors: list[str] = []
        lock = threading.Lock()

        def annotator(token: str, name: str):
            import random

            rng = random.Random(name)
            conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
            headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
            for _ in range(args.per_annotator):
                t0 = time.perf_counter()
                conn.request("POST", f"/api/queue/{batch.id}/next/", headers=headers)
                response = conn.getresponse()
                item = json.loads(response.read())
                t1 = time.perf_counter()
                if response.status != 200 or item["item"] is None:
                    with lock:
                        errors.append(f"next {response.status}")
                    return
                time.sleep(rng.uniform(*args.think))  # reading the post and pressing keys
                body = json.dumps({"item": item["item"], "explicit": 2, "implicit": 3, "emotional": 4, "seconds_spent": 3})
                t2 = time.perf_counter()
                conn.request("POST", "/api/judgments/", body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                t3 = time.perf_counter()
                with lock:
                    next_latencies.append(t1 - t0)
                    if response.status == 201:
                        latencies.append(t3 - t2)
                        acknowledged.append((item["item"], name))
                    else:
                        errors.append(f"submit {response.status}")

        threads = [threading.Thread(target=annotator, args=(tok, u.username)) for tok, u in zip(tokens, users)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=20)
    # The clients know their queue items (claims); a judgment is keyed by (annotator, post), as its claim is.
    claims = {(who, post): pk for pk, who, post in Assignment.objects.values_list("pk", "annotator_id", "post_id")}
    stored = {(claims[(who, post)], name) for who, post, name in
              Judgment.objects.values_list("annotator_id", "post_id", "annotator__username")}
    results = {
        "annotators": args.annotators, "submits": len(latencies), "errors": len(errors), "wall_s": wall,
        "throughput_submits_per_s": len(latencies) / wall,
        "submit_ms": {p: percentile(latencies, q) * 1000 for p, q in (("p50", 50), ("p95", 95), ("p99", 99))},
        "next_ms": {p: percentile(next_latencies, q) * 1000 for p, q in (("p50", 50), ("p95", 95), ("p99", 99))},
        "db_equals_acknowledged": stored == set(acknowledged), "gunicorn_workers": args.workers,
        "think_s": list(args.think),
    }
    print(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
