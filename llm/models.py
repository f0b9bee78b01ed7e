"""LLM baseline runs (issue 28): versioned prompt templates, runs (a Job), each raw answer per post
and run index, per-run scores, and the response cache that makes a re-run or a crash never pay
twice. No API key is ever stored here: a run keeps only the NAME of the environment variable."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext, gettext_lazy as _

from core.jobs import Job, JobStatus


class PromptTemplate(models.Model):
    """A versioned prompt, like the rubric: (name, version) is unique; version 1 of "paper-zero-shot"
    is the paper's prompt verbatim (seeded by migration 0002). A version used by a run is frozen:
    researchers add a new version instead of editing it."""

    name = models.CharField(verbose_name=_("name"), max_length=64)
    version = models.PositiveIntegerField(verbose_name=_("version"))
    text = models.TextField(verbose_name=_("template"),
                            help_text=_("A format string: {text} is the post; write literal braces as {{ and }}."))
    description = models.CharField(verbose_name=_("description"), max_length=300, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("prompt template")
        verbose_name_plural = _("prompt templates")
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="llm_template_version_once")]

    def __str__(self) -> str:
        return gettext("%(name)s v%(version)s") % {"name": self.name, "version": self.version}

    @property
    def is_used(self) -> bool:
        return self.pk is not None and self.runs.exists()

    def clean(self) -> None:
        from .prompts import TemplateError, template_check

        try:
            template_check(self.text)
        except TemplateError as exc:
            raise ValidationError({"text": str(exc)})

    def save(self, *args, **kwargs):
        if self.pk is not None and self.is_used:
            stored = PromptTemplate.objects.filter(pk=self.pk).values_list("name", "version", "text").first()
            if stored is not None and stored != (self.name, self.version, self.text):
                raise ValueError("This template version has been used by a run and is frozen; add a new version.")
        super().save(*args, **kwargs)


class Backend(models.TextChoices):
    OPENAI = "openai", _("OpenAI-compatible chat endpoint")
    LOCAL = "local", _("Local causal-LM checkpoint (transformers)")


class LocalScoring(models.TextChoices):
    LIKELIHOOD = "likelihood", _("Likelihood of the answers 1-5 (gives probabilities)")
    GENERATE = "generate", _("Generate an answer and parse it")


class LLMRun(Job):
    """One LLM baseline: R runs of one model with one template over a release's test split."""

    task_name = "llm.tasks.run_llm_baseline"

    release = models.ForeignKey("annotation.Release", verbose_name=_("release"), on_delete=models.PROTECT,
                                related_name="llm_runs")
    template = models.ForeignKey(PromptTemplate, verbose_name=_("prompt template"), on_delete=models.PROTECT,
                                 related_name="runs")
    # The exact text sent, kept with the run (the template row is frozen too, but this is the record).
    template_text = models.TextField(verbose_name=_("template text"))
    backend = models.CharField(verbose_name=_("backend"), max_length=16, choices=Backend.choices,
                               default=Backend.OPENAI)
    # OpenAI-compatible: the base URL an OpenAI client takes (e.g. http://127.0.0.1:8080/v1).
    # Local: the checkpoint directory (under /models).
    endpoint = models.CharField(verbose_name=_("endpoint"), max_length=500)
    model_name = models.CharField(verbose_name=_("model"), max_length=200)
    local_scoring = models.CharField(verbose_name=_("local scoring"), max_length=16, choices=LocalScoring.choices,
                                     default=LocalScoring.LIKELIHOOD)
    shots = models.PositiveSmallIntegerField(verbose_name=_("shots (K)"), default=0)
    runs = models.PositiveSmallIntegerField(verbose_name=_("runs (R)"), default=5)
    seed = models.IntegerField(verbose_name=_("seed"), default=0)
    temperature = models.FloatField(verbose_name=_("temperature"), default=0.0)
    max_tokens = models.PositiveIntegerField(verbose_name=_("max answer tokens"), default=256)
    # The NAME of the environment variable holding the key, never the key itself.
    api_key_env = models.CharField(verbose_name=_("API key environment variable"), max_length=100, blank=True)
    concurrency = models.PositiveSmallIntegerField(verbose_name=_("concurrent requests"), default=16)
    timeout_seconds = models.FloatField(verbose_name=_("request timeout (s)"), default=60.0)
    max_retries = models.PositiveSmallIntegerField(verbose_name=_("retries per request"), default=6)
    device = models.CharField(verbose_name=_("device"), max_length=8, default="auto")
    # Prices per million tokens at launch (settings.LLM_PRICES), for the estimate and the counted cost.
    price_input_per_mtok = models.FloatField(verbose_name=_("price per million input tokens"), default=0.0)
    price_output_per_mtok = models.FloatField(verbose_name=_("price per million output tokens"), default=0.0)
    estimate = models.JSONField(verbose_name=_("estimate"), default=dict, blank=True,
                                help_text=_("requests, tokens and cost estimated before launch"))
    # Counted while running and at the end.
    requests_sent = models.PositiveIntegerField(verbose_name=_("requests sent"), default=0)
    cache_hits = models.PositiveIntegerField(verbose_name=_("answers from the cache"), default=0)
    retries = models.PositiveIntegerField(verbose_name=_("retries"), default=0)
    unparsed = models.PositiveIntegerField(verbose_name=_("unparsed answers"), default=0)
    prompt_tokens = models.PositiveBigIntegerField(verbose_name=_("prompt tokens"), default=0)
    completion_tokens = models.PositiveBigIntegerField(verbose_name=_("completion tokens"), default=0)
    cost = models.FloatField(verbose_name=_("cost"), default=0.0)
    summary = models.JSONField(verbose_name=_("summary"), null=True, blank=True,
                               help_text=_("per dimension: mean and std over the runs of accuracy and macro-F1"))
    split = models.JSONField(verbose_name=_("split"), default=dict, blank=True)
    n_test = models.PositiveIntegerField(verbose_name=_("test posts"), default=0)
    device_used = models.CharField(verbose_name=_("device used"), max_length=16, blank=True)
    versions = models.JSONField(verbose_name=_("versions"), default=dict, blank=True)
    status = models.CharField(verbose_name=_("status"), max_length=16, choices=JobStatus.choices,
                              default=JobStatus.QUEUED, db_index=True)
    celery_task_id = models.CharField(verbose_name=_("celery task id"), max_length=64, blank=True)
    rerun_of = models.ForeignKey("self", verbose_name=_("re-run of"), null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="reruns")
    # An LLM as a rater (llm/rater.py): off by default; never shown to annotators, never in the
    # crowd's alpha, final labels or releases.
    rater_enabled = models.BooleanField(
        verbose_name=_("shown to adjudicators as a rater"), default=False,
        help_text=_("Show this run's scores to adjudicators beside model predictions (never to annotators)."))
    rater_in_aggregation = models.BooleanField(
        verbose_name=_("extra rater in the model-based aggregation"), default=False,
        help_text=_("Let the model-based aggregation use this run's scores as one more rater (off by default)."))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
                                   on_delete=models.SET_NULL)

    class Meta:
        verbose_name = _("LLM run")
        verbose_name_plural = _("LLM runs")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return gettext("LLM run %(id)s: %(model)s, %(shots)s-shot") % {"id": self.pk, "model": self.model_name,
                                                                        "shots": self.shots}


