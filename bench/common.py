"""Shared set-up for the benchmarks: a fresh database (SQLite file, or PostgreSQL with --postgres)."""
from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
# The load test's name for the scoring step (submit + next in one request); the drills read its figures.
SUBMIT_STEP = "POST submit + next (one step)"
SAMPLE = ROOT.parent / "shared" / "data" / "chlgbt" / "chlgbt_sample.csv"


def setup_django(postgres: bool, name: str = "chlgbt_bench") -> str:
    """Create an empty database, point Django at it, migrate. Returns a description."""
    if postgres:
        import psycopg

        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
        os.environ["DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{name}"
        described = "PostgreSQL 15 (loopback)"
    else:
        path = Path(tempfile.mkdtemp()) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{path}"
        described = "SQLite"
    os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="bench-media-"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "chlgbt_site.settings.base"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return described


def synthetic_posts(n: int, seed: int = 0) -> list[str]:
    """Chinese-looking posts written by this project (never ChLGBT/COLD text)."""
    rng = random.Random(seed)
    subjects = ["网友", "我们", "他们", "有人", "同事", "家长", "老师", "社区", "媒体", "朋友"]
    verbs = ["支持", "反对", "讨论", "理解", "质疑", "尊重", "讨厌", "关注", "评论", "转发"]
    objects = ["同性婚姻", "跨性别者", "彩虹旗", "出柜", "性少数群体", "平等权利", "这件事", "这部剧", "新闻", "游行"]
    tails = ["。", "！", "？", "……", "，真的吗", "，说实话很难", "，我觉得没问题", "，太离谱了！"]
    return [f"{rng.choice(subjects)}{rng.choice(['最近', '今天', '一直', ''])}{rng.choice(verbs)}{rng.choice(objects)}"
            f"{rng.choice(tails)}#{i}" for i in range(n)]


@contextmanager
def timer():
    box = {}
    start = time.perf_counter()
    yield box
    box["seconds"] = time.perf_counter() - start


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def sessions_make(usernames) -> dict[str, tuple[str, str]]:
    """A logged-in session and a CSRF secret per person, written where the server reads sessions
    (the database behind its cache), as logging in would."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.middleware.csrf import _get_new_csrf_string

    from core.permissions import RoleReadingBackend

    store = import_module(settings.SESSION_ENGINE).SessionStore
    # The backend a password login records (the first listed, ThrottleBackend, only refuses locked-out
    # logins and authenticates nobody: a session naming it is no session).
    backend = f"{RoleReadingBackend.__module__}.{RoleReadingBackend.__qualname__}"
    assert backend in settings.AUTHENTICATION_BACKENDS, backend
    made = {}
    for user in get_user_model().objects.filter(username__in=usernames):
        session = store()
        session[SESSION_KEY], session[BACKEND_SESSION_KEY] = str(user.pk), backend
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        made[user.username] = (session.session_key, _get_new_csrf_string())
    return made


def cpu_seconds(pids) -> float:
    """utime + stime of these processes (and their finished children), from /proc."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
    return total
