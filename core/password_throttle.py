"""The admin's password change (/admin/password_change/) is throttled like a login (issue 31): it
checks the current password, so a borrowed or stolen session could guess it there as often as it
liked. A wrong current password counts as a failed login of that account from that address, in
django-axes' store (core/login_throttle.py: the same limits and window, shared by every process);
once locked, the form is refused with the login's wait page (429) until the window has passed."""
from __future__ import annotations

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.signals import user_login_failed

from .login_throttle import lockout_response


def _credentials(user) -> dict:
    return {settings.AXES_USERNAME_FORM_FIELD: user.get_username()}


def admin_password_change(request, extra_context=None):
    """admin.site.password_change, refused while the account is locked out; a wrong current password
    is recorded as a failed login (a new password the validators refuse is not)."""
    user = request.user
    if request.method != "POST" or not user.is_authenticated:
        return admin.site.password_change(request, extra_context)
    credentials = _credentials(user)
    if AxesProxyHandler.is_locked(request, credentials):
        return lockout_response(request, None, credentials)
    response = admin.site.password_change(request, extra_context)
    form = (getattr(response, "context_data", None) or {}).get("form")
    if form is not None and "old_password" in form.errors:
        user_login_failed.send(sender=__name__, credentials=credentials, request=request)
        if AxesProxyHandler.is_locked(request, credentials):
            return lockout_response(request, None, credentials)
    return response
