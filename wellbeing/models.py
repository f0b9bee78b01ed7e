"""Per-batch wellbeing settings (content notice, pacing, daily cap) and who accepted which notice."""
from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

# Sensible defaults (docs/wellbeing.md): a break offered after 25 posts or 40 minutes in a row.
DEFAULT_BREAK_AFTER_POSTS = 25
DEFAULT_BREAK_AFTER_MINUTES = 40

DEFAULT_NOTICE = _(
    "The posts in this batch contain hateful and discriminatory language about LGBT people, including slurs. "
    "Reading them can be upsetting, especially if you belong to the community they target. You can set any "
    "post aside as too distressing to score (D) without it counting against you, take a break whenever you "
    "need one, and stop at any time.")
DEFAULT_BREAK_MESSAGE = _(
    "You have been reading difficult material for a while. Step away from the screen, stretch, drink some "
    "water; the queue will wait for you.")


class BatchWellbeing(models.Model):
    """Wellbeing settings of one batch. A batch with this row asks each annotator to accept its content
    notice once, before their first post; pacing applies to every batch (defaults without a row)."""

    batch = models.OneToOneField("annotation.Batch", verbose_name=_("batch"), on_delete=models.CASCADE,
                                 related_name="wellbeing")
    notice_en = models.TextField(verbose_name=_("content notice (English)"), blank=True,
                                 help_text=_("Empty: the workbench's default notice."))
    notice_zh = models.TextField(verbose_name=_("content notice (Chinese)"), blank=True,
                                 help_text=_("Empty: the workbench's default notice."))
    break_after_posts = models.PositiveSmallIntegerField(
        verbose_name=_("break after posts"), default=DEFAULT_BREAK_AFTER_POSTS, validators=[MinValueValidator(1)],
        help_text=_("Offer a break after this many posts in a row."))
    break_after_minutes = models.PositiveSmallIntegerField(
        verbose_name=_("break after minutes"), default=DEFAULT_BREAK_AFTER_MINUTES, validators=[MinValueValidator(1)],
        help_text=_("Offer a break after this many minutes of scoring in a row."))
    break_message_en = models.TextField(verbose_name=_("break message (English)"), blank=True,
                                        help_text=_("Empty: the workbench's default message."))
    break_message_zh = models.TextField(verbose_name=_("break message (Chinese)"), blank=True,
                                        help_text=_("Empty: the workbench's default message."))
    resources_url = models.URLField(verbose_name=_("resources link"), blank=True,
                                    help_text=_("Optional: support resources offered with the break."))
    daily_cap = models.PositiveSmallIntegerField(
        verbose_name=_("daily cap"), null=True, blank=True, validators=[MinValueValidator(1)],
        help_text=_("Optional: once an annotator has scored this many posts in a day (UTC, all batches counted), "
                    "this batch serves them nothing more that day."))
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("batch wellbeing settings")
        verbose_name_plural = _("batch wellbeing settings")

    def __str__(self) -> str:
        return str(self.batch)

    def notice(self, language: str | None = None) -> str:
        """The notice in the page's language (the other language's text, then the default, if empty)."""
        return _localised(self.notice_zh, self.notice_en, language) or str(DEFAULT_NOTICE)

    def break_message(self, language: str | None = None) -> str:
        return _localised(self.break_message_zh, self.break_message_en, language) or str(DEFAULT_BREAK_MESSAGE)


def _localised(chinese: str, english: str, language: str | None) -> str:
    language = (language or get_language() or "en").lower()
    first, second = (chinese, english) if language.startswith("zh") else (english, chinese)
    return (first or second).strip()


class NoticeAcceptance(models.Model):
    """An annotator accepted a batch's content notice (once; the text they accepted is kept)."""

    batch = models.ForeignKey("annotation.Batch", verbose_name=_("batch"), on_delete=models.CASCADE,
                              related_name="notice_acceptances")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE,
                                  related_name="notice_acceptances")
    notice_text = models.TextField(verbose_name=_("notice text"))
    language = models.CharField(verbose_name=_("language"), max_length=16)
    accepted_at = models.DateTimeField(verbose_name=_("accepted at"), auto_now_add=True)

    class Meta:
        verbose_name = _("notice acceptance")
        verbose_name_plural = _("notice acceptances")
        constraints = [models.UniqueConstraint(fields=["batch", "annotator"], name="notice_accepted_once")]
