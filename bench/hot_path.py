"""Every statement of one scoring step, with its plan: the one-request step
(`POST /api/queue/<batch>/submit/`, middleware included) through Django's test client on PostgreSQL,
on a batch of 3,000 posts, 30 annotators, 80% done, on a database that has never been analysed
(as an import leaves it where autovacuum is off or has not run yet).

    python bench/hot_path.py [--posts 3000] [--annotators 30] [--steps 60] [--json-out hot_path.json]
                             [--markdown-out FILE] [--analyze]

For each statement of the last measured step: what it is for, EXPLAIN (ANALYZE, BUFFERS) run again
afterwards inside a transaction that is rolled back (execution time, shared buffers touched, the
plan's top nodes). Over all measured steps: statements per step and the PostgreSQL backend's CPU per
step (from /proc). `--analyze` runs ANALYZE first, to compare with the plans statistics give.

Works on older checkouts too (PYTHONPATH=<old tree>): it only needs the step's URL."""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from pathlib import Path

from common import percentile, setup_django

# What each statement of the step is for, by a fragment of its text (first match wins).
PURPOSES = [
    ("django_session", "session (SessionMiddleware)"),
    ("AS role_", "user and roles (RoleReadingBackend.get_user, AuthenticationMiddleware)"),
    ("auth_user", "user (AuthenticationMiddleware)"),
    ("wellbeing_", "queue gate: content notice, daily cap (wellbeing QueueGate)"),
    ("INSERT INTO \"annotation_judgment\"", "the judgment (INSERT ... ON CONFLICT DO NOTHING)"),
    ("INSERT INTO annotation_judgment", "the judgment (INSERT ... ON CONFLICT DO NOTHING)"),
    ("UPDATE annotation_assignment SET status", "the claim marked submitted"),
    ("UPDATE \"annotation_assignment\" SET \"status\"", "the claim marked submitted"),
    ("UPDATE annotation_batchprogress", "progress counter (+1 submitted)"),
    ("UPDATE \"annotation_batchprogress\"", "progress counter (+1 submitted)"),
    ("WITH claim AS", "the new claim and the post's live-claim counter (one statement)"),
    ("ORDER BY p.live_claims", "the pick: next post with room, locked (claim_candidates_sql)"),
    ("SELECT id, live_claims FROM annotation_post", "the post's row lock"),
    ("WHERE a.post_id = %s", "the post's claims (post_claims)"),
    ("a.post_id =", "the post's claims (post_claims)"),
    ("SELECT b.id, b.name", "claim context: batch, membership, open claims, open gold"),
    ("SELECT a.id, a.post_id, a.status, a.lapsed", "the claim being answered, its batch, the guideline"),
    ("SELECT bp.submitted", "progress and guideline version (queue_item)"),
    ("annotation_golditem", "gold plan (quality)"),
    ("annotation_batchquality", "batch quality settings"),
    ("SAVEPOINT", "savepoint"),
    ("RELEASE SAVEPOINT", "savepoint release"),
]


def purpose(sql: str) -> str:
    for fragment, text in PURPOSES:
        if fragment in sql:
            return text
    return "?"


def backend_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def plan_nodes(plan: dict, depth: int = 0, out: list | None = None) -> list[str]:
    """The plan as indented node lines: type, relation/index, rows, loops."""
    out = [] if out is None else out
    label = plan["Node Type"]
    if plan.get("Index Name"):
        label += f" using {plan['Index Name']}"
    if plan.get("Relation Name"):
        label += f" on {plan['Relation Name']}"
    label += f" (rows={plan.get('Actual Rows')} loops={plan.get('Actual Loops')})"
    out.append("  " * depth + label)
    for child in plan.get("Plans", []):
        plan_nodes(child, depth + 1, out)
    return out


def _numbered(sql: str) -> str:
    """Django's %s placeholders as PostgreSQL's $1, $2, ... (for PREPARE)."""
    count = iter(range(1, 10_000))
    return re.sub(r"%(s|%)", lambda m: "%" if m.group(1) == "%" else f"${next(count)}", sql)


def _explain_json(cursor, statement: str) -> dict:
    cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + statement)
    (doc,) = cursor.fetchone()
    doc = doc[0] if isinstance(doc, list) else json.loads(doc)[0]
    plan = doc["Plan"]
    return {"execution_ms": round(doc["Execution Time"], 3), "planning_ms": round(doc.get("Planning Time", 0), 3),
            "shared_buffers": plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0),
            "plan": plan_nodes(plan)}


