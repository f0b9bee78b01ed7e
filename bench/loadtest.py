"""Load test of the deployment shape, driven by Locust: gunicorn (several workers) + PostgreSQL +
Redis broker, the load generator on the same machine (its own CPU share is reported).

    python bench/loadtest.py --annotators 50 --duration 60
    python bench/loadtest.py --annotators 200 --duration 60
    python bench/loadtest.py --annotators 50 --duration 60 --think 0 0      # stress: no think time

Simulated annotators claim a post, read it (think time), then score it with the one-request step
(POST /api/queue/<batch>/submit/ answers with the next item), sometimes revise an earlier judgment
(~10%) or skip (~5%); two adjudicators poll the disagreement queue and open posts; a researcher
polls the agreement dashboard and the runs API. Locust (gevent, FastHttpUser) runs in this process;
it reports throughput, p50/p95/p99 per endpoint, the error rate, the CPU used by the generator,
gunicorn and PostgreSQL, and checks that the database holds exactly the judgments (and values) the
clients saw acknowledged. Pass --restart-postgres-at S to restart PostgreSQL S seconds in (the
database drill): clients retry 502/503/504 as the browser page does."""
from __future__ import annotations

import locust  # noqa: I001 - first: gevent patches the standard library before anything else loads

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import gevent
from locust import FastHttpUser, between, constant, task
from locust.env import Environment

from common import ROOT, SUBMIT_STEP, cpu_seconds, percentile, sessions_make, setup_django, synthetic_posts

PORT = 8766
DATABASE = "chlgbt_load"
PROBE = "probe"  # measures the step's statements after the run (its judgments are not the clients')
BASE = f"http://127.0.0.1:{PORT}"
PASSWORD = "load-test-password-1"
RETRIED = (502, 503, 504)


class Shared:
    """What the simulated people share with the checker (one process, gevent: no locks needed)."""

    batch_id = 0
    think = (1.0, 3.0)
    names: list[str] = []
    acknowledged: dict[tuple[str, int], tuple] = {}
    sessions: dict[str, tuple[str, str]] = {}  # username -> (session key, CSRF secret)
    retries = 0
    ready = 0  # annotators logged in with their first post


def call(user, name: str, method: str, url: str, ok=(200, 201, 404), **kwargs):
    """One request, recorded under `name`; 502/503/504 and connection errors are retried (they count
    as failures), anything else outside `ok` is a failure. Redirects are not followed: a page that
    sends its user to the login page (a broken session) is a failure, not the login page's 200."""
    kwargs.setdefault("allow_redirects", False)
    for attempt in range(20):
        with user.client.request(method, url, name=name, catch_response=True, **kwargs) as response:
            if response.status_code in ok:
                response.success()
                return response
            response.failure(f"HTTP {response.status_code}")
            if response.status_code not in RETRIED and response.status_code != 0:
                return response
        Shared.retries += 1
        gevent.sleep(0.5 + attempt * 0.2)
    return response


class Person(FastHttpUser):
    abstract = True
    host = BASE
    username = ""

    def login(self) -> None:
        """Use the session made for this person before the run (see sessions_make): logging in is
        one deliberately slow password hash per person, which is not what this test measures."""
        session, csrf = Shared.sessions[self.username]
        self.headers = {"Cookie": f"sessionid={session}; csrftoken={csrf}", "X-CSRFToken": csrf,
                        "Referer": BASE + "/"}


