"""Writes for LLM runs: launch (with its estimate), execute, cancel, re-run, fail; prompt template
versions. The admin pages, the command and the task call these; the job machinery is core.jobs."""
from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from annotation.models import Release
from publication.personal_data.ner import RecogniserUnavailable
from audit.services import audit_record
from core.errors import DomainError, NotFound
from core.jobs import TRANSIENT_ERRORS, job_cancel, job_fail, job_run, jobs_fail_lost

from .costs import ANSWER_TOKENS, cost, messages_tokens_estimate, prices_for
from .models import Backend, LLMRun, LocalScoring, PromptTemplate
from .privacy import EndpointRefused, KeyUnavailable, api_key, endpoint_check, endpoint_host, env_name_check
from .prompts import PAPER_TEMPLATE_NAME, TemplateError, template_check

MAX_SHOTS = 50
MAX_RUNS = 20


# --------------------------------------------------------------------------- templates

def template_default() -> PromptTemplate:
    """Version 1 of the paper's zero-shot prompt (seeded by migration 0002)."""
    template = PromptTemplate.objects.filter(name=PAPER_TEMPLATE_NAME).order_by("version").first()
    if template is None:
        raise NotFound(_("The paper's prompt template is missing; run the migrations (manage.py migrate)."))
    return template


def template_add(*, name: str, text: str, description: str = "", created_by=None) -> PromptTemplate:
    """A new version of template `name` (version 1 when the name is new). Earlier versions stay as they were."""
    name = name.strip()
    if not name:
        raise DomainError(_("Give the template a name."))
    try:
        template_check(text)
    except TemplateError as exc:
        raise DomainError(_("The template cannot be used: %(error)s") % {"error": exc})
    for _attempt in range(3):
        try:
            with transaction.atomic():
                latest = PromptTemplate.objects.filter(name=name).aggregate(v=Max("version"))["v"] or 0
                return PromptTemplate.objects.create(name=name, version=latest + 1, text=text,
                                                     description=description, created_by=created_by)
        except IntegrityError:  # two researchers added a version at once: take the next number
            continue
    raise DomainError(_("Could not add the template version; try again."))


# --------------------------------------------------------------------------- launch

def _settings_check(*, release: Release, backend: str, endpoint: str, model_name: str, shots: int, runs: int,
                    temperature: float, api_key_env: str, local_scoring: str, seed: int) -> dict:
    """Validate a launch; returns the split. DomainError with what to change."""
    from .runner import release_data

    if backend not in Backend.values:
        raise DomainError(_("Unknown backend %(backend)r; choose one of %(choices)s.")
                          % {"backend": backend, "choices": ", ".join(Backend.values)})
    if not model_name.strip():
        raise DomainError(_("Give the model name the endpoint knows (e.g. deepseek-chat, qwen2.5:7b)."))
    if not 0 <= shots <= MAX_SHOTS:
        raise DomainError(_("Shots must be between 0 and %(max)s (the paper uses 1, 5 and 10).") % {"max": MAX_SHOTS})
    if not 1 <= runs <= MAX_RUNS:
        raise DomainError(_("Runs must be between 1 and %(max)s (the paper uses 5).") % {"max": MAX_RUNS})
    if not 0.0 <= temperature <= 2.0:
        raise DomainError(_("The temperature must be between 0 and 2."))
    if local_scoring not in LocalScoring.values:
        raise DomainError(_("Unknown local scoring %(value)r.") % {"value": local_scoring})
    try:
        env_name_check(api_key_env)
        if backend == Backend.OPENAI:
            endpoint_check(endpoint, settings.LLM_ENDPOINT_ALLOWLIST)
            api_key(api_key_env)  # present now (its value is not kept)
    except EndpointRefused as exc:
        raise DomainError(_("The endpoint is refused: %(error)s") % {"error": exc})
    except KeyUnavailable as exc:
        raise DomainError(_("The API key is unavailable: %(error)s") % {"error": exc})
    if backend == Backend.LOCAL:
        import os

        if not os.path.isdir(endpoint):
            raise DomainError(_("%(path)s is not a directory: give the local checkpoint's path (under /models); "
                                "nothing is downloaded.") % {"path": endpoint})
    data = release_data(release, seed)  # less the posts taken down since the release was published
    if not data["test"]:
        raise DomainError(_("Release %(number)s has no test posts to score.") % {"number": release.number})
    if shots > len(data["train"]):
        raise DomainError(_("%(shots)s shots asked for, but the training split of release %(number)s has only "
                            "%(train)s posts.") % {"shots": shots, "number": release.number, "train": len(data["train"])})
    return data


