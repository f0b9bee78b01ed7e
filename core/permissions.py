"""Roles and the role checks shared by pages, the API and the admin."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
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


class RoleReadingBackend(ModelBackend):
    """Django's ModelBackend, except that `get_user` (which the session middleware runs on every
    request) reads the user and which roles they hold in one statement, so the role checks that
    follow (user_has_role) cost no query. Roles are read fresh on every request: a role taken away
    takes effect at once."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        """ModelBackend's check; a refusal ends the search (ModelBackend, listed after this backend for
        sessions made before it, would only hash the same password a second time)."""
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None and username is not None and password is not None:
            raise PermissionDenied
        return user

    def get_user(self, user_id):
        user_model = get_user_model()
        users, groups = user_model._meta.db_table, Group._meta.db_table
        members = user_model.groups.through._meta.db_table
        holds = ", ".join(
            f"EXISTS (SELECT 1 FROM {members} ug INNER JOIN {groups} g ON g.id = ug.group_id "
            f"WHERE ug.user_id = u.id AND g.name = %s) AS role_{role}" for role in Role.values)
        try:
            pk = user_model._meta.pk.to_python(user_id)
        except Exception:  # a malformed id in a session: no user, as ModelBackend answers
            return None
        found = list(user_model._default_manager.raw(f"SELECT u.*, {holds} FROM {users} u WHERE u.id = %s",
                                                     [*Role.values, pk]))
        if not found or not self.user_can_authenticate(found[0]):
            return None
        user = found[0]
        user._role_cache = {role for role in Role.values if getattr(user, f"role_{role}")}
        return user


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
