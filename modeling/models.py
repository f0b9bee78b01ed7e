"""Training runs, scoring jobs, stored predictions and the editable keyword lexicon."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext, gettext_lazy as _

from core.jobs import Job, JobStatus


class LexiconKind(models.TextChoices):
    IDENTITY = "identity", _("Identity term")
    CODED = "coded", _("Coded term")
    SLUR = "slur", _("Slur")
    OTHER = "other", _("Other anchor")


class LexiconTerm(models.Model):
    """The keyword lexicon K for Myopia's promotion; the next run uses the active terms."""

    term = models.CharField(verbose_name=_("term"), max_length=64, unique=True)
    kind = models.CharField(verbose_name=_("kind"), max_length=16, choices=LexiconKind.choices,
                            default=LexiconKind.IDENTITY)
    active = models.BooleanField(verbose_name=_("active"), default=True)
    note = models.CharField(verbose_name=_("note"), max_length=200, blank=True)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("lexicon term")
        verbose_name_plural = _("lexicon terms")
        ordering = ["term"]

    def __str__(self) -> str:
        return self.term


class Variant(models.TextChoices):
    BASELINE = "baseline", _("Baseline")
    ASTIGMATISM = "astigmatism", _("Astigmatism only (w/o Myopia)")
    MYOPIA = "myopia", _("Myopia only (w/o Astigmatism)")
    FULL = "full", _("MAAM (full)")


class DevicePreference(models.TextChoices):
    AUTO = "auto", _("CUDA when present, else CPU")
    CUDA = "cuda", "CUDA"
    CPU = "cpu", "CPU"


class TrainingRun(Job):
    task_name = "modeling.tasks.run_training"

    launch_group = models.CharField(verbose_name=_("launch group"), max_length=36, db_index=True,
                                    help_text=_("Runs launched together share this id."))
    release = models.ForeignKey("annotation.Release", verbose_name=_("release"), null=True, blank=True,
                                on_delete=models.PROTECT)
    variant = models.CharField(verbose_name=_("variant"), max_length=16, choices=Variant.choices)
    dimensions = models.JSONField(verbose_name=_("dimensions"))
    seed = models.IntegerField(verbose_name=_("seed"), default=0)
    backbone = models.CharField(verbose_name=_("backbone"), max_length=500, default="char-ngram")
    hyperparameters = models.JSONField(verbose_name=_("hyperparameters"), default=dict, blank=True)
    # The preset and fusion settings the run trained with (modeling/maam/train.py PRESETS):
    # prior_mode, decode, myopia_mode, cis, fusion_order, min_gain. Empty for runs from before presets:
    # they trained with TrainConfig's defaults (raw priors, cue C-I-S inference), which a re-run keeps.
    fusion_settings = models.JSONField(verbose_name=_("fusion settings"), default=dict, blank=True)
    device = models.CharField(verbose_name=_("device"), max_length=8, choices=DevicePreference.choices,
                              default=DevicePreference.AUTO)
    # After the evaluation on the test split, train the saved (scoring) model again on every labelled
    # post of the data (docs/splits.md); the test metrics stay those of the train-split model.
    final_fit_all = models.BooleanField(
        verbose_name=_("final model on all posts"), default=False,
        help_text=_("After evaluating on the test split, train the saved scoring model on every labelled post."))
    # A release published with provisional labels: train and evaluate on them too (dropped by default;
    # metrics["provisional_dropped"] counts what was left out).
    include_provisional = models.BooleanField(
        verbose_name=_("include provisional labels"), default=False,
        help_text=_("Train and evaluate on the release's provisional labels too (posts still being scored); "
                    "left out by default."))
    status = models.CharField(verbose_name=_("status"), max_length=16, choices=JobStatus.choices,
                              default=JobStatus.QUEUED, db_index=True)
    metrics = models.JSONField(verbose_name=_("metrics"), null=True, blank=True)
    artifact_path = models.CharField(verbose_name=_("artifact path"), max_length=500, blank=True)
    artifact_checksum = models.CharField(verbose_name=_("artifact checksum"), max_length=64, blank=True)
    log_tail = models.TextField(verbose_name=_("log tail"), blank=True)
    celery_task_id = models.CharField(verbose_name=_("celery task id"), max_length=64, blank=True)
    lexicon_version = models.CharField(verbose_name=_("lexicon version"), max_length=64, blank=True)
    lexicon_terms = models.JSONField(verbose_name=_("lexicon terms"), default=list, blank=True)
    git_revision = models.CharField(verbose_name=_("git revision"), max_length=64, blank=True)
    versions = models.JSONField(verbose_name=_("versions"), default=dict, blank=True)
    device_used = models.CharField(verbose_name=_("device used"), max_length=16, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True,
                                   on_delete=models.SET_NULL)

    class Meta:
        verbose_name = _("training run")
        verbose_name_plural = _("training runs")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return gettext("Run %(id)s: %(variant)s, seed %(seed)s") % {"id": self.pk, "variant": self.get_variant_display(),
                                                                      "seed": self.seed}