def _estimate(*, backend: str, endpoint: str, model_name: str, template_text: str, data: dict, shots: int, runs: int,
              seed: int, temperature: float, max_tokens: int, local_scoring: str) -> dict:
    from .runner import cached, work_items

    probe = LLMRun(backend=backend, endpoint=endpoint, model_name=model_name, template_text=template_text, shots=shots,
                   runs=runs, seed=seed, temperature=temperature, max_tokens=max_tokens, local_scoring=local_scoring)
    try:
        items = work_items(probe, data)
    except RecogniserUnavailable as exc:  # no text leaves without the configured name masking
        raise DomainError(_("The personal-data name recogniser (PERSONAL_DATA_NER) cannot run, so no post "
                            "text is sent: %(error)s") % {"error": exc})
    hits = cached([w.key for w in items])
    to_send = [w for w in items if w.key not in hits]
    prompt_tokens = sum(messages_tokens_estimate(w.messages) for w in to_send)
    completion_tokens = 0 if (backend == Backend.LOCAL and local_scoring == LocalScoring.LIKELIHOOD) \
        else ANSWER_TOKENS * len(to_send)
    price_in, price_out = prices_for(model_name, settings.LLM_PRICES) if backend == Backend.OPENAI else (0.0, 0.0)
    leaves = False
    host = ""
    if backend == Backend.OPENAI:
        host = endpoint_host(endpoint)
        try:
            leaves = endpoint_check(endpoint, settings.LLM_ENDPOINT_ALLOWLIST)
        except EndpointRefused:
            leaves = True
    return {"requests": len(items), "cached": len(hits), "to_send": len(to_send), "n_test": len(data["test"]),
            "n_train": len(data["train"]), "taken_down": data.get("taken_down", {"test": 0, "train": 0}),
            "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "price_input_per_mtok": price_in, "price_output_per_mtok": price_out,
            "cost": cost(prompt_tokens, completion_tokens, price_in, price_out), "currency": settings.LLM_CURRENCY,
            "leaves_machine": leaves, "host": host}


def _release(release_id: int) -> Release:
    release = Release.objects.filter(pk=release_id).first()
    if release is None:
        raise NotFound(_("No such release."))
    return release


def _template(template_id: int | None) -> PromptTemplate:
    if template_id is None:
        return template_default()
    template = PromptTemplate.objects.filter(pk=template_id).first()
    if template is None:
        raise NotFound(_("No such prompt template."))
    return template


def llm_run_estimate(*, release_id: int, endpoint: str, model_name: str, backend: str = Backend.OPENAI, shots: int = 0,
                     runs: int = 5, seed: int = 0, temperature: float = 0.0, api_key_env: str = "",
                     template_id: int | None = None, max_tokens: int = 256, local_scoring: str = LocalScoring.LIKELIHOOD,
                     **_ignored) -> dict:
    """What a launch would send and cost, before anything is sent (the launch page's notice)."""
    release = _release(release_id)
    template = _template(template_id)
    data = _settings_check(release=release, backend=backend, endpoint=endpoint, model_name=model_name, shots=shots,
                           runs=runs, temperature=temperature, api_key_env=api_key_env, local_scoring=local_scoring,
                           seed=seed)
    return _estimate(backend=backend, endpoint=endpoint, model_name=model_name, template_text=template.text, data=data,
                     shots=shots, runs=runs, seed=seed, temperature=temperature, max_tokens=max_tokens,
                     local_scoring=local_scoring)