class Annotator(Person):
    wait_time = between(1.0, 3.0)  # replaced by --think

    def on_start(self) -> None:
        self.username = Shared.names.pop()
        self.rng = random.Random(self.username)
        self.done: list[tuple[int, int]] = []
        self.login()
        gevent.sleep(self.rng.uniform(0, 3))  # people do not all start in the same second
        self.item = self.claim()
        Shared.ready += 1

    def claim(self):
        r = call(self, "POST next", "POST", f"/api/queue/{Shared.batch_id}/next/", headers=self.headers)
        return r.json() if r is not None and r.status_code == 200 else None

    @task
    def score(self) -> None:
        """One scoring step after reading the post (the wait before it is the think time)."""
        if self.item is None or self.item["item"] is None:
            self.item = self.claim()
            if self.item is None or self.item["item"] is None:
                self.stop()
            return
        item, roll = self.item["item"], self.rng.random()
        if roll < 0.05:
            r = call(self, "POST skip (answers the next item)", "POST", f"/api/queue/{Shared.batch_id}/skip/",
                     json={"item": item}, headers=self.headers)
            self.item = r.json() if r is not None and r.status_code == 200 else None
            return
        scores = {"explicit": self.rng.randint(1, 5), "implicit": self.rng.randint(1, 5),
                  "emotional": self.rng.randint(1, 5)}
        r = call(self, SUBMIT_STEP, "POST", f"/api/queue/{Shared.batch_id}/submit/",
                 json={"item": item, **scores}, headers=self.headers, ok=(201, 409))
        if r is not None and r.status_code == 201:
            body = r.json()
            Shared.acknowledged[(self.username, item)] = tuple(scores.values())
            self.done.append((body["judgment"]["id"], item))
            self.item = body["next"]
        else:
            self.item = None
        if self.done and roll > 0.9:
            jid, jitem = self.rng.choice(self.done)
            new = {"emotional": self.rng.randint(1, 5)}
            r = call(self, "PATCH revise", "PATCH", f"/api/judgments/{jid}/", json=new, headers=self.headers)
            if r is not None and r.status_code == 200:
                e, i, _ = Shared.acknowledged[(self.username, jitem)]
                Shared.acknowledged[(self.username, jitem)] = (e, i, new["emotional"])


class Adjudicator(Person):
    fixed_count = 2
    wait_time = constant(2)
    names = ["adj1", "adj2"]

    def on_start(self) -> None:
        self.username = Adjudicator.names.pop()
        self.login()

    @task
    def poll(self) -> None:
        r = call(self, "GET adjudication queue", "GET", "/adjudicate/", headers=self.headers)
        ids = re.findall(r"/adjudicate/(\d+)/", r.text if r is not None and r.status_code == 200 else "")
        if ids:
            call(self, "GET adjudicate post", "GET", f"/adjudicate/{ids[0]}/", headers=self.headers)


class Researcher(Person):
    fixed_count = 1
    wait_time = constant(5)

    def on_start(self) -> None:
        self.username = "res"
        self.login()

    @task
    def poll(self) -> None:
        call(self, "GET agreement dashboard", "GET", "/agreement/", headers=self.headers)
        call(self, "GET runs API", "GET", "/api/runs/", headers=self.headers)


