"""Writes for the modeling app: launch, execute, cancel, re-run training runs; scoring jobs;
the lost-job check is core.jobs.jobs_fail_lost. Tasks and admin views call these."""
from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.models import DIMENSIONS, Post, Release
from audit.services import audit_event, audit_record
from annotation.releases.files import post_key
from annotation.releases.selectors import labelled_posts
from core.errors import DomainError, NotFound, QueueUnavailable
from core.jobs import (
    TRANSIENT_ERRORS,
    JobDone,
    JobStatus,
    job_cancel,
    job_fail,
    job_progress,
    job_run,
    jobs_fail_lost,
)

from .maam.backbones import OFFLINE_BACKBONES
from .maam.train import PRESETS

DEFAULT_PRESET = "best-offline"  # what new runs use (docs/maam_offline.md); "paper" is the paper's reading
FUSION_SETTING_KEYS = ("prior_mode", "decode", "myopia_mode", "cis", "fusion_order", "min_gain")
# The preset's stacker and decision offsets (docs/best_offline.md): applied to the runs whose variant
# has no Astigmatism (the preset's own variant is baseline); full / astigmatism runs take the fusion keys.
STACKING_KEYS = ("stack", "offsets", "stack_backbones")
from .maam.lexicon import Lexicon, LexiconEntry
from .models import LexiconTerm, Prediction, ScoringJob, ScoringScope, TrainingRun, Variant

PROGRESS_WRITE_SECONDS = 1.0
LOG_TAIL_CHARS = 4000


# --------------------------------------------------------------------------- helpers

def lexicon_current() -> Lexicon:
    terms = list(LexiconTerm.objects.filter(active=True).values_list("term", "kind"))
    lexicon = Lexicon(tuple(LexiconEntry(t, k) for t, k in terms))
    lexicon.version = f"db:{lexicon.digest()}"
    return lexicon


def git_revision() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR if hasattr(settings, "BASE_DIR") else None,
                             capture_output=True, text=True, timeout=5)
        return out.stdout.strip()[:40]
    except (OSError, subprocess.SubprocessError):
        return ""


def queue_check() -> None:
    """Refuse to launch when the broker is down, instead of losing the job."""
    from chlgbt_site.celery import app

    if app.conf.task_always_eager:
        return
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        raise QueueUnavailable(_("The task queue is unavailable (%(error)s); nothing was launched. "
                                 "Check that Redis is running and try again.") % {"error": exc.__class__.__name__}) from exc


def release_data(release: Release | None, seed: int = 0, include_provisional: bool = False) -> dict:
    """Training and test data: a release's own split (its files checked against the manifest; on a
    k-fold release seed s tests on fold s mod k), or the current final labels split by seed
    (modeling/splits.py); a release's provisional labels are dropped unless `include_provisional`."""
    from .splits import run_split

    return run_split(release, seed, include_provisional=include_provisional)


def manual_tags(keys: list[str]) -> list[dict | None]:
    """The C-I-S tags adjudicators set (Post.tone / identity / stance, all three), per post key."""
    tagged = {post_key(p.external_id, p.text_sha256): {"C": p.tone, "I": p.identity, "S": p.stance}
              for p in Post.objects.exclude(tone="").exclude(identity="").exclude(stance="")
              .only("external_id", "text_sha256", "tone", "identity", "stance")}
    return [tagged.get(k) for k in keys]


def _validate_launch(*, release: Release | None, dimensions, variants, seeds, backbone: str,
                     include_provisional: bool = False) -> None:
    if not dimensions or any(d not in DIMENSIONS for d in dimensions):
        raise DomainError(_("Choose dimensions among %(choices)s.") % {"choices": ", ".join(DIMENSIONS)})
    if not variants or any(v not in Variant.values for v in variants):
        raise DomainError(_("Choose variants among %(choices)s.") % {"choices": ", ".join(Variant.values)})
    if not seeds:
        raise DomainError(_("Give at least one seed."))
    if backbone not in OFFLINE_BACKBONES and not os.path.isdir(backbone):
        from huggingface_hub import try_to_load_from_cache

        try:
            cached = try_to_load_from_cache(backbone, "config.json")
        except Exception:  # not even a valid hub id
            cached = None
        if not isinstance(cached, str):
            raise DomainError(_("Backbone %(backbone)r is neither one of %(offline)s, a local model directory, nor in the "
                                "Hugging Face cache; this machine cannot download it.")
                              % {"backbone": backbone, "offline": ", ".join(OFFLINE_BACKBONES)})
    data = release_data(release, seeds[0], include_provisional)
    if len(data["train"]) < 10 or not data["test"]:
        raise DomainError(_("The split is too small: %(train)s training and %(test)s test posts "
                            "(need at least 10 and 1). Publish a release with more labelled posts.")
                          % {"train": len(data["train"]), "test": len(data["test"])})
    for d in dimensions:
        classes = {r[d] for r in data["train"]}
        if len(classes) < 2:
            raise DomainError(_("The training labels of %(dimension)s have a single class (%(label)s); nothing can be learned.")
                              % {"dimension": d, "label": classes.pop()})


