"""Posts, batches, assignments, blind judgments with revisions, guidelines and final labels."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.jobs import Job


class Dimension(models.TextChoices):
    EXPLICIT = "explicit", "Explicit bias"
    IMPLICIT = "implicit", "Implicit bias"
    EMOTIONAL = "emotional", "Emotional intensity"


DIMENSIONS: tuple[str, ...] = tuple(Dimension.values)
SCORE_RANGE = range(1, 6)


class Tone(models.TextChoices):
    FUNNY = "Funny"
    GENERAL = "General"
    SERIOUS = "Serious"


class Identity(models.TextChoices):
    INGROUP = "Ingroup"
    OUTGROUP = "Outgroup"
    UNCERTAIN = "Uncertain"


class Stance(models.TextChoices):
    PRO = "Pro"
    ANTI = "Anti"
    NEUTRAL = "Neutral"


def _score_checks(prefix: str, fields: tuple[str, ...], nullable: bool) -> list[models.CheckConstraint]:
    checks = []
    for field in fields:
        in_range = Q(**{f"{field}__gte": 1}) & Q(**{f"{field}__lte": 5})
        if nullable:
            in_range |= Q(**{f"{field}__isnull": True})
        checks.append(models.CheckConstraint(condition=in_range, name=f"{prefix}_{field}_1_5"))
    return checks


class AnnotatorProfile(models.Model):
    """Per-annotator attributes used for subgroup agreement, and a stable pseudonym for exports."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotator_profile")
    pseudonym = models.CharField(max_length=32, unique=True)
    community_member = models.BooleanField(
        null=True, blank=True, help_text="Member of the targeted community (for subgroup agreement)."
    )
    attributes = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return self.pseudonym


class Guideline(models.Model):
    """A versioned scoring rubric; every judgment records the version in force."""

    version = models.PositiveIntegerField(unique=True)
    title = models.CharField(max_length=200)
    rubric = models.JSONField(help_text="{dimension: {score: {explanation, example}}}")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"v{self.version}: {self.title}"


class Batch(models.Model):
    name = models.CharField(max_length=120, unique=True)
    annotators_per_post = models.PositiveSmallIntegerField(default=6)
    assignment_timeout_minutes = models.PositiveIntegerField(default=30)
    annotators = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="batches")
    locked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name_plural = "batches"

    @property
    def is_locked(self) -> bool:
        return self.locked_at is not None

    def __str__(self) -> str:
        return self.name


class Post(models.Model):
    external_id = models.CharField(max_length=64, null=True, blank=True, unique=True)
    text = models.TextField(help_text="Cleaned text shown to annotators and used for modeling.")
    text_sha256 = models.CharField(max_length=64, unique=True)
    raw_text = models.TextField(help_text="Text as imported, kept privately for audit.")
    batch = models.ForeignKey(Batch, null=True, blank=True, on_delete=models.SET_NULL, related_name="posts")
    tone = models.CharField(max_length=16, choices=Tone.choices, blank=True)
    identity = models.CharField(max_length=16, choices=Identity.choices, blank=True)
    stance = models.CharField(max_length=16, choices=Stance.choices, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.text[:30]}"


class AssignmentStatus(models.TextChoices):
    ASSIGNED = "assigned"
    SUBMITTED = "submitted"
    SKIPPED = "skipped"


class Assignment(models.Model):
    """One row per (post, annotator) ever: an annotator never gets a post twice."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.ASSIGNED)
    assigned_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["post", "annotator"], name="assignment_once_per_annotator")]
        indexes = [models.Index(fields=["annotator", "status"]), models.Index(fields=["post", "status"])]


class Judgment(models.Model):
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="judgments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments")
    explicit = models.PositiveSmallIntegerField(null=True)
    implicit = models.PositiveSmallIntegerField(null=True)
    emotional = models.PositiveSmallIntegerField(null=True)
    seconds_spent = models.FloatField(default=0)
    note = models.TextField(blank=True)
    flagged = models.BooleanField(default=False)
    guideline = models.ForeignKey(Guideline, null=True, blank=True, on_delete=models.PROTECT)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["post", "annotator"], name="judgment_once_per_annotator"),
            # Scores are nullable only for judgments imported from elsewhere with missing cells.
            *_score_checks("judgment", DIMENSIONS, nullable=True),
        ]
        indexes = [models.Index(fields=["annotator", "updated_at"])]

    def scores(self) -> dict[str, int | None]:
        return {d: getattr(self, d) for d in DIMENSIONS}


class JudgmentRevision(models.Model):
    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="revisions")
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    changed_at = models.DateTimeField(auto_now_add=True)
    old = models.JSONField()
    new = models.JSONField()
    guideline = models.ForeignKey(Guideline, null=True, blank=True, on_delete=models.PROTECT)

    class Meta:
        ordering = ["changed_at", "id"]


class Provenance(models.TextChoices):
    AUTO = "auto", "Rounded mean"
    ADJUDICATED = "adjudicated", "Adjudicated"
    IMPORTED = "imported", "Imported with the post"


class FinalLabel(models.Model):
    """The label a post carries into modeling and releases; `version` guards against silent overwrites."""

    post = models.OneToOneField(Post, on_delete=models.CASCADE, related_name="final_label")
    explicit = models.PositiveSmallIntegerField()
    implicit = models.PositiveSmallIntegerField()
    emotional = models.PositiveSmallIntegerField()
    provenance = models.CharField(max_length=16, choices=Provenance.choices)
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT)
    rationale = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [*_score_checks("finallabel", DIMENSIONS, nullable=False)]

    def scores(self) -> dict[str, int]:
        return {d: getattr(self, d) for d in DIMENSIONS}


class WorkbenchSettings(models.Model):
    """Site-wide switches researchers control (a single row)."""

    show_annotator_names_to_adjudicators = models.BooleanField(
        default=False, help_text="Adjudicators see usernames instead of pseudonyms.")
    adjudication_span = models.PositiveSmallIntegerField(
        default=2, help_text="A post needs adjudication when its judgments span at least this many points on a dimension.")

    class Meta:
        verbose_name_plural = "workbench settings"

    @classmethod
    def current(cls) -> WorkbenchSettings:
        """The saved settings, or the defaults (unsaved: reading them writes nothing)."""
        return cls.objects.filter(pk=1).first() or cls(pk=1)


class AgreementReport(Job):
    """A cached agreement computation; the bootstrap runs as a background task."""

    bootstrap = models.PositiveIntegerField(default=1000)
    judgments_fingerprint = models.CharField(max_length=64, blank=True)
    payload = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class Release(models.Model):
    """An immutable, numbered, content-hashed dataset snapshot. Rows are never updated."""

    number = models.PositiveIntegerField(unique=True)
    content_hash = models.CharField(max_length=64)
    directory = models.CharField(max_length=500)
    manifest = models.JSONField(help_text="file name -> sha256")
    summary = models.JSONField(help_text="counts, label distributions, alpha")
    diff = models.JSONField(help_text="against the previous release")
    split_seed = models.IntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Releases are immutable; publish a new release instead.")
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"Release {self.number} ({self.content_hash[:12]})"
