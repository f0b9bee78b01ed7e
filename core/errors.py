"""Domain errors and their HTTP mapping: a broken rule of the workflow becomes a 4xx with a message
a person can act on; a database outage becomes a 503 with a retry hint."""
from __future__ import annotations

from django.db import InterfaceError, OperationalError
from django.utils.translation import gettext_lazy as _
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

DATABASE_UNAVAILABLE = _("The database is temporarily unavailable. Nothing was saved; please retry in a few seconds.")
RETRY_AFTER_SECONDS = "3"


class DomainError(Exception):
    """A rule of the workflow was broken; the message tells the user what to do."""

    status_code = 400


class NotFound(DomainError):
    """Also used where the object exists but belongs to someone else, so nothing leaks."""

    status_code = 404


class Conflict(DomainError):
    status_code = 409


class QueueUnavailable(DomainError):
    """The task queue (broker) is down: nothing was launched."""

    status_code = 503


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: domain errors keep their status and message."""
    if isinstance(exc, DomainError):
        return Response({"detail": str(exc)}, status=exc.status_code)
    if isinstance(exc, (OperationalError, InterfaceError)):
        return Response({"detail": DATABASE_UNAVAILABLE}, status=503, headers={"Retry-After": RETRY_AFTER_SECONDS})
    return drf_exception_handler(exc, context)