# --------------------------------------------------------------------------- launch / control

def training_run_launch(*, created_by, release_id: int | None, dimensions: list[str], variants: list[str],
                        seeds: list[int], backbone: str | None = None, hyperparameters: dict | None = None,
                        device: str = "auto", preset: str = DEFAULT_PRESET,
                        fusion_settings: dict | None = None, final_fit_all: bool = False,
                        include_provisional: bool = False) -> list[TrainingRun]:
    """Create one run per variant x seed (one launch of 'the ablation') and enqueue them. Each run
    records the preset's fusion settings (or `fusion_settings` verbatim: a re-run); the backbone
    is the caller's, else the preset's. A release's provisional labels are left out of training and
    evaluation unless `include_provisional`."""
    release = None
    if release_id is not None:
        release = Release.objects.filter(pk=release_id).first()
        if release is None:
            raise NotFound(_("No such release."))
    if preset not in PRESETS:
        raise DomainError(_("Unknown preset %(preset)r; choose one of %(presets)s.")
                          % {"preset": preset, "presets": ", ".join(sorted(PRESETS))})
    backbone = backbone or PRESETS[preset]["backbone"]
    _validate_launch(release=release, dimensions=dimensions, variants=variants, seeds=seeds, backbone=backbone,
                     include_provisional=include_provisional)
    if fusion_settings is None:
        fusion_settings = {"preset": preset, **{k: v for k, v in PRESETS[preset].items() if k != "backbone"}}
    queue_check()
    jobs_fail_lost()  # the beat checks every minute; a launch also clears lost runs before adding to the queue
    lexicon = lexicon_current()
    group = str(uuid.uuid4())
    with transaction.atomic():
        runs = [TrainingRun.objects.create(
            launch_group=group, release=release, variant=v, dimensions=list(dimensions), seed=s, backbone=backbone,
            hyperparameters=hyperparameters or {}, fusion_settings=fusion_settings, device=device, created_by=created_by,
            final_fit_all=final_fit_all, include_provisional=include_provisional,
            lexicon_version=lexicon.version, lexicon_terms=[[e.term, e.kind] for e in lexicon.entries],
        ) for v in variants for s in seeds]
        for run in runs:
            transaction.on_commit(lambda run_id=run.pk: _enqueue_training(run_id))
        audit_event(actor=created_by, event="run", params={
            "n": len(runs), "variants": ", ".join(variants), "seeds": ", ".join(map(str, seeds)),
            "release": release.number if release else "–", "backbone": backbone},
            what=gettext_noop("Launched %(n)s training runs (%(variants)s; seeds %(seeds)s; %(backbone)s) on release "
                              "%(release)s"),
            changes={"runs": (None, ", ".join(str(r.pk) for r in runs))})
    return runs


def _enqueue_training(run_id: int) -> None:
    from .tasks import run_training

    try:
        result = run_training.apply_async(args=[run_id])
    except Exception as exc:  # the broker went away between the check and now
        job_fail(TrainingRun, run_id, reason=f"Could not enqueue: the task queue is unavailable ({exc}).")
        return
    TrainingRun.objects.filter(pk=run_id).update(celery_task_id=result.id or "")


