"""A database outage is a clean 503 with a retry hint, not a stack trace."""
from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse

logger = logging.getLogger(__name__)
MESSAGE = "The database is temporarily unavailable. Nothing was saved; please retry in a few seconds."


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.warning("database unavailable: %s", exception)
        if request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", ""):
            response = JsonResponse({"detail": MESSAGE}, status=503)
        else:
            response = HttpResponse(f"<h1>Temporarily unavailable</h1><p>{MESSAGE}</p>", status=503)
        response["Retry-After"] = "3"
        return response
