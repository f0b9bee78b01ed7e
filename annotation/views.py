"""The landing page: sends each person to where their role works."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from core.permissions import Role, user_has_role


@login_required
def home(request):
    if user_has_role(request.user, Role.RESEARCHER):
        return redirect("review:agreement")
    if user_has_role(request.user, Role.ADJUDICATOR):
        return redirect("review:adjudication")
    if user_has_role(request.user, Role.ANNOTATOR):
        return redirect("annotation:queue")
    return render(request, "annotation/home.html")