def training_run_cancel(*, run_id: int, by=None) -> TrainingRun:
    """Cancel a queued or running run; the audit log records who (`by`, else the request's person)."""
    before = TrainingRun.objects.filter(pk=run_id).values_list("status", flat=True).first()
    if not job_cancel(TrainingRun, run_id):
        raise DomainError(_("Run %(id)s is already %(status)s; nothing to cancel.")
                          % {"id": run_id, "status": TrainingRun.objects.get(pk=run_id).get_status_display().lower()})
    run = TrainingRun.objects.get(pk=run_id)
    audit_record(actor=by, instances=[run], event="run", changes={"status": (before, run.status)})
    if run.celery_task_id:
        try:
            from chlgbt_site.celery import app

            app.control.revoke(run.celery_task_id)
        except Exception:  # revoking is best effort; the run checks its own status too
            pass
    return run


def training_run_rerun(*, run_id: int, created_by) -> TrainingRun:
    old = TrainingRun.objects.get(pk=run_id)
    return training_run_launch(created_by=created_by, release_id=old.release_id, dimensions=old.dimensions,
                               variants=[old.variant], seeds=[old.seed], backbone=old.backbone,
                               hyperparameters=old.hyperparameters, device=old.device,
                               fusion_settings=dict(old.fusion_settings or {}), final_fit_all=old.final_fit_all,
                               include_provisional=old.include_provisional)[0]


# --------------------------------------------------------------------------- execution

# Share of the whole run each stage of the core's progress callback covers, in order.
STAGE_SPANS = (("parsing", 0, 2), ("weighting", 2, 35), ("training", 35, 75), ("calibrating", 75, 85),
               ("evaluating", 85, 99), ("saving", 99, 100))
PROGRESS_SCALE = 1000


def overall_progress(stage: str, current: int, total: int) -> int:
    """Map a stage's own current/total onto one 0..PROGRESS_SCALE scale for the whole run."""
    for name, lo, hi in STAGE_SPANS:
        if stage.startswith(name):
            fraction = min(1.0, current / total) if total else 0.0
            return int(PROGRESS_SCALE * (lo + (hi - lo) * fraction) / 100)
    return 0