def processes(name: str, database: str | None = None) -> list[int]:
    """Pids of the processes called `name`; with `database`, only PostgreSQL backends serving it
    (their title names the database), so other work on the machine is not counted."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() != name:
                    continue
                if database is not None and f" {database} " not in (entry / "cmdline").read_bytes().replace(
                        b"\0", b" ").decode(errors="replace"):
                    continue
                out.append(int(entry.name))
            except OSError:
                pass
    return out


class BackendSampler:
    """CPU used by one database's PostgreSQL backends from now until stop(): each backend's CPU is
    sampled every 0.2 s (a backend that exits - a connection past CONN_MAX_AGE - keeps its last
    sample), counted from its value now or from zero when it starts later."""

    def __init__(self, database: str):
        self.database = database
        self.first = {pid: cpu_seconds([pid]) for pid in processes("postgres", database)}
        self.last = dict(self.first)
        self.running = True
        self.greenlet = gevent.spawn(self._run)

    def _run(self) -> None:
        while self.running:
            for pid in processes("postgres", self.database):
                value = cpu_seconds([pid])
                if value > 0 or pid not in self.last:
                    self.last[pid] = max(value, self.last.get(pid, 0.0))
            gevent.sleep(0.2)

    def stop(self) -> float:
        self.running = False
        self.greenlet.join(timeout=2)
        return sum(value - self.first.get(pid, 0.0) for pid, value in self.last.items())


def step_probe(batch_id: int, username: str, warmup: int = 6, steps: int = 60) -> dict:
    """One annotator's scoring steps as the server runs them (the real view through Django's test
    client, middleware included), alone on one connection: the statements of the last step, and the
    PostgreSQL backend's CPU per step over `steps` steps after `warmup` (prepared statements and
    their generic plans in place), read from /proc."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(get_user_model().objects.get(username=username))
    item = client.post(f"/api/queue/{batch_id}/next/").json()["item"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    seen: list[str] = []

    def record(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    cpu0 = None
    for n in range(warmup + steps):
        if n == warmup:
            cpu0 = cpu_seconds([backend])
        seen.clear()
        with connection.execute_wrapper(record):
            response = client.post(f"/api/queue/{batch_id}/submit/", {"item": item, "explicit": 1, "implicit": 2,
                                                                      "emotional": 3}, content_type="application/json")
        assert response.status_code == 201, response.content[:300]
        item = response.json()["next"]["item"]
        assert item is not None, "the probe ran out of posts: use a larger --posts"
    return {"statements": list(seen), "postgres_cpu_ms_per_step": round((cpu_seconds([backend]) - cpu0) * 1000 / steps, 2)}


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / tick, sum(fields) / tick


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def endpoint_figures(requests) -> dict:
    """Requests, errors and p50/p95/p99 (ms) per endpoint, from (start, name, ms, failed) rows."""
    by_name: dict[str, list] = {}
    for _start, name, ms, failed in requests:
        by_name.setdefault(name, []).append((ms, failed))
    out = {}
    for name, rows in sorted(by_name.items()):
        if name in ("GET login", "POST login"):
            continue
        times = [ms for ms, _ in rows]
        out[name] = {"requests": len(rows), "errors": sum(1 for _, failed in rows if failed),
                     **{f"p{q}_ms": round(percentile(times, q), 1) for q in (50, 95, 99)}, "max_ms": round(max(times), 1)}
    return out


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--think", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"),
                        help="seconds an annotator reads a post (0 0 = stress test)")
    parser.add_argument("--posts", type=int, default=3000)
    parser.add_argument("--restart-postgres-at", type=float, default=None)
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds between every annotator holding a post and the window opening")
    parser.add_argument("--json-out")
    parser.add_argument("--trace", metavar="DIR",
                        help="write every request the clients made (start, name, ms) to DIR/client.tsv and "
                             "gunicorn's access log with its own time per request to DIR/server.log: where a "
                             "tail comes from (the server, or waiting to be served)")
    parser.add_argument("--budget", help="a JSON file of limits (statements_per_step, step_postgres_cpu_ms, "
                        "postgres_cpu_ms_per_judgment, min_judgments): exit 1 when the run exceeds one, has an "
                        "error or a database that differs from what was acknowledged (make loadtest-smoke)")
    args = parser.parse_args()
    setup_django(postgres=True, name=DATABASE)

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from annotation.importing.services import import_posts
    from annotation.models import Assignment, Batch, Judgment
    from annotation.services import annotator_ensure
    from core.permissions import role_groups_ensure

    role_groups_ensure()
    import_posts(("Sentences\r\n" + "".join(f"{t}\r\n" for t in synthetic_posts(args.posts))).encode(),
                 batch_name="load")
    Shared.batch_id = Batch.objects.get(name="load").id
    Shared.names = [f"ann{i:03d}" for i in range(args.annotators)]
    for name in [*Shared.names, PROBE]:
        annotator_ensure(username=name)
    for name, role in (("adj1", "adjudicator"), ("adj2", "adjudicator"), ("res", "researcher")):
        get_user_model().objects.create_user(name).groups.add(Group.objects.get(name=role))
    from django.contrib.auth.hashers import make_password

    get_user_model().objects.update(password=make_password(PASSWORD))  # one slow hash, not one per user
    Shared.sessions = sessions_make([*Shared.names, "adj1", "adj2", "res"])
    lo, hi = args.think
    Annotator.wait_time = constant(0) if hi <= 0 else between(lo, hi)
    from django.db import connection

    connection.close()
    env_vars = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.base", "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
                "CELERY_BROKER_URL": "redis://127.0.0.1:6379/14", "CACHE_URL": "redis://127.0.0.1:6379/13"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "chlgbt_site.wsgi", "--bind", f"127.0.0.1:{PORT}",
                               "--workers", str(args.workers), "--threads", str(args.threads),
                               "--log-level", "warning", "--keep-alive", "30",
                               *(["--access-logfile", str(Path(args.trace) / "server.log"), "--access-logformat",
                                  "%(t)s %(m)s %(U)s %(s)s %(M)s"] if args.trace else [])], cwd=ROOT, env=env_vars)
    # Every request the clients make: (start, name, ms, failed). The window's figures count the requests
    # that started in it; Locust's own statistics, reset when the window opens, also counted the requests
    # still in flight from the warm-up (every annotator's first claim, the workers' first requests) when
    # they finished inside it: at 200 annotators those alone made the step's p99 950 ms while no request
    # started in the window took more than 70 ms. The warm-up is reported on its own.
    trace: list[tuple[float, str, float, bool]] = []
    failures: dict[str, int] = {}  # over the whole run, warm-up included: any failure fails the smoke test

    @locust.events.request.add_listener
    def _traced(request_type, name, response_time, start_time=None, exception=None, **_kw):
        trace.append((start_time or time.time(), name, response_time, exception is not None))
        if exception is not None:
            key = f"{request_type} {name}: {exception!r}"
            failures[key] = failures.get(key, 0) + 1

    if args.trace:
        Path(args.trace).mkdir(parents=True, exist_ok=True)
    drill = None
    try:
        import urllib.request

        for _ in range(150):
            try:
                urllib.request.urlopen(f"{BASE}/accounts/login/", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        # stop_timeout: at the end every simulated person finishes the request in flight, so what the
        # server committed has been seen (acknowledged) by a client.
        env = Environment(user_classes=[Annotator, Adjudicator, Researcher], events=locust.events, stop_timeout=90)
        runner = env.create_local_runner()
        runner.start(args.annotators + 3, spawn_rate=args.annotators + 3)
        # The window starts once every annotator holds a post (their first "next", spread over 3 s).
        ramp = time.perf_counter()
        while Shared.ready < args.annotators and time.perf_counter() - ramp < 180:
            gevent.sleep(0.2)
        # ... and after --settle more seconds: the start's backlog (200 first claims in 3 s while each worker's
        # first requests and its background parser load run) drains; it is reported as warmup_step.
        gevent.sleep(args.settle)
        warmup = time.perf_counter() - ramp
        env.stats.reset_all()
        window_start = time.time()
        Shared.retries = 0
        gunicorn_pids = [server.pid] + [int(p) for p in subprocess.run(
            ["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()]
        backends = BackendSampler(DATABASE)  # the database's backends come and go (CONN_MAX_AGE): sampled
        acknowledged0 = len(Shared.acknowledged)
        cpu0 = (self_cpu(), cpu_seconds(gunicorn_pids), 0.0, machine_busy())
        start = time.perf_counter()
        if args.restart_postgres_at is not None:
            gevent.sleep(args.restart_postgres_at)
            version = os.listdir("/etc/postgresql")[0]
            t0 = time.perf_counter()
            subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True)
            drill = {"postgres_restart_at_s": args.restart_postgres_at, "restart_took_s": time.perf_counter() - t0}
        gevent.sleep(max(0.0, args.duration - (time.perf_counter() - start)))
        window_end = time.time()
        gunicorn_pids += [int(p) for p in subprocess.run(
            ["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()]
        cpu1 = (self_cpu(), cpu_seconds(set(gunicorn_pids)), backends.stop(), machine_busy())
        judged = len(Shared.acknowledged) - acknowledged0
        wall = time.perf_counter() - start
        runner.stop()  # graceful: waits up to stop_timeout for the tasks in flight
        runner.quit()
    finally:
        server.terminate()
        server.wait(timeout=30)
    # The clients know their queue items (claims); a judgment is keyed by (annotator, post), as its claim is.
    claims = {(who, post): pk for pk, who, post in Assignment.objects.values_list("pk", "annotator_id", "post_id")}
    stored = {(u, claims[(who, p)]): (e, i, m) for u, who, p, e, i, m in Judgment.objects.values_list(
        "annotator__username", "annotator_id", "post_id", "explicit", "implicit", "emotional")}
    probe = step_probe(Shared.batch_id, PROBE)  # (after the comparison's read: the probe's judgments are its own)
    capacity = (os.cpu_count() or 1) * wall
    busy = cpu1[3][0] - cpu0[3][0]
    cpu = {"generator_s": round(cpu1[0] - cpu0[0], 1), "gunicorn_s": round(cpu1[1] - cpu0[1], 1),
           "postgres_s": round(cpu1[2] - cpu0[2], 1), "machine_busy_s": round(busy, 1),
           "capacity_s": round(capacity, 1)}
    cpu["postgres_cpu_ms_per_judgment"] = round(cpu["postgres_s"] * 1000 / max(1, judged), 2)
    cpu["generator_share_of_machine"] = round(cpu["generator_s"] / capacity, 3)
    cpu["generator_share_of_busy"] = round(cpu["generator_s"] / max(busy, 1e-9), 3)
    endpoints = endpoint_figures([r for r in trace if window_start <= r[0] < window_end])
    warm = endpoint_figures([r for r in trace if r[0] < window_start]).get(SUBMIT_STEP)
    total = sum(e["requests"] for e in endpoints.values())
    errors = sum(e["errors"] for e in endpoints.values())
    result = {"measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],  # others' work on the machine too
              "annotators": args.annotators, "think_s": list(args.think), "duration_s": round(wall, 1),
              "warmup_s": round(warmup, 1), "settle_s": args.settle, "warmup_step": warm,
              "gunicorn": f"{args.workers} workers x {args.threads} threads", "generator": "Locust (FastHttpUser)",
              "requests": total, "throughput_rps": round(total / wall, 1), "error_rate": round(errors / max(1, total), 4),
              "client_retries": Shared.retries, "acknowledged_judgments": len(Shared.acknowledged),
              "stored_judgments": len(stored), "db_equals_acknowledged": stored == Shared.acknowledged,
              "acknowledged_but_not_stored": sum(1 for k, v in Shared.acknowledged.items() if stored.get(k) != v),
              "stored_but_not_acknowledged": sum(1 for k in stored if k not in Shared.acknowledged),
              "judgments_in_window": judged, "statements_per_step": len(probe["statements"]),
              "step_postgres_cpu_ms": probe["postgres_cpu_ms_per_step"], "step_statements": probe["statements"],
              "cpu": cpu, "endpoints": endpoints,
              "failures": failures,
              "drill": drill}
    print(json.dumps({k: v for k, v in result.items() if k != "step_statements"}, indent=1))
    if args.trace:
        with open(Path(args.trace) / "client.tsv", "w") as fh:
            fh.writelines(f"{t:.3f}\t{name}\t{ms:.1f}\t{int(failed)}\n" for t, name, ms, failed in trace)
    if args.json_out:
        with open(args.json_out, "w") as fh:
            json.dump(result, fh, indent=1)
    if args.budget:
        over = budget_exceeded(result, json.loads(Path(args.budget).read_text()))
        for line in over:
            print(f"OVER BUDGET: {line}", file=sys.stderr)
        if over:
            sys.exit(1)
        print("load test within budget")
    return result


def budget_exceeded(result: dict, budget: dict) -> list[str]:
    """What in `result` breaks `budget` (empty: within it). Errors and lost or unacknowledged
    judgments are never allowed."""
    over = []
    if result["error_rate"] > 0 or result["failures"]:
        over.append(f"errors: {result['failures']}")
    if not result["db_equals_acknowledged"]:
        over.append(f"database != acknowledged ({result['acknowledged_but_not_stored']} acknowledged but not stored, "
                    f"{result['stored_but_not_acknowledged']} stored but not acknowledged)")
    if result["judgments_in_window"] < budget.get("min_judgments", 1):
        over.append(f"only {result['judgments_in_window']} judgments in the window")
    if result["statements_per_step"] > budget["statements_per_step"]:
        over.append(f"{result['statements_per_step']} statements per step > {budget['statements_per_step']}")
    if result["step_postgres_cpu_ms"] > budget["step_postgres_cpu_ms"]:
        over.append(f"PostgreSQL {result['step_postgres_cpu_ms']} ms CPU per step > {budget['step_postgres_cpu_ms']}")
    if result["cpu"]["postgres_cpu_ms_per_judgment"] > budget["postgres_cpu_ms_per_judgment"]:
        over.append(f"PostgreSQL {result['cpu']['postgres_cpu_ms_per_judgment']} ms CPU per judgment (whole load) > "
                    f"{budget['postgres_cpu_ms_per_judgment']}")
    return over


if __name__ == "__main__":
    main()
