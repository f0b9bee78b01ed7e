"""Shared fixtures. Services that CI provides (PostgreSQL, Redis, Chromium) are required there
(REQUIRE_*=1) and skipped with a stated reason elsewhere."""
from __future__ import annotations

import os
import shutil

import pytest
from django.db import connection
from hypothesis import settings as hypothesis_settings

# CI runs the property tests on a fixed seed so a landing never depends on luck; local runs explore.
hypothesis_settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("HYPOTHESIS_PROFILE"):
    hypothesis_settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])
from rest_framework.test import APIClient

from core.translations import compile_catalogues

CHROMIUM = "/usr/bin/chromium"

# The .mo files are build output (not in git): compile the committed .po files for this run, so
# pytest works straight from a checkout as `make test` does.
compile_catalogues()


def _require(flag: str, available: bool, reason: str) -> None:
    if available:
        return
    if os.environ.get(flag) == "1":
        pytest.fail(f"{reason} ({flag}=1 says it must be available here)")
    pytest.skip(reason)


@pytest.fixture
def require_postgres():
    _require("REQUIRE_POSTGRES", connection.vendor == "postgresql", "needs PostgreSQL: set DATABASE_URL")


@pytest.fixture
def redis_url():
    url = os.environ.get("TEST_REDIS_URL", "")
    ok = False
    if url:
        import redis

        try:
            ok = bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
        except redis.RedisError:
            ok = False
    _require("REQUIRE_REDIS", ok, "needs a Redis server: set TEST_REDIS_URL")
    return url


@pytest.fixture
def chromium_path():
    _require("REQUIRE_BROWSER", shutil.which(CHROMIUM) is not None, "needs Debian's chromium at /usr/bin/chromium")
    return CHROMIUM


@pytest.fixture
def roles(db):
    from core.permissions import role_groups_ensure

    return role_groups_ensure()


@pytest.fixture
def make_annotators(db, roles):
    from annotation.services import annotator_ensure

    def make(n: int = 6, prefix: str = "ann"):
        return [annotator_ensure(username=f"{prefix}{i}", password="pw-for-tests-1") for i in range(1, n + 1)]

    return make


@pytest.fixture
def make_user(db, roles):
    from django.contrib.auth import get_user_model

    def make(username: str, role: str | None = None, **extra):
        user = get_user_model().objects.create_user(username=username, password="pw-for-tests-1", **extra)
        if role:
            user.groups.add(roles[role])
        return user

    return make


@pytest.fixture
def make_batch(db):
    from annotation.importing.parsers import sha256_text
    from annotation.models import Batch, Post

    def make(n_posts: int = 10, k: int = 6, name: str = "b1", annotators=(), timeout: int = 30):
        batch = Batch.objects.create(name=name, annotators_per_post=k, assignment_timeout_minutes=timeout)
        batch.annotators.add(*annotators)
        Post.objects.bulk_create([
            Post(text=f"{name} 测试帖子 {i}", raw_text=f"{name} 测试帖子 {i}", text_sha256=sha256_text(f"{name} 测试帖子 {i}"),
                 batch=batch) for i in range(n_posts)
        ])
        return batch

    return make


@pytest.fixture
def api_for():
    def make(user):
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make
