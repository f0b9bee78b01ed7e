"""Posts, batches, assignments, blind judgments with revisions, guidelines and final labels."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, gettext_lazy as _

from core.jobs import Job


class Dimension(models.TextChoices):
    EXPLICIT = "explicit", _("Explicit bias")
    IMPLICIT = "implicit", _("Implicit bias")
    EMOTIONAL = "emotional", _("Emotional intensity")


DIMENSIONS: tuple[str, ...] = tuple(Dimension.values)
SCORE_RANGE = range(1, 6)


class Tone(models.TextChoices):
    FUNNY = "Funny", _("Funny")
    GENERAL = "General", _("General")
    SERIOUS = "Serious", _("Serious")


class Identity(models.TextChoices):
    INGROUP = "Ingroup", _("Ingroup")
    OUTGROUP = "Outgroup", _("Outgroup")
    UNCERTAIN = "Uncertain", _("Uncertain")


class Stance(models.TextChoices):
    PRO = "Pro", _("Pro")
    ANTI = "Anti", _("Anti")
    NEUTRAL = "Neutral", _("Neutral")


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

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE,
                                related_name="annotator_profile")
    pseudonym = models.CharField(verbose_name=_("pseudonym"), max_length=32, unique=True)
    community_member = models.BooleanField(
        verbose_name=_("community member"), null=True, blank=True,
        help_text=_("Member of the targeted community (for subgroup agreement)."))
    attributes = models.JSONField(verbose_name=_("attributes"), default=dict, blank=True)

    class Meta:
        verbose_name = _("annotator profile")
        verbose_name_plural = _("annotator profiles")

    def __str__(self) -> str:
        return self.pseudonym


class Guideline(models.Model):
    """A versioned scoring rubric; every judgment records the version in force."""

    version = models.PositiveIntegerField(verbose_name=_("version"), unique=True)
    title = models.CharField(verbose_name=_("title"), max_length=200)
    rubric = models.JSONField(verbose_name=_("rubric"), help_text=_("{dimension: {score: {explanation, example}}}"))
    is_active = models.BooleanField(verbose_name=_("is active"), default=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("guideline")
        verbose_name_plural = _("guidelines")
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"v{self.version}: {self.title}"


class Batch(models.Model):
    name = models.CharField(verbose_name=_("name"), max_length=120, unique=True)
    annotators_per_post = models.PositiveSmallIntegerField(verbose_name=_("annotators per post"), default=6)
    assignment_timeout_minutes = models.PositiveIntegerField(verbose_name=_("assignment timeout minutes"), default=30)
    annotators = models.ManyToManyField(settings.AUTH_USER_MODEL, verbose_name=_("annotators"), blank=True,
                                        related_name="batches")
    locked_at = models.DateTimeField(verbose_name=_("locked at"), null=True, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    # How many posts the batch holds, kept by the database itself (triggers on the posts' table,
    # annotation/counters.py) whatever writes the posts: the progress bar reads it on every scoring
    # step instead of counting the batch (issue 27).
    post_count = models.PositiveIntegerField(verbose_name=_("posts"), default=0, editable=False)

    class Meta:
        verbose_name = _("batch")
        ordering = ["created_at", "id"]
        verbose_name_plural = _("batches")

    @property
    def is_locked(self) -> bool:
        return self.locked_at is not None

    def save(self, *args, **kwargs):
        """Never writes post_count back over the database's own count (an import may have added
        posts since this row was read): an existing batch is saved without it."""
        if not self._state.adding and kwargs.get("update_fields") is None and not kwargs.get("force_insert"):
            kwargs["update_fields"] = [f.name for f in self._meta.concrete_fields
                                       if not f.primary_key and f.name != "post_count"]
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return self.name


class Post(models.Model):
    external_id = models.CharField(verbose_name=_("external id"), max_length=64, null=True, blank=True, unique=True)
    text = models.TextField(verbose_name=_("text"),
                            help_text=_("Cleaned text shown to annotators and used for modeling."))
    text_sha256 = models.CharField(verbose_name=_("text sha256"), max_length=64, unique=True)
    raw_text = models.TextField(verbose_name=_("raw text"), help_text=_("Text as imported, kept privately for audit."))
    batch = models.ForeignKey(Batch, verbose_name=_("batch"), null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="posts")
    tone = models.CharField(verbose_name=_("tone"), max_length=16, choices=Tone.choices, blank=True)
    identity = models.CharField(verbose_name=_("identity"), max_length=16, choices=Identity.choices, blank=True)
    stance = models.CharField(verbose_name=_("stance"), max_length=16, choices=Stance.choices, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    # Claims holding one of the post's k slots (submitted, or assigned and not lapsed; gold items
    # never), kept by assignment/services.py in the transaction of every claim, submit, skip and
    # expiry, so choosing the least-covered post is an index range scan.
    live_claims = models.PositiveIntegerField(verbose_name=_("live claims"), default=0, editable=False)
    # Taken down (publication/takedowns.py): set for good in the takedown's transaction, beside the
    # Takedown row that records the request. The claim path reads it from the post's own row (rule 4
    # of the visibility policy, annotation/visibility/withdrawn.py) instead of probing the takedowns.
    withdrawn = models.BooleanField(verbose_name=_("withdrawn"), default=False, editable=False)

    class Meta:
        verbose_name = _("post")
        verbose_name_plural = _("posts")
        ordering = ["id"]
        indexes = [
            # The pick (assignment/selectors.py claim_candidates_sql): posts that can still be served.
            models.Index(fields=["batch", "live_claims", "id"], condition=Q(withdrawn=False), name="post_next_claim"),
            # The few withdrawn posts of a batch (the progress bar's total).
            models.Index(fields=["batch"], condition=Q(withdrawn=True), name="post_withdrawn"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.text[:30]}"


class AssignmentStatus(models.TextChoices):
    ASSIGNED = "assigned", _("Assigned")
    SUBMITTED = "submitted", _("Submitted")
    SKIPPED = "skipped", _("Skipped")
    # "Too distressing to score" (wellbeing/services.py): the slot goes back to the pool, the post is
    # never served to this annotator again, and it is neither a skip nor a judgment.
    SET_ASIDE = "set_aside", _("Set aside as too distressing")


class Assignment(models.Model):
    """One row per (post, annotator) ever: an annotator never gets a post twice."""

    post = models.ForeignKey(Post, verbose_name=_("post"), on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE,
                                  related_name="assignments")
    status = models.CharField(verbose_name=_("status"), max_length=16, choices=AssignmentStatus.choices,
                              default=AssignmentStatus.ASSIGNED)
    assigned_at = models.DateTimeField(verbose_name=_("assigned at"))
    completed_at = models.DateTimeField(verbose_name=_("completed at"), null=True, blank=True)
    # Set when the post was mixed into this batch's queue as a gold (control) item: it then never
    # holds one of the post's k slots, and the judgment made on it is a gold judgment.
    gold_batch = models.ForeignKey(Batch, verbose_name=_("gold batch"), null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="gold_assignments")
    # An assigned claim past its batch's timeout whose slot went back to the pool (its owner may
    # resume it while the post has room). Set by `claims_release_expired` (assignment/services.py).
    lapsed = models.BooleanField(verbose_name=_("lapsed"), default=False)

    class Meta:
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [models.UniqueConstraint(fields=["post", "annotator"], name="assignment_once_per_annotator")]
        indexes = [
            models.Index(fields=["annotator", "status"]), models.Index(fields=["post", "status"]),
            # Open real claims only (a few per annotator): finding the expired ones never scans a batch.
            # Every reader asks for real claims (gold_batch IS NULL): in the predicate, the planner
            # never has to combine this index with the gold_batch one (thousands of NULL entries).
            models.Index(fields=["assigned_at"], condition=Q(status="assigned", lapsed=False, gold_batch__isnull=True),
                         name="assignment_open_claims"),
        ]

    def __str__(self) -> str:
        return gettext("%(annotator)s: post #%(post)s") % {"annotator": self.annotator, "post": self.post_id}

    @property
    def holds_slot(self) -> bool:
        """Whether this claim counts toward the post's k (Post.live_claims counts exactly these)."""
        return self.gold_batch_id is None and (
            self.status == AssignmentStatus.SUBMITTED or (self.status == AssignmentStatus.ASSIGNED and not self.lapsed))


