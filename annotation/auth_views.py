"""Login with a failure throttle: repeated wrong passwords for one account or from one address
are refused for a while, whatever the password, so guessing is slow."""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.http import HttpResponse
from django.template.loader import render_to_string


def _keys(request) -> list[str]:
    address = request.META.get("REMOTE_ADDR", "unknown")
    username = (request.POST.get("username") or "").strip().lower()[:150]
    return [f"login-fail:ip:{address}", f"login-fail:user:{username}"]


class ThrottledLoginView(auth_views.LoginView):
    def post(self, request, *args, **kwargs):
        limit = settings.LOGIN_FAILURE_LIMIT
        try:
            counts = [cache.get(key) or 0 for key in _keys(request)]
        except Exception:  # the cache (Redis) is down: let people log in rather than lock everyone out
            counts = [0]
        if any(count >= limit for count in counts):
            body = render_to_string("registration/login.html", {
                "form": self.get_form(), "throttled": True,
                "minutes": settings.LOGIN_FAILURE_WINDOW_SECONDS // 60}, request=request)
            return HttpResponse(body, status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        for key in _keys(self.request):
            try:
                cache.incr(key)
            except ValueError:
                cache.set(key, 1, settings.LOGIN_FAILURE_WINDOW_SECONDS)
            except Exception:
                break
        return super().form_invalid(form)

    def form_valid(self, form):
        try:
            cache.delete_many(_keys(self.request))
        except Exception:
            pass
        return super().form_valid(form)
