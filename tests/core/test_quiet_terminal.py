"""A quiet, honest terminal (issue 31, item 8): no django-axes banner on every manage.py command, and an
ordinary 403 is one log line, not a traceback (a 5xx keeps its traceback)."""
from __future__ import annotations

import io
import os
import logging
import subprocess
import sys

import pytest
from django.urls import reverse

from core.log_filters import ClientErrorWithoutTraceback
from tests.embedded_site import ROOT


def test_a_management_command_prints_no_axes_banner():
    out = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.test"})
    assert out.returncode == 0, out.stderr
    assert "AXES" not in out.stdout + out.stderr


@pytest.fixture
def console():
    """The root logger's console handler (settings LOGGING), writing into a buffer for the test."""
    handler = next(h for h in logging.getLogger().handlers
                   if any(isinstance(f, ClientErrorWithoutTraceback) for f in h.filters))
    buffer = io.StringIO()
    old = handler.setStream(buffer)
    yield buffer
    handler.setStream(old)


@pytest.mark.django_db
def test_an_ordinary_403_is_one_line_without_a_traceback(client, make_annotators, console):
    (annotator,) = make_annotators(1)
    client.force_login(annotator)
    assert client.get(reverse("audit:log")).status_code == 403
    logged = console.getvalue()
    assert "Forbidden" in logged and "/audit/" in logged
    assert "Traceback" not in logged


def _record(status: int) -> logging.LogRecord:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.getLogger("django.request").makeRecord(
            "django.request", logging.ERROR, __file__, 1, "x", (), sys.exc_info(), extra={"status_code": status})
    return record


def test_a_server_error_keeps_its_traceback():
    formatter = logging.Formatter()
    kept, dropped = _record(500), _record(403)
    assert ClientErrorWithoutTraceback().filter(kept) and ClientErrorWithoutTraceback().filter(dropped)
    assert "Traceback" in formatter.format(kept)
    assert "Traceback" not in formatter.format(dropped)
