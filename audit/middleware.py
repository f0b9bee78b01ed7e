"""django-auditlog's actor middleware, for requests that can change something (not GET/HEAD/OPTIONS)
outside the annotator's scoring queue: the queue's hot path (POST /api/queue/...) writes nothing audited
and stays free of the per-request signal connection the middleware makes."""
from __future__ import annotations

from auditlog.middleware import AuditlogMiddleware

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
UNAUDITED_PREFIXES = ("/api/queue/",)


class AuditActorMiddleware(AuditlogMiddleware):
    def __call__(self, request):
        if request.method in SAFE_METHODS or request.path.startswith(UNAUDITED_PREFIXES):
            return self.get_response(request)
        return super().__call__(request)
