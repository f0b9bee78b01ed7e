"""Issue 31, item 9: the admin's password change checks the current password, so it is throttled as
a login is: wrong current passwords count as failed logins of the account from that address, and
once locked out the form is refused (429) even with the right one, for the login window."""
from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
URL = "/admin/password_change/"
PASSWORD = "pw-for-tests-1"
NEW = "a-new-Passw0rd-for-tests"


def _change(client, old, new=NEW, again=None):
    return client.post(URL, {"old_password": old, "new_password1": new, "new_password2": again or new})


def test_wrong_current_passwords_lock_the_form(make_user, settings):
    user = make_user("staffer", role="researcher", is_staff=True)
    client = Client()
    client.force_login(user)
    assert client.get(URL).status_code == 200
    for _attempt in range(settings.LOGIN_FAILURE_LIMIT - 1):
        assert _change(client, "wrong-guess").status_code == 200  # the form again, with its error
    assert _change(client, "wrong-guess").status_code == 429  # the limit reached
    refused = _change(client, PASSWORD)  # now even the right one
    assert refused.status_code == 429
    user.refresh_from_db()
    assert user.check_password(PASSWORD) and not user.check_password(NEW)
    # the same lock covers the login of that account from that address
    assert Client().post("/admin/login/", {"username": "staffer", "password": PASSWORD}).status_code == 429


def test_a_refused_new_password_is_no_failed_guess(make_user, settings):
    user = make_user("staffer", role="researcher", is_staff=True)
    client = Client()
    client.force_login(user)
    for _attempt in range(settings.LOGIN_FAILURE_LIMIT + 1):
        assert _change(client, PASSWORD, NEW, "a-different-one-9").status_code == 200  # mismatch: not a guess
    assert _change(client, PASSWORD).status_code == 302  # changed
    user.refresh_from_db()
    assert user.check_password(NEW)
