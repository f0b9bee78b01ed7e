"""The landing page: sends each person to where their role works; the login goes there directly."""
from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse

from core.permissions import Role, user_has_role

# Where each role works, the first role a person holds winning.
LANDING = ((Role.RESEARCHER, "review:agreement"), (Role.ADJUDICATOR, "review:adjudication"),
           (Role.ANNOTATOR, "annotation:queue"))


def landing_url(user) -> str | None:
    for role, name in LANDING:
        if user_has_role(user, role):
            return reverse(name)
    return None


@login_required
def home(request):
    url = landing_url(request.user)
    return redirect(url) if url else render(request, "annotation/home.html")


class LoginView(auth_views.LoginView):
    """Django's login, which sends a person without ?next= straight to their role's page rather than
    through `/` (one redirect, a round trip and a request of the session's user, fewer)."""

    def get_default_redirect_url(self):
        return landing_url(self.request.user) or super().get_default_redirect_url()
