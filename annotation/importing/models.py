"""A post import running in the background: an upload whose masking (the name recogniser above all)
takes longer than a few seconds is written here and imported by a task, with a progress bar on its
page. The uploaded bytes are kept only until the import ends (they hold the raw posts)."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.jobs import Job


class PostImport(Job):
    task_name = "annotation.tasks.post_import_task"

    data = models.BinaryField(verbose_name=_("uploaded file"), blank=True, editable=False)
    filename = models.CharField(verbose_name=_("file name"), max_length=255)
    size = models.PositiveBigIntegerField(verbose_name=_("size in bytes"), default=0)
    with_labels = models.BooleanField(verbose_name=_("with labels"), default=False)
    as_work = models.BooleanField(verbose_name=_("score them as well"), default=False)
    batch_name = models.CharField(verbose_name=_("batch"), max_length=120, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
                                   on_delete=models.SET_NULL)
    # What the import reported: created, labelled, encoding, personal-data line, skipped rows, or the
    # problems (line, message) that stopped it.
    result = models.JSONField(verbose_name=_("result"), default=dict, blank=True)

    class Meta:
        verbose_name = _("post import")
        verbose_name_plural = _("post imports")
        ordering = ["-created_at"]