def llm_run_launch(*, created_by, release_id: int, endpoint: str, model_name: str, backend: str = Backend.OPENAI,
                   shots: int = 0, runs: int = 5, seed: int = 0, temperature: float = 0.0, api_key_env: str = "",
                   template_id: int | None = None, max_tokens: int = 256, concurrency: int | None = None,
                   timeout_seconds: float = 60.0, max_retries: int = 6, device: str = "auto",
                   local_scoring: str = LocalScoring.LIKELIHOOD, enqueue: bool = True,
                   rerun_of: LLMRun | None = None, template_text: str | None = None) -> LLMRun:
    """Create an LLM run and (unless `enqueue` is False: the command runs it in its own process) put it
    on the queue: the default queue for an endpoint, the gpu queue for a local checkpoint."""
    from modeling.services import queue_check

    release = _release(release_id)
    template = _template(template_id)
    text = template.text if template_text is None else template_text
    endpoint = endpoint.strip()
    data = _settings_check(release=release, backend=backend, endpoint=endpoint, model_name=model_name, shots=shots,
                           runs=runs, temperature=temperature, api_key_env=api_key_env, local_scoring=local_scoring,
                           seed=seed)
    if concurrency is None:
        concurrency = settings.LLM_CONCURRENCY
    if not 1 <= concurrency <= 256:
        raise DomainError(_("Concurrent requests must be between 1 and 256."))
    if not 1 <= timeout_seconds <= 3600:
        raise DomainError(_("The request timeout must be between 1 and 3600 seconds."))
    estimate = _estimate(backend=backend, endpoint=endpoint, model_name=model_name, template_text=text, data=data,
                         shots=shots, runs=runs, seed=seed, temperature=temperature, max_tokens=max_tokens,
                         local_scoring=local_scoring)
    if enqueue:
        queue_check()
        jobs_fail_lost()
    with transaction.atomic():
        run = LLMRun.objects.create(
            release=release, template=template, template_text=text, backend=backend, endpoint=endpoint,
            model_name=model_name.strip(), local_scoring=local_scoring, shots=shots, runs=runs, seed=seed,
            temperature=temperature, max_tokens=max_tokens, api_key_env=api_key_env, concurrency=concurrency,
            timeout_seconds=timeout_seconds, max_retries=max_retries, device=device,
            price_input_per_mtok=estimate["price_input_per_mtok"], price_output_per_mtok=estimate["price_output_per_mtok"],
            estimate=estimate, progress_total=estimate["requests"], created_by=created_by, rerun_of=rerun_of)
        if enqueue:
            transaction.on_commit(lambda: _enqueue(run.pk, gpu=backend == Backend.LOCAL))
        from auditlog.models import LogEntry

        audit_record(actor=created_by, instances=[run], event="llm_run", action=LogEntry.Action.CREATE, changes={
            "release": (None, release.number), "model_name": (None, run.model_name), "endpoint": (None, run.endpoint),
            "backend": (None, run.backend), "shots": (None, shots), "runs": (None, runs), "seed": (None, seed),
            "temperature": (None, temperature), "template": (None, str(template)),
            "api_key_env": (None, api_key_env), "rerun_of": (None, rerun_of.pk if rerun_of else None)})
    return run


def _enqueue(run_id: int, *, gpu: bool) -> None:
    from .tasks import run_llm_baseline

    try:
        result = run_llm_baseline.apply_async(args=[run_id], **({"queue": "gpu"} if gpu else {}))
    except Exception as exc:
        job_fail(LLMRun, run_id, reason=f"Could not enqueue: the task queue is unavailable ({exc.__class__.__name__}).")
        return
    LLMRun.objects.filter(pk=run_id).update(celery_task_id=result.id or "")


def llm_run_cancel(*, run_id: int, by=None) -> LLMRun:
    """Cancel a queued or running LLM run; the audit log records who (`by`, else the request's person)."""
    before = LLMRun.objects.filter(pk=run_id).values_list("status", flat=True).first()
    if not job_cancel(LLMRun, run_id):
        run = LLMRun.objects.filter(pk=run_id).first()
        if run is None:
            raise NotFound(_("No such LLM run."))
        raise DomainError(_("LLM run %(id)s is already %(status)s; nothing to cancel.")
                          % {"id": run_id, "status": run.get_status_display().lower()})
    run = LLMRun.objects.get(pk=run_id)
    audit_record(actor=by, instances=[run], event="llm_run", changes={"status": (before, run.status)})
    if run.celery_task_id:
        try:
            from chlgbt_site.celery import app

            app.control.revoke(run.celery_task_id)
        except Exception:  # best effort; the runner notices the cancel at its next progress write
            pass
    return run


def llm_run_rerun(*, run_id: int, created_by, enqueue: bool = True) -> LLMRun:
    """The same run again - same template text, model, endpoint, shots, runs, seed, temperature - as a
    new row. Answers already in the cache are not asked for again."""
    old = LLMRun.objects.filter(pk=run_id).first()
    if old is None:
        raise NotFound(_("No such LLM run."))
    return llm_run_launch(
        created_by=created_by, release_id=old.release_id, endpoint=old.endpoint, model_name=old.model_name,
        backend=old.backend, shots=old.shots, runs=old.runs, seed=old.seed, temperature=old.temperature,
        api_key_env=old.api_key_env, template_id=old.template_id, max_tokens=old.max_tokens,
        concurrency=old.concurrency, timeout_seconds=old.timeout_seconds, max_retries=old.max_retries, device=old.device,
        local_scoring=old.local_scoring, enqueue=enqueue, rerun_of=old, template_text=old.template_text)


def llm_run_execute(*, run_id: int) -> LLMRun:
    """Run a queued LLM run once (a second delivery does nothing). An endpoint that cannot serve the
    run fails it with the reason; the answers already had stay in the cache for the re-run."""
    from .runner import execute

    return job_run(LLMRun, run_id, execute, retry_on=TRANSIENT_ERRORS)


def llm_run_fail(*, run_id: int, reason: str) -> None:
    job_fail(LLMRun, run_id, reason=reason)

