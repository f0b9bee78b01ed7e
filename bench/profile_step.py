"""Where the scoring step's Python time goes: the one-request step (`POST /api/queue/<batch>/submit/`)
served by Django's WSGI handler the way gunicorn calls it (a raw WSGI environ with the session and CSRF
cookies the browser sends; no test client), on PostgreSQL, with the load test's settings.

    python bench/profile_step.py [--posts 3000] [--annotators 30] [--steps 600] [--top 40] [--json-out F]

Reports the Python CPU per step (this process's CPU time, PostgreSQL's own is another process) and,
with --top, cProfile's heaviest functions (cumulative and own time) over the measured steps."""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import sys
import time
from pathlib import Path

from common import percentile, setup_django

PASSWORD = "profile-step-password-1"


def main() -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=3000)
    parser.add_argument("--annotators", type=int, default=30)
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--top", type=int, default=0, help="print cProfile's N heaviest functions")
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--gunicorn", metavar="WORKERSxTHREADS",
                        help="serve the steps with gunicorn (e.g. 4x2, as the load test) and send them one at a "
                             "time over one keep-alive connection: the server's CPU per step, with no contention")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="with --gunicorn: this many clients at once, each with its own connection")
    parser.add_argument("--idle", type=float, default=0, help="with --gunicorn: first measure its CPU idle this long")
    parser.add_argument("--json-out")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1")
    # As the load test serves: sessions behind a Redis cache, Redis broker.
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
    os.environ.setdefault("CACHE_URL", "redis://127.0.0.1:6379/13")
    setup_django(postgres=True, name="chlgbt_profile_step")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from django.core.handlers.wsgi import WSGIHandler

    from annotation.importing.services import import_posts
    from annotation.models import Batch
    from annotation.services import annotator_ensure
    from common import sessions_make, synthetic_posts

    import_posts(("Sentences\r\n" + "".join(f"{t}\r\n" for t in synthetic_posts(args.posts))).encode(),
                 batch_name="load")
    batch = Batch.objects.get(name="load")
    names = [f"ps{i:03d}" for i in range(args.annotators)]
    for name in names:
        annotator_ensure(username=name)
    sessions = sessions_make(names)
    app = WSGIHandler()

    def request(name: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        session, csrf = sessions[name]
        raw = json.dumps(body or {}).encode()
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
                   "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "127.0.0.1",
                   "HTTP_COOKIE": f"sessionid={session}; csrftoken={csrf}", "HTTP_X_CSRFTOKEN": csrf,
                   "HTTP_REFERER": "http://127.0.0.1/", "CONTENT_TYPE": "application/json",
                   "CONTENT_LENGTH": str(len(raw)), "wsgi.input": io.BytesIO(raw), "wsgi.url_scheme": "http",
                   "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": True,
                   "wsgi.run_once": False, "wsgi.version": (1, 0), "REMOTE_ADDR": "127.0.0.1"}
        status = []
        response = app(environ, lambda s, h, *a: status.append(s))
        content = b"".join(response)
        response.close()
        return int(status[0].split()[0]), json.loads(content or b"{}")

    items = {}
    for name in names:
        code, body = request(name, f"/api/queue/{batch.id}/next/")
        assert code == 200, (code, body)
        items[name] = body["item"]
    rng = random.Random(0)

    def step(name: str) -> None:
        code, body = request(name, f"/api/queue/{batch.id}/submit/",
                             {"item": items[name], "explicit": rng.randint(1, 5), "implicit": rng.randint(1, 5),
                              "emotional": rng.randint(1, 5)})
        assert code == 201, (code, body)
        items[name] = body["next"]["item"]

    if args.gunicorn:
        return served(args, batch, names, sessions, items, rng)
    for i in range(3 * len(names)):  # warm: caches, prepared statements, imports
        step(names[i % len(names)])
    profiler = cProfile.Profile() if args.top else None
    cpu_ms, wall_ms = [], []
    for i in range(args.steps):
        name = names[i % len(names)]
        if items[name] is None:
            continue
        c0, t0 = time.process_time(), time.perf_counter()
        if profiler:
            profiler.enable()
        step(name)
        if profiler:
            profiler.disable()
        cpu_ms.append((time.process_time() - c0) * 1000)
        wall_ms.append((time.perf_counter() - t0) * 1000)
    result = {"steps": len(cpu_ms), "posts": args.posts, "annotators": args.annotators, "profiled": bool(profiler),
              "python_cpu_ms_per_step": {"mean": round(sum(cpu_ms) / len(cpu_ms), 2),
                                         "p50": round(percentile(cpu_ms, 50), 2),
                                         "p95": round(percentile(cpu_ms, 95), 2)},
              "wall_ms_per_step": {"p50": round(percentile(wall_ms, 50), 2), "p95": round(percentile(wall_ms, 95), 2)},
              "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
              "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print(json.dumps(result, indent=1))
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
        print(out.getvalue())
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1))
    return result


