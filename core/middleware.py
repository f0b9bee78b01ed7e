"""A database outage is a clean 503 with a retry hint, not a stack trace."""
from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import JsonResponse

from .error_views import error_page
from .errors import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS

logger = logging.getLogger(__name__)


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
            response = JsonResponse({"detail": DATABASE_UNAVAILABLE}, status=503)
        else:
            # templates/503.html in the site's style, rendered without touching the database.
            response = error_page(request, "503.html", 503, message=DATABASE_UNAVAILABLE,
                                  retry_after=RETRY_AFTER_SECONDS, retry_path=request.get_full_path())
        response["Retry-After"] = RETRY_AFTER_SECONDS
        return response