def explain(sql: str, params) -> dict | None:
    """EXPLAIN (ANALYZE, BUFFERS) of one statement, rolled back: with its values written in (the
    plan a one-off statement gets) and as the claim path runs it, a prepared statement with the
    generic plan (plan_cache_mode = force_generic_plan: what the server settles on after five runs)."""
    import psycopg
    from django.db import connection, transaction

    if not re.match(r"\s*(SELECT|WITH|UPDATE|INSERT|DELETE)", sql, re.I):
        return None
    out = {}
    literal = psycopg.ClientCursor(connection.connection).mogrify(sql, params or None)
    for mode in ("custom", "generic"):
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    if mode == "custom":
                        out[mode] = _explain_json(cursor, literal)
                    else:
                        args = ", ".join(psycopg.ClientCursor(connection.connection).mogrify("%s", [p])
                                         for p in (params or []))
                        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
                        cursor.execute(f"PREPARE hot_path_stmt AS {_numbered(sql)}")
                        out[mode] = _explain_json(cursor, f"EXECUTE hot_path_stmt({args})" if args else
                                                  "EXECUTE hot_path_stmt")
                raise _Rollback(None)
        except _Rollback:
            pass
        except Exception as exc:  # noqa: BLE001 - a statement that cannot be re-run alone is reported, not fatal
            out[mode] = {"error": str(exc).splitlines()[0]}
        with connection.cursor() as cursor:  # (a prepared statement outlives the rolled-back transaction)
            cursor.execute("SELECT name FROM pg_prepared_statements WHERE name = 'hot_path_stmt'")
            if cursor.fetchone():
                cursor.execute("DEALLOCATE hot_path_stmt")
    return out


def add_work(batch, annotators, rng: random.Random, done: float = 0.8) -> None:
    """Bring the batch to `done` of its k slots submitted, as bench_scaling.populate does, around the
    claims already made (the annotators' open items stay theirs)."""
    from datetime import timedelta

    from django.utils import timezone

    from annotation.assignment.services import claims_recount
    from annotation.models import Assignment, AssignmentStatus, Judgment

    k = batch.annotators_per_post
    held = {}
    for post_id, who in Assignment.objects.filter(post__batch=batch).values_list("post_id", "annotator_id"):
        held.setdefault(post_id, set()).add(who)
    post_ids = list(batch.posts.order_by("id").values_list("pk", flat=True))
    target = {pid: 4 for pid in post_ids}
    for pid in post_ids[: int(round((done * k - 4) * len(post_ids)))]:
        target[pid] = 5
    now = timezone.now() - timedelta(hours=2)
    claims, judgments = [], []
    for pid in post_ids:
        have = held.get(pid, set())
        free = [a for a in annotators if a.pk not in have]
        rng.shuffle(free)
        for who in free[: max(0, target[pid] - len(have))]:
            claims.append(Assignment(post_id=pid, annotator=who, assigned_at=now, completed_at=now,
                                     status=AssignmentStatus.SUBMITTED))
            judgments.append(Judgment(post_id=pid, annotator=who, explicit=2, implicit=2, emotional=2, seconds_spent=9))
    Assignment.objects.bulk_create(claims, batch_size=10000)
    Judgment.objects.bulk_create(judgments, batch_size=10000)
    claims_recount(batch_id=batch.id)


def _text_key(sql: str) -> str:
    """A statement's text with its placeholders (%s, $n) and whitespace folded, to match a logged plan."""
    return re.sub(r"\s+", " ", re.sub(r"%s|\$\d+", "?", sql)).strip()[:120]


