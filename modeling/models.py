"""Training runs, scoring jobs, stored predictions and the editable keyword lexicon."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from core.jobs import Job, JobStatus


class LexiconKind(models.TextChoices):
    IDENTITY = "identity", "Identity term"
    CODED = "coded", "Coded term"
    SLUR = "slur", "Slur"
    OTHER = "other", "Other anchor"


class LexiconTerm(models.Model):
    """The keyword lexicon K for Myopia's promotion; the next run uses the active terms."""

    term = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=16, choices=LexiconKind.choices, default=LexiconKind.IDENTITY)
    active = models.BooleanField(default=True)
    note = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["term"]

    def __str__(self) -> str:
        return self.term


class Variant(models.TextChoices):
    BASELINE = "baseline", "Baseline"
    ASTIGMATISM = "astigmatism", "Astigmatism only (w/o Myopia)"
    MYOPIA = "myopia", "Myopia only (w/o Astigmatism)"
    FULL = "full", "MAAM (full)"


class DevicePreference(models.TextChoices):
    AUTO = "auto", "CUDA when present, else CPU"
    CUDA = "cuda", "CUDA"
    CPU = "cpu", "CPU"


class TrainingRun(Job):
    launch_group = models.CharField(max_length=36, db_index=True, help_text="Runs launched together share this id.")
    release = models.ForeignKey("annotation.Release", null=True, blank=True, on_delete=models.PROTECT)
    variant = models.CharField(max_length=16, choices=Variant.choices)
    dimensions = models.JSONField()
    seed = models.IntegerField(default=0)
    backbone = models.CharField(max_length=500, default="char-ngram")
    hyperparameters = models.JSONField(default=dict, blank=True)
    device = models.CharField(max_length=8, choices=DevicePreference.choices, default=DevicePreference.AUTO)
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True)
    metrics = models.JSONField(null=True, blank=True)
    artifact_path = models.CharField(max_length=500, blank=True)
    artifact_checksum = models.CharField(max_length=64, blank=True)
    log_tail = models.TextField(blank=True)
    celery_task_id = models.CharField(max_length=64, blank=True)
    lexicon_version = models.CharField(max_length=64, blank=True)
    lexicon_terms = models.JSONField(default=list, blank=True)
    git_revision = models.CharField(max_length=64, blank=True)
    versions = models.JSONField(default=dict, blank=True)
    device_used = models.CharField(max_length=16, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Run {self.pk} {self.variant} seed {self.seed}"


class ScoringScope(models.TextChoices):
    ALL = "all", "All posts"
    RELEASE = "release", "The posts of a release"
    UPLOAD = "upload", "An uploaded file"


class ScoringJob(Job):
    run = models.ForeignKey(TrainingRun, on_delete=models.PROTECT, related_name="scoring_jobs")
    scope = models.CharField(max_length=16, choices=ScoringScope.choices, default=ScoringScope.ALL)
    release = models.ForeignKey("annotation.Release", null=True, blank=True, on_delete=models.PROTECT)
    upload_path = models.CharField(max_length=500, blank=True)
    scored = models.PositiveIntegerField(default=0)
    output_path = models.CharField(max_length=500, blank=True)
    celery_task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at", "-id"]


class Prediction(models.Model):
    """A run's prediction for a post: per dimension the label and the five probabilities before
    and after calibration. Keyed by (post, run); re-scoring replaces them in one transaction."""

    post = models.ForeignKey("annotation.Post", on_delete=models.CASCADE, related_name="predictions")
    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="predictions")
    # NULL where the run did not train that dimension: no prediction, never a made-up 0.
    explicit = models.PositiveSmallIntegerField(null=True, blank=True)
    implicit = models.PositiveSmallIntegerField(null=True, blank=True)
    emotional = models.PositiveSmallIntegerField(null=True, blank=True)
    probabilities = models.JSONField(help_text="{dimension: {before: [p1..p5], after: [p1..p5]}}")
    cis_state = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["post", "run"], name="prediction_once_per_run")]
        indexes = [models.Index(fields=["post", "-created_at"])]
