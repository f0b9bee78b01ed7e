"""Roles and the role checks shared by pages, the API and the admin."""
from __future__ import annotations

from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.permissions import BasePermission


class Role(models.TextChoices):
    ANNOTATOR = "annotator", gettext_lazy("Annotator")
    ADJUDICATOR = "adjudicator", gettext_lazy("Adjudicator")
    RESEARCHER = "researcher", gettext_lazy("Researcher")


# "This page is for annotators or adjudicators."
ROLE_PLURALS = {Role.ANNOTATOR: gettext_lazy("annotators"), Role.ADJUDICATOR: gettext_lazy("adjudicators"),
                Role.RESEARCHER: gettext_lazy("researchers")}


def role_groups_ensure() -> dict[str, Group]:
    """One auth group per role (membership is the role)."""
    return {role: Group.objects.get_or_create(name=role)[0] for role in Role.values}


def user_has_role(user, role: str) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser and role != Role.ANNOTATOR:
        return True
    cache = getattr(user, "_role_cache", None)
    if cache is None:
        cache = set(user.groups.values_list("name", flat=True))
        user._role_cache = cache
    return role in cache


def require_role(request, *roles: str) -> None:
    """For page views: PermissionDenied (403) unless the user holds one of `roles`."""
    if not any(user_has_role(request.user, role) for role in roles):
        raise PermissionDenied(_("This page is for %(roles)s.")
                               % {"roles": _(" or ").join(str(ROLE_PLURALS[role]) for role in roles)})


class IsAnnotator(BasePermission):
    message = gettext_lazy("Only annotators can use the annotation queue.")

    def has_permission(self, request, view) -> bool:
        return user_has_role(request.user, Role.ANNOTATOR)


class IsAdjudicator(BasePermission):
    message = gettext_lazy("Only adjudicators can do this.")

    def has_permission(self, request, view) -> bool:
        return user_has_role(request.user, Role.ADJUDICATOR)


class IsResearcher(BasePermission):
    message = gettext_lazy("Only researchers can do this.")

    def has_permission(self, request, view) -> bool:
        return user_has_role(request.user, Role.RESEARCHER)
