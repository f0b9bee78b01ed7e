"""What the personal-data rules found in each post (kind -> count), with which rules and which
name recogniser, kept beside the post so a batch's report and a re-scan need not read raw text."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class PersonalDataScan(models.Model):
    """One row per scanned post; a post without one has not been scanned (imported before the
    rules existed, or made outside the importer): `rescan_personal_data` scans it."""

    post = models.OneToOneField("annotation.Post", verbose_name=_("post"), primary_key=True, on_delete=models.CASCADE,
                                related_name="personal_data_scan")
    counts = models.JSONField(verbose_name=_("counts"), default=dict, blank=True,
                              help_text=_("Personal data found in the post, per kind: {kind: count}."))
    total = models.PositiveIntegerField(verbose_name=_("total"), default=0)
    rules_version = models.CharField(verbose_name=_("rules version"), max_length=16)
    recogniser = models.CharField(verbose_name=_("name recogniser"), max_length=200, blank=True,
                                  help_text=_("The named-entity model that looked for names; empty: none did."))
    scanned_at = models.DateTimeField(verbose_name=_("scanned at"))

    class Meta:
        verbose_name = _("personal-data scan")
        verbose_name_plural = _("personal-data scans")

    def __str__(self) -> str:
        return f"#{self.post_id}: {self.total}"