def step_as_run(clients, items, batch_id: int, scores: dict) -> tuple[list, list[dict]]:
    """One more scoring step with auto_explain on (every statement, nested ones too, with ANALYZE
    and BUFFERS): per top-level statement, in order, its duration, the buffers it touched and its
    plan's node lines, as PostgreSQL ran it."""
    from django.db import connection

    i = next(n for n, item in enumerate(items) if item is not None)
    notices: list[str] = []
    with connection.cursor() as cursor:
        cursor.execute("LOAD 'auto_explain'")
        for name, value in (("auto_explain.log_min_duration", "0"), ("auto_explain.log_analyze", "on"),
                            ("auto_explain.log_buffers", "on"), ("auto_explain.log_nested_statements", "off"),
                            ("client_min_messages", "log")):
            cursor.execute("SELECT set_config(%s, %s, false)", [name, value])
    def handler(diagnostic):
        notices.append(diagnostic.message_primary or "")

    connection.connection.add_notice_handler(handler)
    seen: list = []
    with connection.execute_wrapper(_recorder(seen)):
        clients[i].post(f"/api/queue/{batch_id}/submit/", {"item": items[i], **scores}, content_type="application/json")
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('auto_explain.log_min_duration', '-1', false)")
        cursor.execute("SELECT set_config('client_min_messages', 'notice', false)")
    connection.connection.remove_notice_handler(handler)
    runs = []
    for text in notices:
        if "plan:" not in text or "set_config" in text:
            continue
        duration = float(re.search(r"duration: ([\d.]+) ms", text).group(1))
        lines = text.split("\n")
        start = next((k for k, line in enumerate(lines) if re.match(r"\s*(->\s*)?[A-Z][A-Za-z ]+ ", line)
                      and "cost=" in line), len(lines))
        plan = [line for line in lines[start:] if "cost=" in line]
        buffers = re.search(r"Buffers: shared hit=(\d+)(?: read=(\d+))?", "\n".join(lines[start:]))
        query_text = " ".join(lines[1:start]).replace("Query Text: ", "", 1)
        runs.append({"key": _text_key(query_text), "duration_ms": duration, "shared_buffers": (int(buffers.group(1)) + int(buffers.group(2) or 0))
                     if buffers else 0,
                     "plan": [re.sub(r"\s*\(cost=.*?\)", "", re.sub(r"\(actual time=[^)]*\)", "", line)).rstrip()
                              for line in plan]})
    return seen, runs


def _recorder(seen: list):
    """A Django execute wrapper that notes each statement and its parameters."""
    def record(execute, sql, params, many, context):
        seen.append((sql, params))
        return execute(sql, params, many, context)
    return record


