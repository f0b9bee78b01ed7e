"""Error pages that must render without the database: 400 and 500 (Django's handlers, pointed here
by chlgbt_site/urls.py) and the 503 of a database outage (core.middleware). They get the request
and a CSRF token, so the header's language switch works, but no context processors - no user, no
session lookup. 403 and 404 use Django's own handlers with templates/403.html and 404.html."""
from __future__ import annotations

from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token


def error_page(request, template_name: str, status: int, **context) -> HttpResponse:
    content = loader.render_to_string(template_name, {"request": request, "csrf_token": get_token(request), **context})
    return HttpResponse(content, status=status)


@requires_csrf_token
def bad_request(request, exception=None):
    return error_page(request, "400.html", 400)


@requires_csrf_token
def server_error(request):
    return error_page(request, "500.html", 500)
