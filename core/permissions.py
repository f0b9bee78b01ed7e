"""Roles and the role checks shared by pages, the API and the admin."""
from __future__ import annotations

from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import models
from rest_framework.permissions import BasePermission


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    ADJUDICATOR = "adjudicator", "Adjudicator"
    RESEARCHER = "researcher", "Researcher"


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
        raise PermissionDenied("This page is for " + " or ".join(f"{role}s" for role in roles) + ".")


class IsAnnotator(BasePermission):
    message = "Only annotators can use the annotation queue."

    def has_permission(self, request, view) -> bool:
        return user_has_role(request.user, Role.ANNOTATOR)


class IsAdjudicator(BasePermission):
    message = "Only adjudicators can do this."

    def has_permission(self, request, view) -> bool:
        return user_has_role(request.user, Role.ADJUDICATOR)


class IsResearcher(BasePermission):
    message = "Only researchers can do this."

    def has_permission(self, request, view) -> bool:
        return user_has_role(request.user, Role.RESEARCHER)
