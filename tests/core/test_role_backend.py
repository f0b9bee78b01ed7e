"""The authentication backend reads the user and their roles in one statement per request; a role
given or taken away takes effect on the very next request."""
from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.permissions import Role, RoleReadingBackend

pytestmark = pytest.mark.django_db


def test_roles_come_with_the_user_and_follow_group_changes_at_once(make_user, make_batch, roles):
    alice = make_user("alice", role=Role.ANNOTATOR)
    make_batch(n_posts=1, annotators=[alice])
    client = Client()
    client.force_login(alice)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(reverse("api:api-batches")).status_code == 200
    # The user's row and their roles in one statement; no separate read of their groups.
    assert not any("auth_user_groups" in q["sql"] and "EXISTS" not in q["sql"] for q in ctx.captured_queries)
    assert sum("auth_user" in q["sql"] for q in ctx.captured_queries) == 1
    alice.groups.remove(roles[Role.ANNOTATOR])
    assert client.get(reverse("api:api-batches")).status_code == 403  # taken away: refused at once
    alice.groups.add(roles[Role.ANNOTATOR], roles[Role.RESEARCHER])
    assert client.get(reverse("api:api-batches")).status_code == 200
    user = RoleReadingBackend().get_user(alice.pk)
    assert user == alice and user._role_cache == {Role.ANNOTATOR, Role.RESEARCHER}


def test_no_user_for_a_bad_id_or_an_inactive_account(make_user):
    bob = make_user("bob", role=Role.ANNOTATOR)
    backend = RoleReadingBackend()
    assert backend.get_user("not-a-number") is None and backend.get_user(bob.pk + 1000) is None
    bob.is_active = False
    bob.save(update_fields=["is_active"])
    assert backend.get_user(bob.pk) is None
    client = Client()
    client.force_login(bob, backend="core.permissions.RoleReadingBackend")
    assert client.session[SESSION_KEY] == str(bob.pk)
    assert client.get(reverse("api:api-batches")).status_code == 403  # logged in before, inactive now


def test_a_wrong_password_is_hashed_once_though_two_backends_are_listed(make_user, monkeypatch):
    """ModelBackend stays listed after RoleReadingBackend (for sessions made before it); a refused
    password must not be checked by both (that doubles the cost of every failed login)."""
    from django.contrib.auth import authenticate
    from django.contrib.auth.base_user import AbstractBaseUser

    make_user("carol", role=Role.ANNOTATOR)
    checks = []
    real_check = AbstractBaseUser.check_password
    monkeypatch.setattr(AbstractBaseUser, "check_password",
                        lambda self, raw: checks.append(raw) or real_check(self, raw))
    assert authenticate(None, username="carol", password="wrong-password-1") is None
    assert checks == ["wrong-password-1"]
    assert authenticate(None, username="carol", password="pw-for-tests-1").username == "carol"
