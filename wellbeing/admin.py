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
