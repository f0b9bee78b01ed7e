"""The browser fixture leaves no database connection behind: a query made while Playwright's loop runs
goes through a connection of its own, which used to outlive the test and stop pytest-django from
dropping the test database at the end of every run (PytestWarning: "being accessed by other users")."""
from __future__ import annotations

import time

import pytest
from django.db import connection

from .conftest import _page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.postgres]


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_the_connection_a_browser_test_opens_is_closed_with_its_browser(require_postgres, chromium_path):
    outside = _backend_pid()
    pages = _page(chromium_path, "en-US")
    try:
        next(pages)  # the fixture's setup: Playwright's loop now runs in this thread
        inside = _backend_pid()
        assert inside != outside  # a second connection, which only code inside the block can see
        with pytest.raises(StopIteration):
            next(pages)  # the fixture's teardown
    finally:
        pages.close()  # a failure above leaves no Playwright loop running for the browser tests after this one
    assert _backend_pid() == outside  # the thread's own connection is untouched
    assert inside not in _sessions_settled(without=inside)


def _sessions_settled(*, without: int) -> set[int]:
    """The sessions on the test database. A closed session's server process leaves a moment after the
    client hung up, so a gone one is awaited (5 s at most) rather than caught on its way out."""
    for _ in range(50):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
            sessions = {pid for (pid,) in cursor.fetchall()}
        if without not in sessions:
            break
        time.sleep(0.1)
    return sessions