class BatchProgress(models.Model):
    """How many posts of a batch one annotator has submitted and skipped (gold items aside), kept by
    assignment/services.py, so the progress bar reads one row instead of counting."""

    batch = models.ForeignKey(Batch, verbose_name=_("batch"), on_delete=models.CASCADE, related_name="progress_rows")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE,
                                  related_name="+")
    submitted = models.IntegerField(verbose_name=_("submitted"), default=0)
    skipped = models.IntegerField(verbose_name=_("skipped"), default=0)

    class Meta:
        verbose_name = _("batch progress")
        constraints = [models.UniqueConstraint(fields=["batch", "annotator"], name="batchprogress_once")]
        verbose_name_plural = _("batch progress")


class JudgmentQuerySet(models.QuerySet):
    def counted(self) -> JudgmentQuerySet:
        """Judgments that count toward agreement, final labels, adjudication and releases: all but
        the answers to gold items mixed into queues (annotation/quality/services.py)."""
        return self.filter(gold=False)


class Judgment(models.Model):
    post = models.ForeignKey(Post, verbose_name=_("post"), on_delete=models.CASCADE, related_name="judgments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.PROTECT,
                                  related_name="judgments")
    explicit = models.PositiveSmallIntegerField(verbose_name=_("explicit"), null=True)
    implicit = models.PositiveSmallIntegerField(verbose_name=_("implicit"), null=True)
    emotional = models.PositiveSmallIntegerField(verbose_name=_("emotional"), null=True)
    seconds_spent = models.FloatField(verbose_name=_("seconds spent"), default=0)
    note = models.TextField(verbose_name=_("note"), blank=True)
    flagged = models.BooleanField(verbose_name=_("flagged"), default=False)
    guideline = models.ForeignKey(Guideline, verbose_name=_("guideline"), null=True, blank=True,
                                  on_delete=models.PROTECT)
    # An answer to a gold item mixed into the queue: it measures the annotator and never counts
    # toward agreement, final labels, adjudication or releases (use `Judgment.objects.counted()`).
    gold = models.BooleanField(verbose_name=_("gold"), default=False)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    objects = JudgmentQuerySet.as_manager()

    class Meta:
        verbose_name = _("judgment")
        verbose_name_plural = _("judgments")
        constraints = [
            models.UniqueConstraint(fields=["post", "annotator"], name="judgment_once_per_annotator"),
            # Scores are nullable only for judgments imported from elsewhere with missing cells.
            *_score_checks("judgment", DIMENSIONS, nullable=True),
        ]
        indexes = [models.Index(fields=["annotator", "updated_at"])]

    def __str__(self) -> str:
        return gettext("Judgment of post #%(post)s by %(annotator)s") % {"post": self.post_id, "annotator": self.annotator}

    def scores(self) -> dict[str, int | None]:
        return {d: getattr(self, d) for d in DIMENSIONS}


