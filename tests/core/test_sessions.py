"""Sessions with a shared cache (core/sessions.py): read from Redis first, and from the database
when Redis cannot be reached, so nobody is logged out by a cache outage."""
from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.test import Client, override_settings
from django.urls import reverse

from core.permissions import Role

pytestmark = pytest.mark.django_db

REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"


def logged_in(make_user, make_batch) -> Client:
    alice = make_user("alice", role=Role.ANNOTATOR)
    make_batch(n_posts=1, annotators=[alice])
    client = Client()
    client.force_login(alice)
    return client


def test_a_session_is_read_from_the_database_while_the_cache_is_unreachable(make_user, make_batch):
    """Logged in while the cache worked; then the cache goes away: requests go on, and a logout
    fails before anything changes (the cache must forget the session first, or its cached copy would
    come back with Redis)."""
    unreachable = {"default": {"BACKEND": REDIS_CACHE, "LOCATION": "redis://127.0.0.1:1/0",
                               "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}}}
    working = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(SESSION_ENGINE="core.sessions", CACHES=working):
        client = logged_in(make_user, make_batch)
    with override_settings(SESSION_ENGINE="core.sessions", CACHES=unreachable):
        assert Session.objects.count() == 1
        assert client.get(reverse("api:api-batches")).status_code == 200
        assert client.get(reverse("annotation:queue")).status_code == 200
        from core.sessions import SessionStore

        key = client.session.session_key
        with pytest.raises(Exception, match="[Cc]onnect"):
            SessionStore(key).flush()
        assert Session.objects.filter(session_key=key).exists()  # nothing changed


@pytest.mark.redis
def test_a_session_is_served_from_the_cache_once_read(make_user, make_batch, redis_url):
    with override_settings(SESSION_ENGINE="core.sessions", CACHES={"default": {"BACKEND": REDIS_CACHE,
                                                                               "LOCATION": redis_url}}):
        from django.core.cache import cache

        cache.clear()
        client = logged_in(make_user, make_batch)
        assert client.get(reverse("api:api-batches")).status_code == 200
        Session.objects.all().delete()  # only the cached copy is left: a request that is let in read it
        assert client.get(reverse("api:api-batches")).status_code == 200
        key = client.session.session_key
        from core.sessions import SessionStore

        assert SessionStore().cache_key_prefix + key in cache
        client.logout()  # logging out forgets the cached copy too
        assert SessionStore().cache_key_prefix + key not in cache
        client.cookies["sessionid"] = key  # the old cookie, replayed
        assert client.get(reverse("api:api-batches")).status_code == 403
