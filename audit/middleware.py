"""django-auditlog's actor middleware, for requests that can change something (not GET/HEAD/OPTIONS)
outside the annotator's scoring queue: the queue's hot path (POST /api/queue/...) writes nothing audited
and stays free of the per-request signal connection the middleware makes."""
from __future__ import annotations

from auditlog.middleware import AuditlogMiddleware
from django.utils.functional import SimpleLazyObject

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
UNAUDITED_PREFIXES = ("/api/queue/",)


class AuditActorMiddleware(AuditlogMiddleware):
    def __call__(self, request):
        if request.method in SAFE_METHODS or request.path.startswith(UNAUDITED_PREFIXES):
            return self.get_response(request)
        return super().__call__(request)

    def get_extra_data(self, request):
        # The actor is read when an entry is written, not now: DRF authenticates a token inside the
        # view (and then sets the request's user), so here the user is still anonymous for API calls.
        data = super().get_extra_data(request)
        data["actor"] = SimpleLazyObject(lambda: self._get_actor(request))
        return data