class JudgmentRevision(models.Model):
    judgment = models.ForeignKey(Judgment, verbose_name=_("judgment"), on_delete=models.CASCADE,
                                 related_name="revisions")
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("changed by"), on_delete=models.PROTECT)
    changed_at = models.DateTimeField(verbose_name=_("changed at"), auto_now_add=True)
    old = models.JSONField(verbose_name=_("old"))
    new = models.JSONField(verbose_name=_("new"))
    guideline = models.ForeignKey(Guideline, verbose_name=_("guideline"), null=True, blank=True,
                                  on_delete=models.PROTECT)

    class Meta:
        verbose_name = _("judgment revision")
        verbose_name_plural = _("judgment revisions")
        ordering = ["changed_at", "id"]


class Provenance(models.TextChoices):
    AUTO = "auto", _("Rounded mean")
    ADJUDICATED = "adjudicated", _("Adjudicated")
    IMPORTED = "imported", _("Imported with the post")
    AGGREGATE = "aggregate", _("Model-based aggregate")


# Labels the workbench computes (not set by a person): refreshed on every publish, and the first
# adjudicator may replace them without a version check.
AUTOMATIC = (Provenance.AUTO, Provenance.AGGREGATE)


class FinalLabel(models.Model):
    """The label a post carries into modeling and releases; `version` guards against silent overwrites."""

    post = models.OneToOneField(Post, verbose_name=_("post"), on_delete=models.CASCADE, related_name="final_label")
    explicit = models.PositiveSmallIntegerField(verbose_name=_("explicit"))
    implicit = models.PositiveSmallIntegerField(verbose_name=_("implicit"))
    emotional = models.PositiveSmallIntegerField(verbose_name=_("emotional"))
    provenance = models.CharField(verbose_name=_("provenance"), max_length=16, choices=Provenance.choices)
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("adjudicator"), null=True, blank=True,
                                    on_delete=models.PROTECT)
    rationale = models.TextField(verbose_name=_("rationale"), blank=True)
    version = models.PositiveIntegerField(verbose_name=_("version"), default=1)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("final label")
        verbose_name_plural = _("final labels")
        constraints = [*_score_checks("finallabel", DIMENSIONS, nullable=False)]

    def __str__(self) -> str:
        return gettext("Final label of post #%(post)s") % {"post": self.post_id}

    def scores(self) -> dict[str, int]:
        return {d: getattr(self, d) for d in DIMENSIONS}


