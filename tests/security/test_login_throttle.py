"""Finding 8 (issue 20): every login view, /admin/login/ included, is throttled by django-axes after the same
number of failures; the per-account key is NFKC-normalised as Django normalises usernames; behind a proxy
the per-address bucket reads X-Forwarded-For only when a trusted proxy is configured. Issue 30: the
(account, address) pair and the address lock after LOGIN_FAILURE_LIMIT, the account alone only after
LOGIN_ACCOUNT_FAILURE_LIMIT."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent.parent
PASSWORD = "pw-for-tests-1"
LOGIN_VIEWS = ["/accounts/login/", "/admin/login/"]


def _post(client, url, username, password, **extra):
    return client.post(url, {"username": username, "password": password}, **extra)


def _failures_until_refused(url, username, settings, **extra) -> int:
    """Wrong passwords until the view refuses (429); how many it took."""
    client = Client()
    for attempt in range(1, 3 * settings.LOGIN_FAILURE_LIMIT):
        response = _post(client, url, username, "wrong-password", **extra)
        if response.status_code == 429:
            return attempt
        assert response.status_code == 200, (url, attempt, response.status_code)
    pytest.fail(f"{url} never refused")


@pytest.mark.parametrize("url", LOGIN_VIEWS)
def test_every_login_view_refuses_after_the_same_number_of_failures(url, make_user, settings):
    make_user("staffer", role="researcher", is_staff=True)
    assert _failures_until_refused(url, "staffer", settings) == settings.LOGIN_FAILURE_LIMIT
    # Locked out: the right password is refused too, on both views, with the wait spelled out.
    for view in LOGIN_VIEWS:
        refused = _post(Client(), view, "staffer", PASSWORD)
        assert refused.status_code == 429 and "Too many failed attempts" in refused.content.decode(), view
        assert "_auth_user_id" not in Client().session


def test_a_correct_password_before_the_limit_logs_in(make_user, settings):
    make_user("careful", role="annotator")
    client = Client()
    for _ in range(settings.LOGIN_FAILURE_LIMIT - 1):
        assert _post(client, "/accounts/login/", "careful", "wrong-password").status_code == 200
    response = _post(client, "/accounts/login/", "careful", PASSWORD)
    # straight to the annotator's queue, not through the landing page's redirect
    assert response.status_code == 302 and response["Location"] == reverse("annotation:queue")


def test_a_full_width_username_variant_shares_the_account_budget(make_user, settings):
    make_user("researcher", role="researcher", is_staff=True)
    variants = ["researcher", "ｒｅｓｅａｒｃｈｅｒ", "RESEARCHER", " researcher", "ｒｅｓｅａｒｃｈｅｒ"]
    limit = settings.LOGIN_ACCOUNT_FAILURE_LIMIT  # the account alone (issue 30: far later than the pair)
    names = [variants[i % len(variants)] for i in range(limit)]
    # Each attempt from its own address, so only the per-account bucket can add up.
    statuses = [_post(Client(REMOTE_ADDR=f"8.8.4.{i}"), LOGIN_VIEWS[i % 2], name, "wrong-password").status_code
                for i, name in enumerate(names)]
    assert statuses == [200] * (limit - 1) + [429]
    assert _post(Client(REMOTE_ADDR="8.8.4.200"), "/accounts/login/", "researcher", PASSWORD).status_code == 429


@pytest.mark.parametrize("superuser", [False, True])
def test_five_failures_elsewhere_do_not_lock_the_account_out(make_user, settings, superuser):
    """Issue 30: five wrong guesses by anyone locked any account, superusers included, from every address.
    Now the (account, address) pair is locked after LOGIN_FAILURE_LIMIT failures; the account alone only
    after LOGIN_ACCOUNT_FAILURE_LIMIT, far more."""
    assert settings.LOGIN_ACCOUNT_FAILURE_LIMIT >= 10 * settings.LOGIN_FAILURE_LIMIT
    make_user("owner", role="researcher", is_staff=True, is_superuser=superuser)
    attacker = Client(REMOTE_ADDR="203.0.113.66")
    statuses = [_post(attacker, "/admin/login/", "owner", "guess").status_code
                for _ in range(settings.LOGIN_FAILURE_LIMIT)]
    assert statuses == [200] * (settings.LOGIN_FAILURE_LIMIT - 1) + [429]
    assert _post(attacker, "/admin/login/", "owner", PASSWORD).status_code == 429  # the pair stays locked
    owner = Client(REMOTE_ADDR="198.51.100.7")
    response = _post(owner, "/accounts/login/", "owner", PASSWORD)
    assert response.status_code == 302 and owner.session.get("_auth_user_id")


def test_one_address_is_locked_out_across_accounts(make_user, settings):
    limit = settings.LOGIN_FAILURE_LIMIT
    statuses = [_post(Client(REMOTE_ADDR="9.9.9.9"), "/accounts/login/", f"nobody{i}", "x").status_code
                for i in range(limit)]
    assert statuses == [200] * (limit - 1) + [429]
    make_user("elsewhere", role="annotator")
    assert _post(Client(REMOTE_ADDR="9.9.9.9"), "/accounts/login/", "elsewhere", PASSWORD).status_code == 429
    assert _post(Client(REMOTE_ADDR="9.9.9.10"), "/accounts/login/", "elsewhere", PASSWORD).status_code == 302


def _attempts_from(clients_xff, settings, remote="1.1.1.1") -> list[int]:
    """One failure per X-Forwarded-For value, each for a different account, all from one connection address."""
    return [_post(Client(REMOTE_ADDR=remote), "/accounts/login/", f"someone{i}", "x",
                  HTTP_X_FORWARDED_FOR=xff).status_code for i, xff in enumerate(clients_xff)]


def test_x_forwarded_for_is_ignored_without_a_trusted_proxy(settings):
    limit = settings.LOGIN_FAILURE_LIMIT
    assert settings.TRUSTED_PROXY_COUNT == 0
    # A client varying the header gains nothing: its connection's address is the bucket.
    assert _attempts_from([f"8.8.8.{i}" for i in range(limit)], settings) == [200] * (limit - 1) + [429]


def _proxy_settings(count: int) -> dict:
    """The axes settings base.py derives from TRUSTED_PROXY_COUNT, read from a real settings import."""
    env = {**os.environ, "TRUSTED_PROXY_COUNT": str(count), "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.test"}
    code = ("import json, django; django.setup(); from django.conf import settings as s; print(json.dumps("
            "{'AXES_IPWARE_META_PRECEDENCE_ORDER': list(s.AXES_IPWARE_META_PRECEDENCE_ORDER), "
            "'AXES_IPWARE_PROXY_COUNT': s.AXES_IPWARE_PROXY_COUNT, 'AXES_IPWARE_PROXY_ORDER': s.AXES_IPWARE_PROXY_ORDER,"
            " 'TRUSTED_PROXY_COUNT': s.TRUSTED_PROXY_COUNT, 'IPWARE_STRICT': getattr(s, 'IPWARE_STRICT', None)}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_behind_a_configured_proxy_the_forwarded_client_is_the_bucket(settings):
    for name, value in _proxy_settings(1).items():
        setattr(settings, name, value)
    limit = settings.LOGIN_FAILURE_LIMIT
    # Many clients behind one proxy address: each has its own budget.
    assert _attempts_from([f"8.8.8.{i}" for i in range(limit)], settings) == [200] * limit
    # One client spoofing addresses on the left of the header: the proxy's own entry (right-most) counts.
    spoofed = [f"6.6.6.{i}, 4.4.4.4" for i in range(limit)]
    assert _attempts_from(spoofed, settings) == [200] * (limit - 1) + [429]


def test_behind_one_proxy_a_spoofed_entry_locks_the_spoofer_not_the_proxy(settings):
    """The bucket is the entry the proxy appended (the right-most), not the proxy's own connection address:
    a client writing entries of its own cannot pour its failures into one bucket shared by every client
    whose request arrives with a header already set (a forward proxy, a corporate gateway)."""
    for name, value in _proxy_settings(1).items():
        setattr(settings, name, value)
    limit = settings.LOGIN_FAILURE_LIMIT
    assert _attempts_from([f"6.6.6.{i}, 4.4.4.4" for i in range(limit)], settings) == [200] * (limit - 1) + [429]
    # The spoofer's own address is locked out, with or without entries of its own on the left ...
    for xff in ("4.4.4.4", "9.9.9.9, 4.4.4.4"):
        assert _post(Client(REMOTE_ADDR="1.1.1.1"), "/accounts/login/", "fresh", "x",
                     HTTP_X_FORWARDED_FOR=xff).status_code == 429, xff
    # ... and nobody else behind the same proxy is, a header set before the proxy included.
    for xff in ("5.5.5.5", "10.9.9.9, 5.5.5.6"):
        assert _post(Client(REMOTE_ADDR="1.1.1.1"), "/accounts/login/", "fresh", "x",
                     HTTP_X_FORWARDED_FOR=xff).status_code == 200, xff


def test_two_trusted_proxies_read_the_second_entry_from_the_right(settings):
    for name, value in _proxy_settings(2).items():
        setattr(settings, name, value)
    limit = settings.LOGIN_FAILURE_LIMIT
    # The outer proxy appends the client's address, the inner one the outer's: "<client>, <outer proxy>".
    clients = [f"5.5.5.{i}, 203.0.113.9" for i in range(limit)]
    assert _attempts_from(clients, settings) == [200] * limit
    # Whatever a client writes further left, the outer proxy's entry (second from the right) is the bucket.
    spoofed = [f"7.7.7.{i}, 5.5.5.5, 203.0.113.9" for i in range(limit)]
    assert _attempts_from(spoofed, settings) == [200] * (limit - 1) + [429]