def served(args, batch, names, sessions, items, rng) -> dict:
    """The same steps through gunicorn, sequentially: gunicorn's CPU (all its processes) per step."""
    import http.client
    import subprocess

    from django.db import connection

    from common import ROOT, cpu_seconds

    connection.close()
    workers, threads = args.gunicorn.split("x")
    port = 8767
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "chlgbt_site.wsgi", "--bind", f"127.0.0.1:{port}",
                               "--workers", workers, "--threads", threads, "--log-level", "warning",
                               "--keep-alive", "30"], cwd=ROOT, env={**os.environ})
    try:
        for _ in range(150):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/accounts/login/")
                break
            except OSError:
                time.sleep(0.2)
        time.sleep(1)
        pids = [server.pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True,
                                                              text=True).stdout.split()]
        import threading

        local = threading.local()

        def step(name: str) -> None:
            if not hasattr(local, "conn"):
                local.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn = local.conn
            session, csrf = sessions[name]
            body = json.dumps({"item": items[name], "explicit": rng.randint(1, 5), "implicit": rng.randint(1, 5),
                               "emotional": rng.randint(1, 5)})
            conn.request("POST", f"/api/queue/{batch.id}/submit/", body, {
                "Cookie": f"sessionid={session}; csrftoken={csrf}", "X-CSRFToken": csrf,
                "Referer": f"http://127.0.0.1:{port}/", "Content-Type": "application/json", "Host": "127.0.0.1"})
            response = conn.getresponse()
            data = json.loads(response.read())
            assert response.status == 201, (response.status, data)
            items[name] = data["next"]["item"]

        for i in range(3 * len(names) * int(workers)):  # every worker warm
            step(names[i % len(names)])
        idle_ms_per_s = None
        if args.idle:
            c0 = cpu_seconds(pids)
            time.sleep(args.idle)
            idle_ms_per_s = round((cpu_seconds(pids) - c0) * 1000 / args.idle, 2)
        wall_ms = []

        def client(k: int) -> None:
            mine = names[k::args.concurrency]
            for i in range(args.steps // args.concurrency):
                s0 = time.perf_counter()
                step(mine[i % len(mine)])
                wall_ms.append((time.perf_counter() - s0) * 1000)

        c0, t0 = cpu_seconds(pids), time.perf_counter()
        clients = [threading.Thread(target=client, args=(k,)) for k in range(args.concurrency)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        cpu, elapsed = cpu_seconds(pids) - c0, time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(30)
    result = {"steps": len(wall_ms), "server": f"gunicorn {workers} workers x {threads} threads",
              "concurrency": args.concurrency, "steps_per_s": round(len(wall_ms) / elapsed, 1),
              "gunicorn_idle_cpu_ms_per_s": idle_ms_per_s,
              "gunicorn_cpu_ms_per_step": round(cpu * 1000 / len(wall_ms), 2),
              "wall_ms_per_step": {"p50": round(percentile(wall_ms, 50), 2), "p95": round(percentile(wall_ms, 95), 2)},
              "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
              "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print(json.dumps(result, indent=1))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