class FinalLabelMethod(models.TextChoices):
    ROUNDED_MEAN = "rounded_mean", _("Rounded mean (paper)")
    AGGREGATE = "aggregate", _("Model-based aggregate (ordinal Dawid-Skene)")


class WorkbenchSettings(models.Model):
    """Site-wide switches researchers control (a single row)."""

    show_annotator_names_to_adjudicators = models.BooleanField(
        verbose_name=_("show annotator names to adjudicators"), default=False,
        help_text=_("Adjudicators see usernames instead of pseudonyms."))
    adjudication_span = models.PositiveSmallIntegerField(
        verbose_name=_("adjudication span"), default=2,
        help_text=_("A post needs adjudication when its judgments span at least this many points on a dimension."))
    final_label_method = models.CharField(
        verbose_name=_("final label method"), max_length=16, choices=FinalLabelMethod.choices,
        default=FinalLabelMethod.ROUNDED_MEAN,
        help_text=_("What a post's automatic final label is: the rounded mean of its judgments (halves up, as in the "
                    "paper), or the model-based aggregate (docs/quality.md). Adjudicated and imported labels win either way."))

    class Meta:
        verbose_name = _("workbench settings")
        verbose_name_plural = _("workbench settings")

    def __str__(self) -> str:
        return str(self._meta.verbose_name)

    @classmethod
    def current(cls) -> WorkbenchSettings:
        """The saved settings, or the defaults (unsaved: reading them writes nothing)."""
        return cls.objects.filter(pk=1).first() or cls(pk=1)


class AgreementReport(Job):
    """A cached agreement computation; the bootstrap runs as a background task."""

    task_name = "annotation.tasks.agreement_bootstrap_task"
    bootstrap = models.PositiveIntegerField(verbose_name=_("bootstrap"), default=1000)
    judgments_fingerprint = models.CharField(verbose_name=_("judgments fingerprint"), max_length=64, blank=True)
    payload = models.JSONField(verbose_name=_("payload"), null=True, blank=True)

    class Meta:
        verbose_name = _("agreement report")
        verbose_name_plural = _("agreement reports")
        ordering = ["-created_at"]


class ReleaseKind(models.TextChoices):
    INTERNAL = "internal", _("Internal (original texts)")
    PUBLIC = "public", _("Public (confirmed rewrites only)")


class SplitScheme(models.TextChoices):
    PAPER = "paper", _("The paper's 1,000 / rest")
    STRATIFIED = "stratified", _("Stratified 80/20")
    KFOLD = "kfold", _("Stratified k folds")


class Release(models.Model):
    """An immutable, numbered, content-hashed dataset snapshot. Rows are never updated."""

    number = models.PositiveIntegerField(verbose_name=_("number"), unique=True)
    content_hash = models.CharField(verbose_name=_("content hash"), max_length=64)
    directory = models.CharField(verbose_name=_("directory"), max_length=500)
    manifest = models.JSONField(verbose_name=_("manifest"), help_text=_("file name -> sha256"))
    summary = models.JSONField(verbose_name=_("summary"), help_text=_("counts, label distributions, alpha"))
    diff = models.JSONField(verbose_name=_("diff"), help_text=_("against the previous release"))
    split_seed = models.IntegerField(verbose_name=_("split seed"), default=0)
    # The split the release offers (annotation/releases/files.py SPLIT_SCHEMES, docs/splits.md); releases
    # published before the choice existed all used the paper's 1,000 / rest.
    split_scheme = models.CharField(verbose_name=_("split scheme"), max_length=16, choices=SplitScheme.choices,
                                    default=SplitScheme.PAPER)
    split_folds = models.PositiveSmallIntegerField(verbose_name=_("folds"), null=True, blank=True,
                                                   help_text=_("number of folds (k-fold splits only)"))
    # Internal releases hold the (cleaned, masked) original texts and stay inside the instance; public
    # ones hold only confirmed, non-searchable rewrites (publication/releasing.py, docs/publication.md).
    kind = models.CharField(verbose_name=_("kind"), max_length=16, choices=ReleaseKind.choices,
                            default=ReleaseKind.INTERNAL)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True,
                                   on_delete=models.PROTECT)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("release")
        verbose_name_plural = _("releases")
        ordering = ["-number"]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Releases are immutable; publish a new release instead.")
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return gettext("Release %(number)s (%(hash)s)") % {"number": self.number, "hash": self.content_hash[:12]}


