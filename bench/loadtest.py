"""Load test of the deployment shape: gunicorn (several workers) + PostgreSQL + Redis broker.

    python bench/loadtest.py --annotators 50 --duration 60
    python bench/loadtest.py --annotators 200 --duration 60

Simulated annotators read (think time), then submit, sometimes revise an earlier judgment or skip;
two adjudicators poll the disagreement queue and open posts; a researcher polls the agreement
dashboard and the runs API. Reports throughput, p50/p95/p99 per endpoint and the error rate, and
checks that the database holds exactly the judgments (and values) the clients saw acknowledged.
Pass --restart-postgres-at S to restart PostgreSQL S seconds in (the database drill)."""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections import defaultdict

import requests
from common import ROOT, percentile, setup_django, synthetic_posts

PORT = 8766
BASE = f"http://127.0.0.1:{PORT}"
PASSWORD = "load-test-password-1"


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.retries = 0

    def record(self, name: str, seconds: float, ok: bool) -> None:
        with self.lock:
            self.latency[name].append(seconds)
            if not ok:
                self.errors[name] += 1


def call(stats: Stats, name: str, session: requests.Session, method: str, url: str, retry: bool = True, **kw):
    """One request; on 503/connection errors the client waits and retries (as the browser page does)."""
    for attempt in range(20):
        start = time.perf_counter()
        try:
            response = session.request(method, BASE + url, timeout=30, **kw)
            ok = response.status_code < 400 or response.status_code == 404
        except requests.RequestException:
            response, ok = None, False
        stats.record(name, time.perf_counter() - start, ok)
        if ok or not retry or (response is not None and response.status_code not in (502, 503, 504)):
            return response
        with stats.lock:
            stats.retries += 1
        time.sleep(0.5 + attempt * 0.2)
    return response


