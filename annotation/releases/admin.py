"""Releases in the admin: read-only rows, a publish button (with "publish anyway"), and a place
where other apps add actions on releases without touching this class."""
from __future__ import annotations

from django.contrib import admin
from django.shortcuts import redirect
from django.urls import path
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError
from core.permissions import Role, user_has_role

from ..models import Release
from ..visibility import release_refusal
from .forms import PublishForm
from .services import ReleaseUnchanged, release_publish

_extra_actions: list = []


def release_admin_action(func):
    """Register an admin action on releases from another app (modeling: launch the ablation)."""
    if func not in _extra_actions:
        _extra_actions.append(func)
    return func


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ("number", "content_hash", "created_by", "created_at")
    readonly_fields = [f.name for f in Release._meta.fields]
    actions = ["publish"]

    # What a release says of its data as a whole goes with its diff.json and data files (visibility
    # policy, issue 30): withheld from someone those files are refused to.
    WITHHELD_FIELDS = ("diff", "summary")

    def _withheld(self, request, obj) -> str | None:
        if obj is None:
            return None
        cache = request.__dict__.setdefault("_release_withheld", {})  # asked three times per page
        if obj.pk not in cache:
            cache[obj.pk] = release_refusal(request.user, obj)
        return cache[obj.pk]

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        return [f for f in fields if f not in self.WITHHELD_FIELDS] if self._withheld(request, obj) else fields

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        return [f for f in fields if f not in self.WITHHELD_FIELDS] if self._withheld(request, obj) else fields

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        reason = self._withheld(request, obj)
        if reason:
            self.message_user(request, gettext("Its changes and label distributions are not shown: %(reason)s")
                              % {"reason": reason}, level="warning")
        return super().change_view(request, object_id, form_url, extra_context)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        for func in _extra_actions:
            action = self.get_action(func)
            actions[action[1]] = action
        return actions

    def get_urls(self):
        return [path("publish/", self.admin_site.admin_view(self.publish_view), name="annotation_release_publish"),
                *super().get_urls()]

    def publish_view(self, request):
        if request.method == "POST":
            form = PublishForm(request.POST)
            self._publish(request, **(form.publish_options() if form.is_valid() else {}))
        return redirect("admin:annotation_release_changelist")

    def _publish(self, request, **options) -> None:
        if not user_has_role(request.user, Role.RESEARCHER):
            self.message_user(request, gettext("Only researchers publish releases."), level="error")
            return
        try:
            release = release_publish(created_by=request.user, **options)
        except ReleaseUnchanged as exc:
            self.message_user(request, str(exc), level="warning")
        except DomainError as exc:
            self.message_user(request, str(exc), level="error")
        else:
            self.message_user(request, gettext("Published release %(number)s.") % {"number": release.number})

    @admin.action(description=_("Publish a new release from the current final labels"))
    def publish(self, request, queryset):
        self._publish(request)
