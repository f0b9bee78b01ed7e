"""Login throttling, done by django-axes on every view that authenticates a password (the site's login and
/admin/login/ alike), for `LOGIN_FAILURE_WINDOW_SECONDS` after the last failure, whatever the password:
`LOGIN_FAILURE_LIMIT` (5) failures for one (account, address) pair, or from one address, lock that pair or
address; an account alone - failures from every address added up - is locked only after
`LOGIN_ACCOUNT_FAILURE_LIMIT` (50), so nobody elsewhere can lock a person (a superuser too) out with five
wrong guesses (issue 30; OWASP's authentication guidance: lock on the pair, throttle the account far later).
What axes needs from this project is here: the account key, normalised as Django normalises usernames,
the handler that gives each bucket its own limit, and the page a locked-out person sees."""
from __future__ import annotations

import unicodedata

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit, get_lockout_parameters
from django.conf import settings
from django.db.models import Sum
from django.contrib.auth.forms import AuthenticationForm
from django.template.loader import render_to_string
from django.http import HttpResponse

USERNAME_KEY_LENGTH = 150  # auth.User.username's max_length; axes stores up to 255


def lockout_username(request, credentials: dict | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: the per-account key. NFKC, as AbstractBaseUser.normalize_username stores
    usernames, so a full-width ｒｅｓｅａｒｃｈｅｒ shares researcher's budget instead of getting a fresh
    one; case-folded and stripped so case variants share it too."""
    field = settings.AXES_USERNAME_FORM_FIELD
    if credentials:
        raw = credentials.get(field)
    else:
        raw = getattr(request, "data", request.POST).get(field) if request is not None else None
    if raw is None:
        return None
    return unicodedata.normalize("NFKC", str(raw)).casefold().strip()[:USERNAME_KEY_LENGTH]


def lockout_response(request, original_response=None, credentials: dict | None = None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page with the wait, answered 429 (for the admin's login too)."""
    body = render_to_string("registration/login.html", {
        "form": AuthenticationForm(request), "throttled": True,
        "minutes": max(1, settings.LOGIN_FAILURE_WINDOW_SECONDS // 60)}, request=request)
    return HttpResponse(body, status=429)


class ThrottleBackend(AxesStandaloneBackend):
    """Listed first in AUTHENTICATION_BACKENDS: refuses a locked-out account or address before any
    password is checked. Authentication with no request (the shell, a management command, the test
    client's login) has no attacker on the wire and nothing to key the address on: it passes through to
    the next backend instead of raising as axes does."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class ThrottleHandler(AxesDatabaseHandler):
    """AXES_HANDLER: axes' database handler (counts shared by every process), with a limit per bucket.
    axes compares one number, the failures "since start", with one limit (AXES_FAILURE_LIMIT); here that
    number is the pair's or the address's count, and the account-wide count only once it reaches
    LOGIN_ACCOUNT_FAILURE_LIMIT (it then counts as the limit: locked)."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        limit = get_failure_limit(request, credentials)
        worst = 0
        for parameter, attempts in zip(get_lockout_parameters(request, credentials),
                                       self.get_user_attempts(request, credentials)):
            count = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            if parameter == "username":  # the account alone, from every address
                count = limit if count >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT else min(count, limit - 1)
            worst = max(worst, count)
        return worst