class ScoringScope(models.TextChoices):
    ALL = "all", _("All posts")
    RELEASE = "release", _("The posts of a release")
    UPLOAD = "upload", _("An uploaded file")


class ScoringJob(Job):
    task_name = "modeling.tasks.run_scoring"

    run = models.ForeignKey(TrainingRun, verbose_name=_("run"), on_delete=models.PROTECT, related_name="scoring_jobs")
    scope = models.CharField(verbose_name=_("scope"), max_length=16, choices=ScoringScope.choices,
                             default=ScoringScope.ALL)
    release = models.ForeignKey("annotation.Release", verbose_name=_("release"), null=True, blank=True,
                                on_delete=models.PROTECT)
    upload_path = models.CharField(verbose_name=_("upload path"), max_length=500, blank=True)
    scored = models.PositiveIntegerField(verbose_name=_("scored"), default=0)
    output_path = models.CharField(verbose_name=_("output path"), max_length=500, blank=True)
    celery_task_id = models.CharField(verbose_name=_("celery task id"), max_length=64, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True,
                                   on_delete=models.SET_NULL)

    class Meta:
        verbose_name = _("scoring job")
        verbose_name_plural = _("scoring jobs")
        ordering = ["-created_at", "-id"]


class Prediction(models.Model):
    """A run's prediction for a post: per dimension the label and the five probabilities before
    and after calibration. Keyed by (post, run); re-scoring replaces them in one transaction."""

    post = models.ForeignKey("annotation.Post", verbose_name=_("post"), on_delete=models.CASCADE,
                             related_name="predictions")
    run = models.ForeignKey(TrainingRun, verbose_name=_("run"), on_delete=models.CASCADE, related_name="predictions")
    # NULL where the run did not train that dimension: no prediction, never a made-up 0.
    explicit = models.PositiveSmallIntegerField(verbose_name=_("explicit"), null=True, blank=True)
    implicit = models.PositiveSmallIntegerField(verbose_name=_("implicit"), null=True, blank=True)
    emotional = models.PositiveSmallIntegerField(verbose_name=_("emotional"), null=True, blank=True)
    probabilities = models.JSONField(verbose_name=_("probabilities"),
                                     help_text=_("{dimension: {before: [p1..p5], after: [p1..p5]}}"))
    cis_state = models.JSONField(verbose_name=_("cis state"), null=True, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("prediction")
        verbose_name_plural = _("predictions")
        constraints = [models.UniqueConstraint(fields=["post", "run"], name="prediction_once_per_run")]
        indexes = [models.Index(fields=["post", "-created_at"])]

    def __str__(self) -> str:
        return gettext("Prediction of run %(run)s for post #%(post)s") % {"run": self.run_id, "post": self.post_id}