# --- Annotator quality (issue 12; the code is in annotation/quality/, docs/quality.md) -----------------

class GoldSource(models.TextChoices):
    RELEASE = "release", _("From a release")
    ADJUDICATED = "adjudicated", _("From an adjudicated label")
    UPLOAD = "upload", _("Uploaded with labels")


class GoldItem(models.Model):
    """A post with a known label, used to measure annotators: mixed into queues (judgments on it are
    gold judgments, Judgment.gold) and in qualification sets. Its label is a copy, so a later change
    of the post's final label does not rewrite what annotators were measured against."""

    post = models.OneToOneField(Post, verbose_name=_("post"), on_delete=models.CASCADE, related_name="gold_item")
    explicit = models.PositiveSmallIntegerField(verbose_name=_("explicit"))
    implicit = models.PositiveSmallIntegerField(verbose_name=_("implicit"))
    emotional = models.PositiveSmallIntegerField(verbose_name=_("emotional"))
    source = models.CharField(verbose_name=_("source"), max_length=16, choices=GoldSource.choices)
    release = models.ForeignKey(Release, verbose_name=_("release"), null=True, blank=True, on_delete=models.PROTECT,
                                related_name="gold_items")
    active = models.BooleanField(verbose_name=_("active"), default=True,
                                 help_text=_("Retired gold items are no longer mixed into queues."))
    # Set once the item joins a qualification set (annotation/visibility: the signal on the set), never
    # cleared: the set can be read on its qualification page, so the item is never mixed into queues.
    qualification_used = models.BooleanField(
        verbose_name=_("used for qualification"), default=False, editable=False,
        help_text=_("It has been in a qualification set, so it is never mixed into queues, even after leaving the set."))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
                                   on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("gold item")
        verbose_name_plural = _("gold items")
        ordering = ["id"]
        constraints = [*_score_checks("golditem", DIMENSIONS, nullable=False)]

    def scores(self) -> dict[str, int]:
        return {d: getattr(self, d) for d in DIMENSIONS}

    def __str__(self) -> str:
        return gettext("Gold item: post #%(post)s") % {"post": self.post_id}


class BatchQuality(models.Model):
    """Quality control of one batch: the share of gold items mixed into each annotator's queue, and
    the qualification round a new annotator passes before the real queue opens. No row = no gold,
    no qualification."""

    batch = models.OneToOneField(Batch, verbose_name=_("batch"), on_delete=models.CASCADE, related_name="quality")
    gold_rate = models.FloatField(
        verbose_name=_("gold rate"), default=0.0,
        help_text=_("Share of each annotator's items that are gold items (0 = none, at most 0.5)."))
    qualification_required = models.BooleanField(verbose_name=_("qualification required"), default=False)
    qualification_items = models.ManyToManyField(GoldItem, verbose_name=_("qualification items"), blank=True,
                                                 related_name="qualification_batches")
    pass_max_mae_explicit = models.FloatField(verbose_name=_("pass max mae explicit"), default=0.75,
                                              help_text=_("Largest mean absolute error that passes."))
    pass_max_mae_implicit = models.FloatField(verbose_name=_("pass max mae implicit"), default=0.75,
                                              help_text=_("Largest mean absolute error that passes."))
    pass_max_mae_emotional = models.FloatField(verbose_name=_("pass max mae emotional"), default=0.75,
                                               help_text=_("Largest mean absolute error that passes."))

    class Meta:
        verbose_name = _("batch quality")
        verbose_name_plural = _("batch quality settings")
        constraints = [models.CheckConstraint(condition=Q(gold_rate__gte=0) & Q(gold_rate__lte=0.5),
                                              name="batchquality_gold_rate_0_half")]

    def pass_thresholds(self) -> dict[str, float]:
        return {d: getattr(self, f"pass_max_mae_{d}") for d in DIMENSIONS}

    def __str__(self) -> str:
        return gettext("Quality settings of %(batch)s") % {"batch": self.batch}


