"""Snapshots of the C-I-S priors, each tied to its data (a release or the current labels)."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from core.jobs import Job


class PriorSnapshot(models.Model):
    """Priors P(Y=k | Z=z) for 3 dimensions x 9 states x 5 scores, with counts and the per-post
    states they came from. Immutable once created."""

    release = models.ForeignKey("annotation.Release", verbose_name=_("release"), null=True, blank=True,
                                on_delete=models.PROTECT)
    source = models.CharField(verbose_name=_("source"), max_length=120,
                              help_text=_("release N, or current final labels"))
    lexicon_version = models.CharField(verbose_name=_("lexicon version"), max_length=64, blank=True)
    inferer = models.CharField(verbose_name=_("inferer"), max_length=200, default="cues")
    n_posts = models.PositiveIntegerField(verbose_name=_("n posts"))
    priors = models.JSONField(verbose_name=_("priors"), help_text=_("{dimension: {axis: {state: [p1..p5]}}}"))
    counts = models.JSONField(verbose_name=_("counts"), help_text=_("{dimension: {axis: {state: [n1..n5]}}}"))
    states = models.JSONField(verbose_name=_("states"), help_text=_("[[post_id, C, I, S, source], ...]"))
    state_sources = models.JSONField(verbose_name=_("state sources"), default=dict)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("prior snapshot")
        verbose_name_plural = _("prior snapshots")
        ordering = ["-created_at", "-id"]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Prior snapshots are immutable; rebuild to make a new one.")
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return gettext("Priors #%(id)s (%(source)s)") % {"id": self.pk, "source": self.source_display}

    @property
    def source_display(self) -> str:
        """`source` in the active language (it is stored in English: "release N" or "current final labels")."""
        if self.release_id and self.source.startswith("release "):
            return gettext("release %(number)s") % {"number": self.source.removeprefix("release ")}
        return gettext(self.source) if self.source == "current final labels" else self.source


# Stored English names pages show translated: PriorSnapshot.source, and where a post's C-I-S state came from.
SOURCE_NAMES = (gettext_noop("current final labels"), gettext_noop("manual"), gettext_noop("external"),
                gettext_noop("inferred"), gettext_noop("inferred:cues"))


def state_source_display(source: str | None) -> str | None:
    """Where a post's C-I-S state came from, in the active language: a stored name above, or
    "inferred:<inferer>" for an inferer named by its model ("inferred:use-m3")."""
    if not source or source in SOURCE_NAMES:
        return gettext(source) if source else source
    if source.startswith("inferred:"):
        return gettext("inferred: %(inferer)s") % {"inferer": source.removeprefix("inferred:")}
    return source


class RebuildRequest(Job):
    """A rebuild queued from the admin or after a release; the task fills `snapshot`."""

    task_name = "calibration.tasks.rebuild_priors"
    release = models.ForeignKey("annotation.Release", verbose_name=_("release"), null=True, blank=True,
                                on_delete=models.CASCADE)
    inferer = models.CharField(verbose_name=_("inferer"), max_length=200, default="cues")
    snapshot = models.ForeignKey(PriorSnapshot, verbose_name=_("snapshot"), null=True, blank=True,
                                 on_delete=models.SET_NULL)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
                                   on_delete=models.SET_NULL)

    class Meta:
        verbose_name = _("rebuild request")
        verbose_name_plural = _("rebuild requests")
        ordering = ["-created_at"]
