"""Background job rows: one status enum, one abstract base for the rows, and one guarded way to
run a job (queued -> running -> succeeded/failed) that every job uses - agreement intervals,
training runs, scoring jobs and prior rebuilds.

Each transition is a conditional UPDATE (`... WHERE status = 'queued'`), so of two deliveries of
the same task (acks-late redelivery, two workers racing for one message) exactly one starts the
job, and a finished row is never overwritten.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, connections, models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy as _, gettext_noop

logger = logging.getLogger(__name__)


class JobStatus(models.TextChoices):
    """The life of every background job row."""

    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")
    CANCELLED = "cancelled", _("Cancelled")


FINISHED = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)
ERROR_CHARS = 4000
# Errors worth a retry of the task: the job goes back to the queue instead of failing.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, ConnectionError)


class Job(models.Model):
    """Status, progress and timing every background job row carries."""

    Status = JobStatus
    # The Celery task that runs a row of this kind, by name (it takes the row's id): what a restart
    # of the embedded worker re-sends for rows still queued (jobs_recover_after_restart).
    task_name: str = ""

    status = models.CharField(verbose_name=_("status"), max_length=16, choices=JobStatus.choices,
                              default=JobStatus.QUEUED)
    stage = models.CharField(verbose_name=_("stage"), max_length=64, blank=True)
    progress_current = models.PositiveIntegerField(verbose_name=_("progress current"), default=0)
    progress_total = models.PositiveIntegerField(verbose_name=_("progress total"), default=0)
    error = models.TextField(verbose_name=_("error"), blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(verbose_name=_("started at"), null=True, blank=True)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)
    finished_at = models.DateTimeField(verbose_name=_("finished at"), null=True, blank=True)
    # Written every JOB_HEARTBEAT_SECONDS by the process running the job (job_run's heartbeat
    # thread) and with every progress report: a running row whose heartbeat stops lost its worker.
    heartbeat_at = models.DateTimeField(verbose_name=_("heartbeat at"), null=True, blank=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return gettext("%(kind)s #%(id)s") % {"kind": self._meta.verbose_name, "id": self.pk}

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED

    @property
    def percent(self) -> int:
        if self.status == JobStatus.SUCCEEDED:
            return 100
        return int(100 * self.progress_current / self.progress_total) if self.progress_total else 0

    @property
    def stage_display(self) -> str:
        """The stage in the active language (known names are listed in STAGE_NAMES); others as stored."""
        return gettext(self.stage) if self.stage else ""


# The stages jobs report (the MAAM core's progress callback, the scoring job), marked for translation.
STAGE_NAMES = (_("parsing"), _("weighting"), _("training"), _("cross-fitting"), _("calibrating"), _("evaluating"),
               _("saving"), _("loading model"), _("scoring"), _("done"))


J = TypeVar("J", bound=Job)


class JobCancelled(Exception):
    """Raised inside a job's work when its row is no longer running (cancelled, or failed by the
    stale-job check): the work stops and leaves the row as it is."""


@dataclass
class JobDone:
    """What a job's work hands back: fields to store with the success, and an optional `commit`
    that writes the job's outputs in the same transaction as the transition (so a job cancelled at
    the last moment stores nothing)."""

    fields: dict[str, Any] = field(default_factory=dict)
    commit: Callable[[], None] | None = None


def job_start(model: type[J], job_id: int, **fields) -> bool:
    """queued -> running. False when the job is not queued: another delivery started it, or it
    has finished - this delivery must do nothing."""
    now = timezone.now()
    started = model.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=now, updated_at=now, heartbeat_at=now, **fields)
    return started == 1


def job_progress(model: type[J], job_id: int, *, stage: str | None = None, current: int | None = None,
                 total: int | None = None, **fields) -> None:
    """Record progress on a running job; JobCancelled when it is no longer running."""
    now = timezone.now()
    values: dict[str, Any] = {"updated_at": now, "heartbeat_at": now, **fields}
    if stage is not None:
        values["stage"] = stage[:64]
    if current is not None:
        values["progress_current"] = current
    if total is not None:
        values["progress_total"] = total
    if not model.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(**values):
        raise JobCancelled()


def job_succeed(model: type[J], job_id: int, *, commit: Callable[[], None] | None = None, **fields) -> bool:
    """running -> succeeded, with `commit` (the job's outputs) in the same transaction. False, and
    nothing written, when the job is no longer running (cancelled at the last moment)."""
    now = timezone.now()
    with transaction.atomic():
        # The UPDATE locks the row until commit, so a cancel cannot slip between it and the outputs.
        if not model.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
                status=JobStatus.SUCCEEDED, finished_at=now, updated_at=now, **fields):
            return False
        if commit is not None:
            commit()
    return True


def job_fail(model: type[J], job_id: int, *, reason: str) -> bool:
    """Any unfinished state -> failed. A finished row is never overwritten."""
    now = timezone.now()
    return model.objects.filter(pk=job_id).exclude(status__in=FINISHED).update(
        status=JobStatus.FAILED, error=reason[:ERROR_CHARS], finished_at=now, updated_at=now) == 1


def job_cancel(model: type[J], job_id: int) -> bool:
    """queued or running -> cancelled. False when the job had already finished."""
    now = timezone.now()
    return model.objects.filter(pk=job_id).exclude(status__in=FINISHED).update(
        status=JobStatus.CANCELLED, finished_at=now, updated_at=now) == 1


def job_requeue(model: type[J], job_id: int) -> bool:
    """running -> queued, so a retry of the task may start it again (after a transient error)."""
    return model.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
        status=JobStatus.QUEUED, updated_at=timezone.now()) == 1


# Reasons stored in a failed row's `error`, in English; marked so the catalogue has them and pages
# show them in the reader's language (the `trans_value` filter); other errors stay as raised.
INTERRUPTED_BY_RESTART = gettext_noop("The workbench was stopped while this job ran, so it did not finish. "
                                      "Nothing it would have written was kept; launch it again.")
TIME_LIMIT_EXCEEDED = gettext_noop("The job exceeded its time limit.")
WORKER_LOST = gettext_noop("The worker running this job stopped (killed or lost): it sent no sign of life for too "
                           "long, so the job was marked failed. Nothing it would have written was kept; launch it again.")


def failure_reason(exc: BaseException) -> str:
    if isinstance(exc, (SystemExit, KeyboardInterrupt)):
        # Its worker process was told to stop (`make run` stopped: the worker's process group got
        # SIGTERM), so the job was interrupted, not broken.
        return INTERRUPTED_BY_RESTART
    if exc.__class__.__name__ == "SoftTimeLimitExceeded":
        return TIME_LIMIT_EXCEEDED
    if exc.__class__.__name__ == "WorkerLostError":  # the pool process running it was killed
        return WORKER_LOST
    return f"{exc.__class__.__name__}: {exc}"


def job_run(model: type[J], job_id: int, work: Callable[[J], JobDone | dict | None], *,
            retry_on: tuple[type[BaseException], ...] = (), **start_fields) -> J:
    """Run a job once: start it (refused unless queued), call `work(row)`, then mark it succeeded
    with what `work` returned - or failed with the reason when `work` raised. An exception listed
    in `retry_on` (a transient database error) puts the job back in the queue and propagates, so the
    task's retry can start it again. Returns the row as it stands afterwards."""
    if not job_start(model, job_id, **start_fields):
        logger.info("%s %s is not queued; this delivery does nothing", model.__name__, job_id)
        return model.objects.get(pk=job_id)
    row = model.objects.get(pk=job_id)
    try:
        with Heartbeat(model, job_id):
            outcome = work(row)
        if not isinstance(outcome, JobDone):
            outcome = JobDone(fields=outcome or {})
        job_succeed(model, job_id, commit=outcome.commit, **outcome.fields)
    except JobCancelled:
        pass
    except retry_on:
        _record_quietly(job_requeue, model, job_id)
        raise
    except BaseException as exc:
        _record_quietly(job_fail, model, job_id, reason=failure_reason(exc))
        raise
    return model.objects.get(pk=job_id)


class Heartbeat:
    """While a job's work runs, a thread of the same process writes the row's `heartbeat_at` every
    JOB_HEARTBEAT_SECONDS, however long the work goes without reporting progress. When the process
    dies (killed, out of memory, the machine lost) the heartbeat stops with it, and the periodic
    check (jobs_fail_lost) fails the row. Not started inside a transaction (a task run eagerly in
    one): no other connection could see the running row there, so nothing could check it either."""

    def __init__(self, model: type[Job], job_id: int, *, every: float | None = None):
        self.model, self.job_id = model, job_id
        self.every = every if every is not None else settings.JOB_HEARTBEAT_SECONDS
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        if self.every > 0 and not connection.in_atomic_block:
            self.thread = threading.Thread(target=self._beat, daemon=True,
                                           name=f"heartbeat {self.model.__name__} {self.job_id}")
            self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stopped.set()
        if self.thread is not None:
            self.thread.join(timeout=self.every + 60)

    def _beat(self) -> None:
        try:
            while not self.stopped.wait(self.every):
                try:
                    if not self.model.objects.filter(pk=self.job_id, status=JobStatus.RUNNING).update(
                            heartbeat_at=timezone.now()):
                        return  # finished, cancelled or failed meanwhile: nothing left to keep alive
                except Exception:  # a busy database: the next beat tries again, well within the stale time
                    logger.warning("heartbeat of %s %s not written", self.model.__name__, self.job_id, exc_info=True)
        finally:
            connections.close_all()  # this thread's own connections


def job_models() -> list[type[Job]]:
    """Every concrete job row kind in the installed apps."""
    from django.apps import apps

    return [model for model in apps.get_models() if issubclass(model, Job)]


# A row still running this long after its task's hard time limit has no live worker behind it,
# whatever its heartbeat says (a worker stuck without enforcing the limit, e.g. a solo pool).
TIME_LIMIT_MARGIN_SECONDS = 600
DEFAULT_MAX_RUN_SECONDS = 6 * 3600


def job_max_run_seconds(model: type[Job]) -> float:
    """How long a job of this kind may run at most: its task's hard time limit and a margin."""
    from django.utils.module_loading import import_string

    task = import_string(model.task_name) if model.task_name else None
    limit = getattr(task, "time_limit", None) or DEFAULT_MAX_RUN_SECONDS
    return limit + TIME_LIMIT_MARGIN_SECONDS


def jobs_fail_lost(*, stale_seconds: float | None = None) -> dict[str, int]:
    """The periodic check (celery beat on the default worker; in the embedded default, beat inside
    its one worker): a running job of any kind whose heartbeat is older than JOB_STALE_SECONDS lost
    its worker, and one running longer than its task's hard time limit (and a margin) outlived it;
    both are marked failed with the reason. A dead worker's job is therefore failed within
    JOB_STALE_SECONDS + the check's interval. Returns the number failed per kind."""
    stale = timedelta(seconds=stale_seconds if stale_seconds is not None else settings.JOB_STALE_SECONDS)
    outcome: dict[str, int] = {}
    for model in job_models():
        now = timezone.now()
        cutoff = now - stale
        silent = Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, updated_at__lt=cutoff)
        lost = model.objects.filter(silent, status=JobStatus.RUNNING).update(
            status=JobStatus.FAILED, error=WORKER_LOST, finished_at=now, updated_at=now)
        overdue = model.objects.filter(status=JobStatus.RUNNING,
                                       started_at__lt=now - timedelta(seconds=job_max_run_seconds(model))).update(
            status=JobStatus.FAILED, error=TIME_LIMIT_EXCEEDED, finished_at=now, updated_at=now)
        if lost or overdue:
            logger.warning("%s: %d lost their worker, %d outlived their time limit (failed)", model.__name__, lost, overdue)
        outcome[model._meta.label] = lost + overdue
    return outcome


