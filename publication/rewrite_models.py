"""Rewrites of posts for public releases (versioned, attributed, confirmed by a second person) and
takedown requests (a post leaves every future release)."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

REWRITE_PERMISSION = "publication.rewrite_post"


class RewriteStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    SUBMITTED = "submitted", _("Waiting for confirmation")
    CONFIRMED = "confirmed", _("Confirmed")
    SENT_BACK = "sent_back", _("Sent back")


class RewriteSource(models.TextChoices):
    PAGE = "page", _("Written on the rewrite page")
    IMPORT = "import", _("Imported (import_rewrites)")


class Rewrite(models.Model):
    """One version of a post's rewritten text. A draft is edited in place until it is submitted;
    after that it never changes except for the confirmation decision, and the next edit starts a
    new version. A public release uses a post's newest confirmed version."""

    post = models.ForeignKey("annotation.Post", verbose_name=_("post"), on_delete=models.CASCADE,
                             related_name="rewrites")
    version = models.PositiveIntegerField(verbose_name=_("version"))
    text = models.TextField(verbose_name=_("text"), help_text=_("The rewritten text, personal data masked."))
    status = models.CharField(verbose_name=_("status"), max_length=16, choices=RewriteStatus.choices,
                              default=RewriteStatus.DRAFT)
    source = models.CharField(verbose_name=_("source"), max_length=16, choices=RewriteSource.choices,
                              default=RewriteSource.PAGE)
    # Who wrote it on the page; empty for a rewrite written elsewhere and imported.
    author = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("author"), null=True, blank=True,
                               on_delete=models.PROTECT, related_name="rewrites_written")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+",
                                   help_text=_("Who saved it: the author, or the researcher who imported it."))
    shared_span = models.PositiveIntegerField(
        verbose_name=_("longest shared span"), default=0,
        help_text=_("Longest exact span (normalised characters) the text shares with the original post."))
    personal_data = models.JSONField(verbose_name=_("personal data masked"), default=dict, blank=True,
                                     help_text=_("{kind: count} of personal data found in the text and masked."))
    labels = models.JSONField(verbose_name=_("labels"), null=True, blank=True,
                              help_text=_("The post's final labels when the rewrite was submitted."))
    confirmer = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("confirmer"), null=True, blank=True,
                                  on_delete=models.PROTECT, related_name="rewrites_confirmed")
    confirmer_scores = models.JSONField(
        verbose_name=_("confirmer's scores"), null=True, blank=True,
        help_text=_("The confirmer's own scores when they re-scored the rewrite (empty: the labels still hold)."))
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)
    submitted_at = models.DateTimeField(verbose_name=_("submitted at"), null=True, blank=True)
    decided_at = models.DateTimeField(verbose_name=_("decided at"), null=True, blank=True)

    class Meta:
        verbose_name = _("rewrite")
        verbose_name_plural = _("rewrites")
        ordering = ["post_id", "version"]
        permissions = [("rewrite_post", _("Can rewrite posts for public releases and confirm rewrites"))]
        constraints = [
            models.UniqueConstraint(fields=["post", "version"], name="rewrite_version_once"),
            # The second pair of eyes is a second person.
            models.CheckConstraint(condition=Q(confirmer__isnull=True) | Q(author__isnull=True)
                                   | ~Q(confirmer=F("author")), name="rewrite_confirmer_not_author"),
            models.CheckConstraint(condition=Q(status__in=["draft", "submitted"]) | Q(confirmer__isnull=False),
                                   name="rewrite_decided_has_confirmer"),
        ]
        indexes = [models.Index(fields=["status", "post"])]

    def __str__(self) -> str:
        return gettext("Rewrite of post #%(post)s, version %(version)s (%(status)s)") % {
            "post": self.post_id, "version": self.version, "status": self.get_status_display()}


class Takedown(models.Model):
    """A request to remove a post from every future release. The request is kept for good: who,
    when, why. Published releases are immutable and stay as they are."""

    post = models.ForeignKey("annotation.Post", verbose_name=_("post"), null=True, on_delete=models.SET_NULL,
                             related_name="takedowns")
    post_key = models.CharField(verbose_name=_("post key"), max_length=80,
                                help_text=_("The post's id in releases when the request was made."))
    reason = models.TextField(verbose_name=_("reason"))
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("recorded by"), null=True, blank=True,
                                     on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    predictions_dropped = models.PositiveIntegerField(verbose_name=_("predictions dropped"), default=0)

    class Meta:
        verbose_name = _("takedown")
        verbose_name_plural = _("takedowns")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return gettext("Takedown of %(key)s") % {"key": self.post_key}