class LLMAnswer(models.Model):
    """One answer: a test post under one run index, the raw text as the model wrote it (kept for
    audit), the parsed scores (NULL = unparsed, never guessed), probabilities where the backend
    gives them, and the tokens it cost. Written with the run's success, in one transaction."""

    run = models.ForeignKey(LLMRun, verbose_name=_("run"), on_delete=models.CASCADE, related_name="answers")
    run_index = models.PositiveSmallIntegerField(verbose_name=_("run index"))
    post = models.ForeignKey("annotation.Post", verbose_name=_("post"), null=True, blank=True,
                             on_delete=models.SET_NULL, related_name="llm_answers")
    post_key = models.CharField(verbose_name=_("post key"), max_length=64)
    gold = models.JSONField(verbose_name=_("gold labels"), help_text=_("the release's labels for the post"))
    answer = models.TextField(verbose_name=_("raw answer"), blank=True)
    parsed = models.BooleanField(verbose_name=_("parsed"), default=False)
    explicit = models.PositiveSmallIntegerField(verbose_name=_("explicit"), null=True, blank=True)
    implicit = models.PositiveSmallIntegerField(verbose_name=_("implicit"), null=True, blank=True)
    emotional = models.PositiveSmallIntegerField(verbose_name=_("emotional"), null=True, blank=True)
    probabilities = models.JSONField(verbose_name=_("probabilities"), null=True, blank=True,
                                     help_text=_("{dimension: [p1..p5]} where the backend gives them"))
    prompt_tokens = models.PositiveIntegerField(verbose_name=_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(verbose_name=_("completion tokens"), default=0)
    from_cache = models.BooleanField(verbose_name=_("from the cache"), default=False)
    cache_key = models.CharField(verbose_name=_("cache key"), max_length=64)

    class Meta:
        verbose_name = _("LLM answer")
        verbose_name_plural = _("LLM answers")
        ordering = ["run", "run_index", "post_key"]
        constraints = [models.UniqueConstraint(fields=["run", "run_index", "post_key"], name="llm_answer_once")]

    def __str__(self) -> str:
        return gettext("Answer of LLM run %(run)s (%(index)s) for %(post)s") % {
            "run": self.run_id, "index": self.run_index, "post": self.post_key}

    def scores(self) -> dict[str, int | None]:
        return {"explicit": self.explicit, "implicit": self.implicit, "emotional": self.emotional}


class LLMRunScore(models.Model):
    """One run index's scores on one dimension (the paper's five runs give five rows per dimension)."""

    run = models.ForeignKey(LLMRun, verbose_name=_("run"), on_delete=models.CASCADE, related_name="scores")
    run_index = models.PositiveSmallIntegerField(verbose_name=_("run index"))
    dimension = models.CharField(verbose_name=_("dimension"), max_length=16)
    accuracy = models.FloatField(verbose_name=_("accuracy"))
    macro_f1 = models.FloatField(verbose_name=_("macro-F1"))
    brier = models.FloatField(verbose_name=_("Brier score"), null=True, blank=True)
    ece = models.FloatField(verbose_name=_("ECE"), null=True, blank=True)
    n = models.PositiveIntegerField(verbose_name=_("posts"))
    unparsed = models.PositiveIntegerField(verbose_name=_("unparsed answers"), default=0)

    class Meta:
        verbose_name = _("LLM run score")
        verbose_name_plural = _("LLM run scores")
        ordering = ["run", "run_index", "dimension"]
        constraints = [models.UniqueConstraint(fields=["run", "run_index", "dimension"], name="llm_score_once")]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.run_index}/{self.dimension}"


class LLMResponseCache(models.Model):
    """A response, keyed by sha256 of (backend, endpoint, model, template text, post text, shots,
    seed, temperature, run index, answer-length cap) - never the API key. Written as each answer
    arrives, outside the run's transaction, so a run killed midway keeps what it paid for."""

    key = models.CharField(verbose_name=_("key"), max_length=64, unique=True)
    answer = models.TextField(verbose_name=_("raw answer"), blank=True)
    probabilities = models.JSONField(verbose_name=_("probabilities"), null=True, blank=True)
    prompt_tokens = models.PositiveIntegerField(verbose_name=_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(verbose_name=_("completion tokens"), default=0)
    model_reported = models.CharField(verbose_name=_("model reported"), max_length=200, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("LLM response cache entry")
        verbose_name_plural = _("LLM response cache")

    def __str__(self) -> str:
        return self.key[:12]