def login(username: str) -> requests.Session:
    s = requests.Session()
    page = s.get(f"{BASE}/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    s.post(f"{BASE}/accounts/login/", data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
           headers={"Referer": f"{BASE}/accounts/login/"})
    s.headers["X-CSRFToken"] = s.cookies.get("csrftoken", "")
    s.headers["Referer"] = BASE + "/"
    return s


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--think", type=float, nargs=2, default=(1.0, 3.0))
    parser.add_argument("--restart-postgres-at", type=float, default=None)
    parser.add_argument("--json-out")
    args = parser.parse_args()
    setup_django(postgres=True, name="chlgbt_load")

    from django.contrib.auth.models import Group

    from annotation.importing.services import import_posts
    from annotation.models import Batch, Judgment
    from annotation.services import annotator_ensure
    from core.permissions import role_groups_ensure

    role_groups_ensure()
    import_posts(("Sentences\r\n" + "".join(f"{t}\r\n" for t in synthetic_posts(3000))).encode(), batch_name="load")
    batch = Batch.objects.get(name="load")
    names = [f"ann{i:03d}" for i in range(args.annotators)]
    for name in names:
        annotator_ensure(username=name, password=PASSWORD)
    from django.contrib.auth import get_user_model

    for name, role in (("adj1", "adjudicator"), ("adj2", "adjudicator"), ("res", "researcher")):
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        user.groups.add(Group.objects.get(name=role))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.base", "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
           "CELERY_BROKER_URL": "redis://127.0.0.1:6379/14", "CACHE_URL": "redis://127.0.0.1:6379/13"}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "chlgbt_site.wsgi", "--bind", f"127.0.0.1:{PORT}",
                               "--workers", str(args.workers), "--threads", "2", "--log-level", "warning"],
                              cwd=ROOT, env=env)
    stats = Stats()
    acknowledged: dict[tuple[str, int], tuple] = {}
    ack_lock = threading.Lock()
    stop = threading.Event()
    try:
        for _ in range(100):
            try:
                requests.get(f"{BASE}/accounts/login/", timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.2)

        def annotator(name: str):
            rng = random.Random(name)
            s = login(name)
            done: list[tuple[int, int]] = []
            time.sleep(rng.uniform(0, 3))  # people do not all start in the same second
            while not stop.is_set():
                r = call(stats, "POST next", s, "POST", f"/api/queue/{batch.id}/next/")
                if r is None or r.status_code != 200 or r.json()["post"] is None:
                    break
                post = r.json()["post"]
                time.sleep(rng.uniform(*args.think))
                roll = rng.random()
                if roll < 0.05:
                    call(stats, "POST skip", s, "POST", f"/api/queue/{batch.id}/skip/", json={"post": post})
                    continue
                scores = {"explicit": rng.randint(1, 5), "implicit": rng.randint(1, 5), "emotional": rng.randint(1, 5)}
                r = call(stats, "POST submit", s, "POST", "/api/judgments/", json={"post": post, **scores})
                if r is not None and r.status_code == 201:
                    with ack_lock:
                        acknowledged[(name, post)] = tuple(scores.values())
                    done.append((r.json()["id"], post))
                if done and roll > 0.9:
                    jid, jpost = rng.choice(done)
                    new = {"emotional": rng.randint(1, 5)}
                    r = call(stats, "PATCH revise", s, "PATCH", f"/api/judgments/{jid}/", json=new)
                    if r is not None and r.status_code == 200:
                        with ack_lock:
                            e, i, _ = acknowledged[(name, jpost)]
                            acknowledged[(name, jpost)] = (e, i, new["emotional"])

        def adjudicator(name: str):
            s = login(name)
            while not stop.is_set():
                r = call(stats, "GET adjudication queue", s, "GET", "/adjudicate/")
                ids = re.findall(r"/adjudicate/(\d+)/", r.text if r is not None else "")
                if ids:
                    call(stats, "GET adjudicate post", s, "GET", f"/adjudicate/{ids[0]}/")
                time.sleep(2)

        def researcher():
            s = login("res")
            while not stop.is_set():
                call(stats, "GET agreement dashboard", s, "GET", "/agreement/")
                call(stats, "GET runs API", s, "GET", "/api/runs/")
                time.sleep(5)

        threads = [threading.Thread(target=annotator, args=(n,)) for n in names]
        threads += [threading.Thread(target=adjudicator, args=(n,)) for n in ("adj1", "adj2")]
        threads.append(threading.Thread(target=researcher))
        start = time.perf_counter()
        for t in threads:
            t.start()
        drill = None
        if args.restart_postgres_at is not None:
            time.sleep(args.restart_postgres_at)
            version = os.listdir("/etc/postgresql")[0]
            t0 = time.perf_counter()
            subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True)
            drill = {"postgres_restart_at_s": args.restart_postgres_at, "restart_took_s": time.perf_counter() - t0}
        time.sleep(max(0.0, args.duration - (time.perf_counter() - start)))
        stop.set()
        for t in threads:
            t.join(timeout=60)
        wall = time.perf_counter() - start
    finally:
        stop.set()
        server.terminate()
        server.wait(timeout=30)
    from django.db import connection

    connection.close()
    stored = {(u, p): (e, i, m) for u, p, e, i, m in
              Judgment.objects.values_list("annotator__username", "post_id", "explicit", "implicit", "emotional")}
    endpoints = {}
    for name, values in sorted(stats.latency.items()):
        endpoints[name] = {"requests": len(values), "errors": stats.errors.get(name, 0),
                           "p50_ms": round(percentile(values, 50) * 1000, 1),
                           "p95_ms": round(percentile(values, 95) * 1000, 1),
                           "p99_ms": round(percentile(values, 99) * 1000, 1)}
    total = sum(len(v) for v in stats.latency.values())
    result = {"annotators": args.annotators, "duration_s": round(wall, 1), "gunicorn": f"{args.workers} workers x 2 threads",
              "requests": total, "throughput_rps": round(total / wall, 1),
              "error_rate": round(sum(stats.errors.values()) / max(1, total), 4), "client_retries": stats.retries,
              "acknowledged_judgments": len(acknowledged), "stored_judgments": len(stored),
              "db_equals_acknowledged": stored == acknowledged, "endpoints": endpoints, "drill": drill}
    print(json.dumps(result, indent=1))
    if args.json_out:
        with open(args.json_out, "w") as fh:
            json.dump(result, fh, indent=1)
    return result


if __name__ == "__main__":
    main()
