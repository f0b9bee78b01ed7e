"""Snapshots of the C-I-S priors, each tied to its data (a release or the current labels)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from core.jobs import Job


class PriorSnapshot(models.Model):
    """Priors P(Y=k | Z=z) for 3 dimensions x 9 states x 5 scores, with counts and the per-post
    states they came from. Immutable once created."""

    release = models.ForeignKey("annotation.Release", null=True, blank=True, on_delete=models.PROTECT)
    source = models.CharField(max_length=120, help_text="release N, or current final labels")
    lexicon_version = models.CharField(max_length=64, blank=True)
    inferer = models.CharField(max_length=200, default="cues")
    n_posts = models.PositiveIntegerField()
    priors = models.JSONField(help_text="{dimension: {axis: {state: [p1..p5]}}}")
    counts = models.JSONField(help_text="{dimension: {axis: {state: [n1..n5]}}}")
    states = models.JSONField(help_text="[[post_id, C, I, S, source], ...]")
    state_sources = models.JSONField(default=dict)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Prior snapshots are immutable; rebuild to make a new one.")
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"Priors #{self.pk} ({self.source})"


class RebuildRequest(Job):
    """A rebuild queued from the admin or after a release; the task fills `snapshot`."""

    release = models.ForeignKey("annotation.Release", null=True, blank=True, on_delete=models.CASCADE)
    inferer = models.CharField(max_length=200, default="cues")
    snapshot = models.ForeignKey(PriorSnapshot, null=True, blank=True, on_delete=models.SET_NULL)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at"]
