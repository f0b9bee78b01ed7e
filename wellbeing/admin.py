"""Wellbeing in the admin: each batch's content notice, pacing and daily cap (researchers edit the
notice in Chinese and English), and who accepted which notice (read-only)."""
from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .models import BatchWellbeing, NoticeAcceptance


@admin.register(BatchWellbeing)
class BatchWellbeingAdmin(admin.ModelAdmin):
    list_display = ("batch", "break_after_posts", "break_after_minutes", "daily_cap", "updated_at")
    list_select_related = ("batch",)
    fieldsets = (
        (None, {"fields": ("batch",)}),
        (_("Content notice, accepted once by each annotator before their first post"),
         {"fields": ("notice_zh", "notice_en")}),
        (_("Pacing"), {"fields": ("break_after_posts", "break_after_minutes", "break_message_zh", "break_message_en",
                                  "resources_url", "daily_cap")}),
    )


@admin.register(NoticeAcceptance)
class NoticeAcceptanceAdmin(admin.ModelAdmin):
    list_display = ("batch", "annotator", "language", "accepted_at")
    list_filter = ("batch",)
    list_select_related = ("batch", "annotator")
    readonly_fields = ("batch", "annotator", "notice_text", "language", "accepted_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.action(description=_("Erase personal data (judgments stay, pseudonymous)"))
def erase_annotators(modeladmin, request, queryset):
    from django.contrib import messages

    from core.errors import DomainError

    from .data_rights import annotator_erase

    for user in list(queryset):
        try:
            erased = annotator_erase(username=user.username, requested_by=request.user, reason="admin action")
        except DomainError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, _("Erased: now %(name)s; %(n)s judgments kept.")
                             % {"name": erased.username, "n": erased.judgments})


def _add_erase_action() -> None:
    """On the user admin (django.contrib.auth's, or a replacement registered before this app)."""
    from django.contrib.auth import get_user_model

    user_admin = admin.site._registry.get(get_user_model())
    if user_admin is not None and erase_annotators not in (user_admin.actions or []):
        user_admin.actions = [*(user_admin.actions or []), erase_annotators]


_add_erase_action()
