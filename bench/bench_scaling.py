"""How "next" and "submit" scale with the batch: median and p95 of assignment_next and
judgment_submit (in-process, one client, PostgreSQL) on batches of 2,000, 8,120 and 50,000 posts
with k = 6 and 80% of the work done, beside the query the old code ran to pick a post (it counted
the live claims of every post in the batch). Prints a table, writes bench/bench_scaling.json and
the plot docs/bench_scaling.png.

    python bench/bench_scaling.py [--sizes 2000 8120 50000] [--steps 300] [--annotators 30]

Uses a scratch database (chlgbt_bench_scaling) that it creates and drops."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import time
from datetime import timedelta
from pathlib import Path

from common import PG_ADMIN_URL, ROOT, percentile, setup_django, synthetic_posts

DB_NAME = "chlgbt_bench_scaling"
K = 6
DONE = 0.8
SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


def populate(size: int, annotators, rng: random.Random):
    """A batch of `size` posts, k = 6, with 80% of its slots submitted (fewest claims first, as the
    queue hands them out), a few claims open now and a few expired ones not yet released."""
    from django.utils import timezone

    from annotation.assignment.services import claims_recount
    from annotation.models import Assignment, AssignmentStatus, Batch, Judgment, Post

    batch = Batch.objects.create(name=f"scaling-{size}", annotators_per_post=K)
    texts = [f"{size}:{t}" for t in synthetic_posts(size, seed=size)]
    Post.objects.bulk_create([Post(text=t, raw_text=t, text_sha256=hashlib.sha256(t.encode()).hexdigest(), batch=batch)
                              for t in texts], batch_size=5000)
    post_ids = list(batch.posts.order_by("id").values_list("pk", flat=True))
    # 80% of size * k slots: every post gets 4 judgments, then 80% of them a fifth (breadth first).
    per_post = {pid: 4 for pid in post_ids}
    for pid in post_ids[: int(round((DONE * K - 4) * size))]:
        per_post[pid] = 5
    now = timezone.now()
    assignments, judgments = [], []
    n = len(annotators)
    for pid in post_ids:
        start = rng.randrange(n)
        for j in range(per_post[pid]):
            who = annotators[(start + j) % n]
            assignments.append(Assignment(post_id=pid, annotator=who, assigned_at=now - timedelta(hours=2),
                                          completed_at=now, status=AssignmentStatus.SUBMITTED))
            judgments.append(Judgment(post_id=pid, annotator=who, explicit=rng.randint(1, 5), implicit=rng.randint(1, 5),
                                      emotional=rng.randint(1, 5), seconds_spent=10))
    Assignment.objects.bulk_create(assignments, batch_size=10000)
    Judgment.objects.bulk_create(judgments, batch_size=10000)
    # Claims in progress: some live, some left open past the timeout (released by the first "next").
    taken = {(a.post_id, a.annotator_id) for a in assignments}
    open_claims = []
    for pid in rng.sample(post_ids[len(post_ids) // 2:], 40):
        who = next(a for a in annotators if (pid, a.pk) not in taken)
        age = timedelta(minutes=45) if len(open_claims) % 4 == 0 else timedelta(minutes=5)
        open_claims.append(Assignment(post_id=pid, annotator=who, assigned_at=now - age))
        taken.add((pid, who.pk))
    Assignment.objects.bulk_create(open_claims)
    claims_recount(batch_id=batch.id)  # what a bulk import runs afterwards
    return batch


def old_candidate_query(batch, annotator):
    """The query assignment_next ran before issue 13: count every post's live claims, then sort."""
    from django.db.models import Count, Q
    from django.utils import timezone

    from annotation.models import Assignment, AssignmentStatus, Post

    cutoff = timezone.now() - timedelta(minutes=batch.assignment_timeout_minutes)
    live = Q(assignments__status=AssignmentStatus.SUBMITTED) | Q(
        assignments__status=AssignmentStatus.ASSIGNED, assignments__assigned_at__gte=cutoff)
    mine = Assignment.objects.filter(annotator=annotator, post__batch=batch)
    return list(Post.objects.filter(batch=batch).exclude(pk__in=mine.values("post_id"))
                .annotate(claims=Count("assignments", filter=live)).filter(claims__lt=batch.annotators_per_post)
                .order_by("claims", "id").values_list("pk", flat=True)[:20])