class _Rollback(Exception):
    def __init__(self, doc):
        self.doc = doc


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=3000)
    parser.add_argument("--annotators", type=int, default=30)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--analyze", action="store_true", help="ANALYZE the tables first")
    parser.add_argument("--plans-early", action="store_true",
                        help="as the load test (and production) meets it: the posts imported, a few steps "
                             "taken (the connection's prepared statements get their generic plans while the "
                             "claim tables are nearly empty), then the batch brought to 80%% done")
    parser.add_argument("--label", default="")
    parser.add_argument("--json-out")
    parser.add_argument("--markdown-out")
    args = parser.parse_args()
    setup_django(postgres=True, name="chlgbt_hot_path")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_scaling import populate
    from django.db import connection
    from django.test import Client

    from annotation.services import annotator_ensure

    rng = random.Random(0)
    annotators = [annotator_ensure(username=f"hp{i:02d}") for i in range(args.annotators)]
    if args.plans_early:
        from annotation.importing.services import import_posts
        from annotation.models import Batch
        from common import synthetic_posts

        import_posts(("Sentences\r\n" + "".join(f"{t}\r\n" for t in synthetic_posts(args.posts))).encode(),
                     batch_name="load")
        batch = Batch.objects.get(name="load")
    else:
        batch = populate(args.posts, annotators, rng)
    if args.analyze:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    clients, items = [], []
    for who in annotators:
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(who)
        response = client.post(f"/api/queue/{batch.id}/next/")
        assert response.status_code == 200, (response.status_code, response.content[:300])
        clients.append(client)
        items.append(response.json()["item"])
    if args.plans_early:
        for _ in range(3):  # plans made now, on nearly empty claim tables, stay with the connection
            for i, client in enumerate(clients):
                response = client.post(f"/api/queue/{batch.id}/submit/", {"item": items[i], "explicit": 1,
                                        "implicit": 1, "emotional": 1}, content_type="application/json")
                items[i] = response.json()["next"]["item"]
        add_work(batch, annotators, rng)
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    counts, pg_cpu_ms, wall_ms, last = [], [], [], None
    scores = {"explicit": 2, "implicit": 3, "emotional": 4, "seconds_spent": 3}
    for step in range(args.steps):
        i = step % len(clients)
        if items[i] is None:
            continue
        seen: list[tuple[str, object]] = []
        record = _recorder(seen)

        b0, t0 = backend_cpu(backend), time.perf_counter()
        with connection.execute_wrapper(record):  # as served: prepared statements, no debug cursor
            response = clients[i].post(f"/api/queue/{batch.id}/submit/", {"item": items[i], **scores},
                                       content_type="application/json")
        wall_ms.append((time.perf_counter() - t0) * 1000)
        pg_cpu_ms.append((backend_cpu(backend) - b0) * 1000)
        assert response.status_code == 201, (response.status_code, response.content[:300])
        items[i] = response.json()["next"]["item"]
        counts.append(len(seen) + 2)  # + BEGIN and COMMIT of the step's transaction
        last = seen
    # One more step with auto_explain: the plans the server ran, cached ones included (a statement
    # EXPLAINed afterwards gets a fresh plan, not the one this connection kept).
    last, as_run = step_as_run(clients, items, batch.id, scores)
    statements = []
    for sql, params in last:
        key = _text_key(sql)
        run = next((r for r in as_run if r["key"] == key), None)
        if run is not None:
            as_run.remove(run)
        statements.append({"purpose": purpose(sql), "sql": re.sub(r"\s+", " ", sql)[:400],
                           "as_run": run, "explain": explain(sql, params)})
    result = {"label": args.label, "posts": args.posts, "annotators": args.annotators, "analyzed": args.analyze,
              "steps": len(counts), "statements_per_step": {"min": min(counts), "max": max(counts)},
              "step_wall_ms": {"p50": round(percentile(wall_ms, 50), 2), "p95": round(percentile(wall_ms, 95), 2)},
              "postgres_cpu_ms_per_step": round(sum(pg_cpu_ms) / len(pg_cpu_ms), 2),
              **{f"statements_{mode}_execution_ms_sum": round(sum(
                  (s["explain"] or {}).get(mode, {}).get("execution_ms", 0) for s in statements), 3)
                 for mode in ("custom", "generic")},
              "statements": statements}
    print(json.dumps({k: v for k, v in result.items() if k != "statements"}, indent=1))
    for s in statements:
        print(f"- {s['purpose']}")
        for mode, e in (s["explain"] or {}).items():
            print(f"    {mode}: {e.get('execution_ms', '-')} ms, {e.get('shared_buffers', '-')} buffers "
                  f"{e.get('error', '')}")
            for line in e.get("plan", [])[:8]:
                print("      " + line)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1, ensure_ascii=False))
    if args.markdown_out:
        Path(args.markdown_out).write_text(markdown(result))
    return result


def markdown(result: dict) -> str:
    lines = [f"#### {result['label'] or 'this checkout'} ({result['posts']} posts, {result['annotators']} annotators, "
             f"{'analysed' if result['analyzed'] else 'never analysed'})", "",
             f"Statements per step (BEGIN and COMMIT included): {result['statements_per_step']['min']}–"
             f"{result['statements_per_step']['max']}; PostgreSQL backend CPU per step "
             f"{result['postgres_cpu_ms_per_step']} ms (as served: prepared statements); sum of the statements' "
             f"execution times {result['statements_custom_execution_ms_sum']} ms (custom plans) / "
             f"{result['statements_generic_execution_ms_sum']} ms (generic plans); step p50/p95 "
             f"{result['step_wall_ms']['p50']} / {result['step_wall_ms']['p95']} ms (in-process, test client).", "",
             "| # | Statement | As run: ms · buffers | EXPLAINed afresh (custom / generic): ms · buffers | "
             "Plan as run (top nodes) |",
             "|---|---|---|---|---|"]

    def cell(e: dict | None) -> str:
        if not e:
            return "–"
        return e["error"][:60] if "error" in e else f"{e['execution_ms']} · {e['shared_buffers']}"

    for n, s in enumerate(result["statements"], 1):
        e, run = s["explain"] or {}, s.get("as_run") or {}
        top = run.get("plan", [])[:7]
        plan = "<br>".join("&nbsp;" * (len(line) - len(line.lstrip())) + line.strip() for line in top)
        ran = f"{run['duration_ms']} · {run['shared_buffers']}" if run else "–"
        lines.append(f"| {n} | {s['purpose']} | {ran} | {cell(e.get('custom'))} / {cell(e.get('generic'))} | "
                     f"{plan or '–'} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
