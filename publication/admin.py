"""Admin: rewrites (read-only history) and takedown requests (recorded through the takedown
service: adding one takes the post out of every future release and drops its predictions)."""
from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext

from annotation.visibility import VisibleRowsAdmin
from core.errors import DomainError
from core.permissions import Role, user_has_role

from .rewrite_models import Rewrite, Takedown
from .takedowns import takedown_record


@admin.register(Rewrite)
class RewriteAdmin(VisibleRowsAdmin):  # a rewrite carries its post's labels: none of a post hidden from the viewer
    list_display = ("post", "version", "status", "shared_span", "author", "confirmer", "source", "updated_at")
    list_filter = ("status", "source")
    readonly_fields = [f.name for f in Rewrite._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Takedown)
class TakedownAdmin(VisibleRowsAdmin):  # its post column shows the text: none of a post hidden from the viewer
    list_display = ("post_key", "post", "reason", "requested_by", "created_at", "predictions_dropped")
    fields = ("post", "reason")
    raw_id_fields = ("post",)
    actions = None

    def has_add_permission(self, request):
        return user_has_role(request.user, Role.RESEARCHER)

    def has_change_permission(self, request, obj=None):
        return obj is None and user_has_role(request.user, Role.RESEARCHER)

    def has_delete_permission(self, request, obj=None):
        return False  # the request is kept for good

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else ("post", "post_key", "reason", "requested_by", "created_at", "predictions_dropped")

    def save_model(self, request, obj, form, change):
        if change:
            return
        try:
            saved = takedown_record(post=obj.post, reason=obj.reason, requested_by=request.user)
        except DomainError as exc:
            messages.error(request, str(exc))
            return
        obj.pk = saved.pk
        messages.success(request, gettext("Post %(post)s leaves every future release; %(n)s predictions dropped.")
                         % {"post": saved.post_key, "n": saved.predictions_dropped})