class RunReporter:
    """Writes progress to the run row at a sensible rate and notices cancellation. The bar only
    moves forward: stages map onto one scale, and a stage that repeats (the evaluation weighs the
    test posts again) never pulls it back."""

    def __init__(self, run_id: int):
        self.run_id = run_id
        self.last = 0.0
        self.done = 0
        self.log: list[str] = []

    def __call__(self, stage: str, current: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_WRITE_SECONDS and current < total:
            return
        self.last = now
        self.done = max(self.done, overall_progress(stage, current, total))
        if stage not in self.log[-1:]:
            self.log.append(stage)
        # JobCancelled when the run is no longer running (a researcher cancelled it).
        job_progress(TrainingRun, self.run_id, stage=stage, current=self.done, total=PROGRESS_SCALE,
                     log_tail="\n".join(self.log)[-LOG_TAIL_CHARS:])


def training_run_execute(*, run_id: int) -> TrainingRun:
    """Train and evaluate a queued run, once: a second delivery of the task does nothing."""
    return job_run(TrainingRun, run_id, _train_and_evaluate, retry_on=TRANSIENT_ERRORS, git_revision=git_revision())


def _train_and_evaluate(run: TrainingRun) -> JobDone:
    from .maam.backbones import LINEAR_BACKBONES, pick_device
    from .maam.train import VARIANTS, TrainConfig, environment_versions, evaluate, train

    reporter = RunReporter(run.pk)
    data = release_data(run.release, run.seed, run.include_provisional)
    lexicon = Lexicon(tuple(LexiconEntry(t, k) for t, k in run.lexicon_terms), version=run.lexicon_version)
    chosen = run.fusion_settings or {}
    fusion = {k: v for k, v in chosen.items() if k in FUSION_SETTING_KEYS}
    if not VARIANTS[run.variant][1] and run.backbone in LINEAR_BACKBONES:  # (measured there; on a fine-tuned
        # encoder the stacker's out-of-fold predictions would cost k more fine-tunes per dimension)
        fusion.update({k: tuple(v) if k == "stack_backbones" else v for k, v in chosen.items() if k in STACKING_KEYS})
    config = TrainConfig(variant=run.variant, dimensions=tuple(run.dimensions), backbone=run.backbone,
                         backbone_params=run.hyperparameters, seed=run.seed, device=run.device, **fusion)
    texts = [r["text"] for r in data["train"]]
    labels = {d: [r[d] for r in data["train"]] for d in run.dimensions}
    tags = manual_tags([r["id"] for r in data["train"]])  # adjudicators' C-I-S tags: extra prototypes
    model = train(texts, labels, config, lexicon, tags=tags, progress=reporter,
                  data_hash=run.release.content_hash if run.release else "")
    test_texts = [r["text"] for r in data["test"]]
    test_labels = {d: [r[d] for r in data["test"]] for d in run.dimensions}
    metrics = evaluate(model, test_texts, test_labels, progress=reporter)
    # What the evaluated model chose (the metrics above are its own, whatever is saved below).
    fusion = {d: dm.fusion.to_dict() if dm.fusion else None for d, dm in model.dims.items()}
    table = {d: [f.to_dict() for f in dm.fusion_table] for d, dm in model.dims.items()}
    train_seconds = model.meta.get("train_seconds")
    stacking = model.meta.get("stacking")
    final_posts = len(texts)
    if run.final_fit_all:
        # The scoring model: the same settings trained again on every labelled post (train + test);
        # the metrics above stay those of the model that never saw the test posts.
        everything = data["train"] + data["test"]
        model = train([r["text"] for r in everything], {d: [r[d] for r in everything] for d in run.dimensions},
                      config, lexicon, tags=manual_tags([r["id"] for r in everything]), progress=reporter,
                      data_hash=run.release.content_hash if run.release else "")
        final_posts = len(everything)
    reporter("saving artefact", 0, 1)
    target = Path(settings.ARTIFACT_ROOT) / "runs" / f"run-{run.pk:06d}"
    checksum = model.save(target)  # cancelled at the last moment: the artefact stays unreferenced
    extra = {}
    if final_posts != len(texts):  # the saved model's own choices, kept apart from the evaluated model's
        extra["final_fusion"] = {d: dm.fusion.to_dict() if dm.fusion else None for d, dm in model.dims.items()}
        extra["final_train_seconds"] = model.meta.get("train_seconds")
    if stacking:
        extra["stacking"] = stacking
    return JobDone(fields={
        "metrics": {"test": metrics, "fusion": fusion, "fusion_table": table, "n_train": len(texts),
                    "n_test": len(test_texts), "train_seconds": train_seconds,
                    "split": data["split"], "final_model_posts": final_posts,
                    "provisional_dropped": data["provisional_dropped"], **extra},
        "artifact_path": str(target), "artifact_checksum": checksum, "versions": environment_versions(),
        "device_used": pick_device(run.device) if run.backbone not in LINEAR_BACKBONES else "cpu",
        "progress_current": 1, "progress_total": 1, "stage": "done"})


def training_run_fail(*, run_id: int, reason: str) -> None:
    job_fail(TrainingRun, run_id, reason=reason)


# --------------------------------------------------------------------------- scoring

def scoring_job_launch(*, created_by, run_id: int, scope: str = ScoringScope.ALL, release_id: int | None = None,
                       upload: bytes | None = None, upload_name: str = "") -> ScoringJob:
    run = TrainingRun.objects.filter(pk=run_id).first()
    if run is None:
        raise NotFound(_("No such run."))
    if run.status != JobStatus.SUCCEEDED:
        raise DomainError(_("Run %(id)s has not succeeded (%(status)s); score with a finished run.")
                          % {"id": run_id, "status": run.get_status_display().lower()})
    if scope not in ScoringScope.values:
        raise DomainError(_("Unknown scope."))
    if scope == ScoringScope.RELEASE and not Release.objects.filter(pk=release_id).exists():
        raise DomainError(_("Choose the release to score."))
    queue_check()
    upload_path = ""
    if scope == ScoringScope.UPLOAD:
        if not upload:
            raise DomainError(_("Upload the CSV or JSONL file to score."))
        folder = Path(settings.MEDIA_ROOT) / "scoring-uploads"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{uuid.uuid4().hex}-{Path(upload_name).name or 'upload.csv'}"
        path.write_bytes(upload)
        upload_path = str(path)
    with transaction.atomic():
        job = ScoringJob.objects.create(run=run, scope=scope, release_id=release_id if scope == ScoringScope.RELEASE else None,
                                        upload_path=upload_path, created_by=created_by)
        transaction.on_commit(lambda: _enqueue_scoring(job.pk))
    return job


def _enqueue_scoring(job_id: int) -> None:
    from .tasks import run_scoring

    try:
        result = run_scoring.apply_async(args=[job_id])
    except Exception as exc:
        job_fail(ScoringJob, job_id, reason=f"Could not enqueue: the task queue is unavailable ({exc}).")
        return
    ScoringJob.objects.filter(pk=job_id).update(celery_task_id=result.id or "")


def _scoring_posts(job: ScoringJob) -> list[Post]:
    if job.scope == ScoringScope.RELEASE:
        return [post for post, _labels in labelled_posts(release=job.release)]
    return list(Post.objects.order_by("id"))


def scoring_job_execute(*, job_id: int) -> ScoringJob:
    """Score with a finished run, once: a second delivery of the task does nothing."""
    return job_run(ScoringJob, job_id, _score, retry_on=TRANSIENT_ERRORS, stage="loading model")


def _score(job: ScoringJob) -> JobDone:
    from .maam.train import MAAMModel

    model = MAAMModel.load(job.run.artifact_path)

    def progress(stage, current, total):
        job_progress(ScoringJob, job.pk, stage=stage, current=current, total=total)

    if job.scope == ScoringScope.UPLOAD:
        from .maam.data import read_chlgbt_csv, write_predictions_csv

        texts = read_chlgbt_csv(job.upload_path).texts
        predictions = model.predict(texts, progress=progress)
        out = Path(job.upload_path).with_suffix(".predictions.csv")
        write_predictions_csv(out, texts, predictions)
        return JobDone(fields={"scored": len(texts), "output_path": str(out), "stage": "done"})
    posts = _scoring_posts(job)
    tags = [{"C": p.tone, "I": p.identity, "S": p.stance} if p.tone and p.identity and p.stance else None for p in posts]
    predictions = model.predict([p.text for p in posts], tags=tags, progress=progress)
    traces = fusion_traces(model, predictions)
    rows = []
    for i, post in enumerate(posts):
        probs, labels = {}, {}
        for d in DIMENSIONS:
            if d in predictions:
                before, after = predictions[d]["before"][i], predictions[d]["after"][i]
                probs[d] = {"before": [round(float(v), 6) for v in before], "after": [round(float(v), 6) for v in after]}
                if d in traces:
                    probs[d]["fusion"] = traces[d][i]
                labels[d] = int(predictions[d]["labels"][i])
        states = next((predictions[d]["states"] for d in predictions if predictions[d]["states"]), None)
        rows.append(Prediction(post=post, run=job.run, explicit=labels.get("explicit"),
                               implicit=labels.get("implicit"), emotional=labels.get("emotional"),
                               probabilities=probs, cis_state=states[i].as_dict() if states else None))

    def replace_predictions() -> None:
        # Re-scoring replaces this run's predictions for these posts at once, with the job's success.
        Prediction.objects.filter(run=job.run, post__in=posts).delete()
        Prediction.objects.bulk_create(rows, batch_size=2000)

    return JobDone(fields={"scored": len(rows), "stage": "done"}, commit=replace_predictions)


def fusion_traces(model, predictions: dict) -> dict[str, list[dict]]:
    """Per dimension and post, the fusion cascade as scored (the case-study page reads it; it never
    runs a model): each step's axis, the post's state on it, the prior row q fused with (paper eq. p_calib) and
    the distribution after the step; the alphas and where the state came from."""
    from .maam.astigmatism import prior_matrix

    out = {}
    for d, pred in predictions.items():
        dm = model.dims[d]
        states = pred["states"]
        if not (dm.fusion and states and pred["steps"]):
            continue
        priors = {axis: prior_matrix(dm.priors, axis, states, dm.fusion.prior_mode) for axis in dm.fusion.order}
        alphas = [[float(v) for v in a] if isinstance(a, (list, tuple)) else float(a) for a in dm.fusion.alphas]
        out[d] = [{"steps": [{"axis": axis, "state": states[i].get(axis), "p": [round(float(v), 6) for v in step[i]],
                              "q": [round(float(v), 6) for v in priors[axis][i]]}
                             for axis, step in zip(dm.fusion.order, pred["steps"])],
                   "alphas": alphas, "source": states[i].source} for i in range(len(states))]
    return out


def scoring_job_fail(*, job_id: int, reason: str) -> None:
    job_fail(ScoringJob, job_id, reason=reason)