def backend_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by one PostgreSQL backend, from /proc (10 ms ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(batch, annotators, steps: int, warmup: int, rng: random.Random) -> dict:
    """Wall-clock latency per call, and CPU per call (this process + its PostgreSQL backend): on a
    shared machine the wall clock also counts waiting for a core, the CPU time does not."""
    from django.db import connection

    from annotation.assignment import services

    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    next_ms, submit_ms, old_ms = [], [], []
    cpu = {"next": 0.0, "submit": 0.0, "old": 0.0}
    for step in range(warmup + steps):
        who = annotators[step % len(annotators)]
        c0, b0, t0 = time.process_time(), backend_cpu(backend), time.perf_counter()
        item = services.assignment_next(annotator=who, batch_id=batch.id)
        c1, b1, t1 = time.process_time(), backend_cpu(backend), time.perf_counter()
        if item is None:
            continue
        services.judgment_submit(annotator=who, post_id=item.post_id, scores=SCORES, seconds_spent=3)
        c2, b2, t2 = time.process_time(), backend_cpu(backend), time.perf_counter()
        if step >= warmup:
            next_ms.append((t1 - t0) * 1000)
            submit_ms.append((t2 - t1) * 1000)
            cpu["next"] += (c1 - c0) + (b1 - b0)
            cpu["submit"] += (c2 - c1) + (b2 - b1)
    for _ in range(20):
        c0, b0, t0 = time.process_time(), backend_cpu(backend), time.perf_counter()
        old_candidate_query(batch, annotators[rng.randrange(len(annotators))])
        old_ms.append((time.perf_counter() - t0) * 1000)
        cpu["old"] += (time.process_time() - c0) + (backend_cpu(backend) - b0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM annotation_assignment a JOIN annotation_post p ON p.id = a.post_id "
                       "WHERE p.batch_id = %s", [batch.id])
        n_assignments = cursor.fetchone()[0]
    stat = lambda values, q: round(percentile(values, q), 2)  # noqa: E731
    return {"posts": batch.posts.count(), "assignments": n_assignments, "steps": len(next_ms),
            "next_median_ms": stat(next_ms, 50), "next_p95_ms": stat(next_ms, 95),
            "submit_median_ms": stat(submit_ms, 50), "submit_p95_ms": stat(submit_ms, 95),
            "old_pick_query_median_ms": stat(old_ms, 50),
            "next_cpu_ms_mean": round(cpu["next"] * 1000 / max(1, len(next_ms)), 2),
            "submit_cpu_ms_mean": round(cpu["submit"] * 1000 / max(1, len(submit_ms)), 2),
            "old_pick_query_cpu_ms_mean": round(cpu["old"] * 1000 / 20, 2)}


def plot(rows: list[dict], path) -> str:
    """docs/bench_scaling.png with plotly + kaleido when they are installed; else matplotlib; else none."""
    sizes = [r["posts"] for r in rows]
    series = [("next median", "next_median_ms"), ("next p95", "next_p95_ms"), ("submit median", "submit_median_ms"),
              ("submit p95", "submit_p95_ms"), ("CPU per next (mean)", "next_cpu_ms_mean"),
              ("old pick query (median)", "old_pick_query_median_ms")]
    try:
        import kaleido  # noqa: F401
        import plotly.graph_objects as go

        fig = go.Figure()
        for name, key in series:
            fig.add_scatter(x=sizes, y=[r[key] for r in rows], name=name, mode="lines+markers",
                            line={"dash": "dot"} if key.startswith("old") else None)
        fig.update_layout(title="next / submit latency vs batch size (k = 6, 80% done; PostgreSQL, in-process)",
                          xaxis={"title": "posts in the batch", "type": "log"},
                          yaxis={"title": "ms", "type": "log"}, width=900, height=500)
        fig.write_image(str(path))
        return "plotly+kaleido"
    except Exception as exc:  # kaleido missing or no browser for it
        plotly_error = exc
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(9, 5))
        for name, key in series:
            ax.plot(sizes, [r[key] for r in rows], marker="o", label=name, linestyle=":" if key.startswith("old") else "-")
        ax.set_xscale("log"), ax.set_yscale("log"), ax.set_xlabel("posts in the batch"), ax.set_ylabel("ms")
        ax.legend(), fig.savefig(path, dpi=100)
        return "matplotlib"
    except ImportError:
        print(f"no plot: plotly+kaleido failed ({plotly_error}) and matplotlib is not installed")
        return "none"


def main() -> list[dict]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8120, 50000])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--annotators", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args()
    setup_django(postgres=True, name=DB_NAME)
    from annotation.services import annotator_ensure

    rng = random.Random(13)
    annotators = [annotator_ensure(username=f"scale{i:02d}") for i in range(args.annotators)]
    rows = []
    try:
        for size in sorted(args.sizes):
            t0 = time.perf_counter()
            batch = populate(size, annotators, rng)
            from django.db import connection

            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            built = time.perf_counter() - t0
            row = measure(batch, annotators, args.steps, args.warmup, rng)
            row["built_s"] = round(built, 1)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            import psycopg

            with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    print("\n| Posts (k = 6, 80% done) | Assignments | next median / p95 | submit median / p95 | "
          "CPU per next / submit | old pick query: median, CPU |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['posts']:,} | {r['assignments']:,} | {r['next_median_ms']:.1f} / {r['next_p95_ms']:.1f} ms | "
              f"{r['submit_median_ms']:.1f} / {r['submit_p95_ms']:.1f} ms | "
              f"{r['next_cpu_ms_mean']:.1f} / {r['submit_cpu_ms_mean']:.1f} ms | "
              f"{r['old_pick_query_median_ms']:.0f} ms, {r['old_pick_query_cpu_ms_mean']:.0f} ms |")
    (ROOT / "bench" / "bench_scaling.json").write_text(json.dumps(rows, indent=1) + "\n")
    how = plot(rows, ROOT / "docs" / "bench_scaling.png")
    print(f"plot: docs/bench_scaling.png ({how})")
    return rows


if __name__ == "__main__":
    main()