class QualificationAttempt(models.Model):
    """One go at a batch's qualification set; every attempt is kept. A failed attempt can be followed
    by another only after a researcher resets it."""

    batch = models.ForeignKey(Batch, verbose_name=_("batch"), on_delete=models.CASCADE,
                              related_name="qualification_attempts")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE,
                                  related_name="qualification_attempts")
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    passed = models.BooleanField(verbose_name=_("passed"))
    mae = models.JSONField(verbose_name=_("mae"), help_text=_("{dimension: mean absolute error against gold}"))
    thresholds = models.JSONField(verbose_name=_("thresholds"),
                                  help_text=_("{dimension: largest MAE that passed} at the time of the attempt"))
    submitted_at = models.DateTimeField(verbose_name=_("submitted at"), auto_now_add=True)
    reset_at = models.DateTimeField(verbose_name=_("reset at"), null=True, blank=True)
    reset_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("reset by"), null=True, blank=True,
                                 on_delete=models.SET_NULL,
                                 related_name="+")

    class Meta:
        verbose_name = _("qualification attempt")
        verbose_name_plural = _("qualification attempts")
        ordering = ["batch_id", "annotator_id", "number"]
        constraints = [models.UniqueConstraint(fields=["batch", "annotator", "number"],
                                               name="qualification_attempt_number")]

    def __str__(self) -> str:
        return gettext("Qualification of %(annotator)s in %(batch)s") % {"annotator": self.annotator, "batch": self.batch}


class QualificationAnswer(models.Model):
    attempt = models.ForeignKey(QualificationAttempt, verbose_name=_("attempt"), on_delete=models.CASCADE,
                                related_name="answers")
    gold_item = models.ForeignKey(GoldItem, verbose_name=_("gold item"), on_delete=models.PROTECT,
                                  related_name="qualification_answers")
    explicit = models.PositiveSmallIntegerField(verbose_name=_("explicit"))
    implicit = models.PositiveSmallIntegerField(verbose_name=_("implicit"))
    emotional = models.PositiveSmallIntegerField(verbose_name=_("emotional"))
    gold = models.JSONField(verbose_name=_("gold"), help_text=_("the gold label at the time of the attempt"))

    class Meta:
        verbose_name = _("qualification answer")
        verbose_name_plural = _("qualification answers")
        ordering = ["attempt_id", "id"]
        constraints = [models.UniqueConstraint(fields=["attempt", "gold_item"], name="qualification_answer_once"),
                       *_score_checks("qualificationanswer", DIMENSIONS, nullable=False)]

    def scores(self) -> dict[str, int]:
        return {d: getattr(self, d) for d in DIMENSIONS}


class AggregationRun(Job):
    """A fit of the ordinal aggregation model (annotation/quality/aggregation.py) to every counted
    judgment; on success its labels replace the previous run's AggregateLabel rows."""

    task_name = "annotation.tasks.aggregation_task"
    judgments_fingerprint = models.CharField(verbose_name=_("judgments fingerprint"), max_length=64, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("requested by"), null=True,
                                     blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    summary = models.JSONField(verbose_name=_("summary"), null=True, blank=True,
                               help_text=_("per dimension: fit diagnostics, agreement with the rounded mean; "
                                           "per annotator: reliability (bias, scale, spam rate, expected error)"))

    class Meta:
        verbose_name = _("aggregation run")
        verbose_name_plural = _("aggregation runs")
        ordering = ["-created_at", "-id"]


class AggregateLabel(models.Model):
    """The model-based label of a post from the latest successful aggregation run: per dimension the
    posterior mode and its probability (NULL where nobody scored that dimension)."""

    post = models.OneToOneField(Post, verbose_name=_("post"), on_delete=models.CASCADE, related_name="aggregate")
    run = models.ForeignKey(AggregationRun, verbose_name=_("run"), on_delete=models.CASCADE, related_name="labels")
    explicit = models.PositiveSmallIntegerField(verbose_name=_("explicit"), null=True)
    implicit = models.PositiveSmallIntegerField(verbose_name=_("implicit"), null=True)
    emotional = models.PositiveSmallIntegerField(verbose_name=_("emotional"), null=True)
    explicit_confidence = models.FloatField(verbose_name=_("explicit confidence"), null=True)
    implicit_confidence = models.FloatField(verbose_name=_("implicit confidence"), null=True)
    emotional_confidence = models.FloatField(verbose_name=_("emotional confidence"), null=True)

    class Meta:
        verbose_name = _("aggregate label")
        verbose_name_plural = _("aggregate labels")
        constraints = [*_score_checks("aggregatelabel", DIMENSIONS, nullable=True)]

    def scores(self) -> dict[str, int | None]:
        return {d: getattr(self, d) for d in DIMENSIONS}

    def confidences(self) -> dict[str, float | None]:
        return {d: getattr(self, f"{d}_confidence") for d in DIMENSIONS}


from .importing.models import PostImport  # noqa: E402,F401  (an import running in the background)
