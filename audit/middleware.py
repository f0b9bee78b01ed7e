"""django-auditlog's actor middleware, for requests that can change something (not GET/HEAD/OPTIONS)
outside the annotator's scoring queue: the queue's hot path (POST /api/queue/...) writes nothing audited
and stays free of the per-request signal connection the middleware makes."""
from __future__ import annotations

from contextvars import ContextVar

from auditlog.middleware import AuditlogMiddleware
from django.utils.functional import SimpleLazyObject

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
UNAUDITED_PREFIXES = ("/api/queue/",)


# The request being served, for entries written explicitly (audit.services.audit_event / audit_record
# without an actor): set for the request only and reset after it, so nothing outside a request (a
# command, a worker, the next request on this thread) ever inherits its person.
current_request: ContextVar = ContextVar("audit_current_request", default=None)


def request_actor():
    """The person of the request being served (authenticated), else None."""
    request = current_request.get()
    user = getattr(request, "user", None) if request is not None else None
    return user if user is not None and getattr(user, "is_authenticated", False) and user.pk else None


class AuditActorMiddleware(AuditlogMiddleware):
    def __call__(self, request):
        if request.method in SAFE_METHODS or request.path.startswith(UNAUDITED_PREFIXES):
            return self.get_response(request)
        token = current_request.set(request)
        try:
            return super().__call__(request)
        finally:
            current_request.reset(token)

    def get_extra_data(self, request):
        # The actor is read when an entry is written, not now: DRF authenticates a token inside the
        # view (and then sets the request's user), so here the user is still anonymous for API calls.
        data = super().get_extra_data(request)
        data["actor"] = SimpleLazyObject(lambda: self._get_actor(request))
        return data
