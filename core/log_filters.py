"""Logging filters (settings LOGGING)."""
from __future__ import annotations

import logging


class ClientErrorWithoutTraceback(logging.Filter):
    """A 4xx answer (a 403 for a page someone may not see, a 404) is the client's doing, not a fault of
    the site: Django logs it with the exception attached, and the console printed a full traceback for
    every ordinary 403. Keep the one line ("Forbidden (Permission denied): /audit/"), drop the
    traceback; 5xx records keep theirs."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if status is not None and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
