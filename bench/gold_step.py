"""The gold plan's cost on the scoring step (issue 27 review): a 3,000-post batch at 80% done with
gold_rate 0.05 and a pool of gold items, on PostgreSQL (never analysed, as bench/hot_path.py). Times
`gold_plan` alone and the whole one-request step (the real view, test client), ms per call, and
prints each statement gold_plan sends with its EXPLAIN (ANALYZE, BUFFERS) rows and pages.

    .venv/bin/python bench/gold_step.py [--posts 3000] [--gold 200] [--db chlgbt_gold_step]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import setup_django  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=3000)
    parser.add_argument("--annotators", type=int, default=30)
    parser.add_argument("--gold", type=int, default=200)
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--db", default="chlgbt_gold_step")
    parser.add_argument("--plans", action="store_true", help="print each statement and its whole plan")
    args = parser.parse_args()
    setup_django(postgres=True, name=args.db)
    from bench_scaling import populate
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from annotation.models import Batch
    from annotation.quality import services as quality
    from annotation.services import annotator_ensure

    rng = random.Random(0)
    annotators = [annotator_ensure(username=f"gs{i:02d}") for i in range(args.annotators)]
    batch = populate(args.posts, annotators, rng)
    lines = ["Sentences,Explicit,Implicit,Emotional"] + [f"gold step {i},3,2,1" for i in range(args.gold)]
    quality.gold_upload(data="\n".join(lines).encode(), filename="gold.csv")
    quality.batch_quality_set(batch_id=batch.pk, gold_rate=args.rate)
    batch = Batch.objects.get(pk=batch.pk)
    me = annotators[0]

    def plan_ms() -> list[float]:
        out = []
        for _ in range(args.calls):
            t0 = time.perf_counter()
            with transaction.atomic():
                quality.gold_plan(annotator=me, batch=batch)
            out.append((time.perf_counter() - t0) * 1000)
        return out

    plan_ms()  # warm
    plans = plan_ms()
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        quality.gold_plan(annotator=me, batch=batch)
        statements = [q["sql"] for q in ctx.captured_queries]
    print(f"gold_plan: {len(statements)} statements, p50 {statistics.median(plans):.2f} ms, "
          f"mean {statistics.mean(plans):.2f} ms ({args.calls} calls)")
    with connection.cursor() as cursor:
        for sql in statements:
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            with transaction.atomic():
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
                plan = cursor.fetchone()[0][0]
            top = plan["Plan"]
            pages = top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0)
            print(f"  {plan['Execution Time']:.3f} ms · {pages} pages · {sql[:150]}")
            if args.plans:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
                print(sql, "\n", "\n".join(r[0] for r in cursor.fetchall()))
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(me)
    item = client.post(f"/api/queue/{batch.id}/next/").json()["item"]
    steps = []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        response = client.post(f"/api/queue/{batch.id}/submit/", {"item": item, "explicit": 1, "implicit": 2,
                                                                  "emotional": 3}, content_type="application/json")
        steps.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 201, response.content[:300]
        item = response.json()["next"]["item"]
    print(f"step (POST submit, the real view): p50 {statistics.median(steps):.2f} ms, "
          f"mean {statistics.mean(steps):.2f} ms ({args.calls} steps)")


if __name__ == "__main__":
    main()