def _record_quietly(transition, model, job_id: int, **kwargs) -> None:
    """Record the outcome of a failed job without hiding the original error when the database is
    what failed (the stale-job check, or the task's on_failure, catches the row later)."""
    try:
        transition(model, job_id, **kwargs)
    except Exception:
        logger.exception("could not record the outcome of %s %s", model.__name__, job_id)


def jobs_recover_after_restart(send_task: Callable[..., Any]) -> dict[str, dict[str, int]]:
    """For the embedded default's single worker, as it starts: a job still marked running was
    interrupted when `make run` stopped (its process is gone), so it is failed with a reason that
    says so; a job still queued is sent again, because its message may have been taken by the
    stopped worker (a duplicate delivery does nothing: job_start is guarded). Never call this where
    several workers share a broker - the others' running jobs are alive. `send_task` is Celery's
    `app.send_task`."""
    outcome: dict[str, dict[str, int]] = {}
    for model in job_models():
        now = timezone.now()
        failed = model.objects.filter(status=JobStatus.RUNNING).update(
            status=JobStatus.FAILED, error=INTERRUPTED_BY_RESTART, finished_at=now, updated_at=now)
        queued = list(model.objects.filter(status=JobStatus.QUEUED).values_list("pk", flat=True)) if model.task_name else []
        for pk in queued:
            send_task(model.task_name, args=[pk])
        if failed or queued:
            logger.warning("%s after a restart: %d interrupted (failed), %d queued (sent again)",
                           model.__name__, failed, len(queued))
        outcome[model._meta.label] = {"failed": failed, "requeued": len(queued)}
    return outcome
