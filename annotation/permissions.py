"""Role checks shared by pages and the API."""
from rest_framework.permissions import BasePermission

from .models import Role
from .services import user_has_role


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
