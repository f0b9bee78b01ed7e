"""Runs one LLMRun (the job's work, called through core.jobs.job_run by llm.services): R runs over the
release's TEST split, the shots drawn from its TRAINING split, each answer taken from the response
cache when it is there and asked for otherwise, at most `concurrency` requests in flight.

What is sent for a post is the release's text of it - the cleaned, masked text annotators see
(Post.text), never Post.raw_text - masked once more with the personal-data rules and name recogniser
in force now (a release published under older rules holds what they would mask; `texts_to_send`),
test posts and few-shot examples alike, filled into the run's own template snapshot. Answers reach the
cache as they arrive (in small batches, outside the run's transaction), so a worker killed midway
loses nothing it paid for and the re-run sends only the posts not yet answered; the answers and
scores themselves are written with the run's success, all at once."""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from django.conf import settings

from annotation.models import DIMENSIONS, Post
from annotation.releases.files import post_key
from core.jobs import JobCancelled, JobDone, job_progress

from . import metrics
from .cache import cache_key
from .client import ChatClient, Completion, EndpointFailed, map_concurrent
from .costs import cost
from .fewshot import shots_select
from .models import Backend, LLMAnswer, LLMResponseCache, LLMRun, LLMRunScore
from .parsing import parse_answer
from .privacy import api_key, endpoint_check, scrub
from .prompts import messages_build, shots_fingerprint

logger = logging.getLogger(__name__)

PROGRESS_WRITE_SECONDS = 1.0
CACHE_FLUSH_SECONDS = 0.25
CACHE_FLUSH_ROWS = 50


@dataclass
class Work:
    run_index: int
    row: dict
    messages: list[dict]
    key: str
    request_seed: int


def taken_down_keys() -> set[str]:
    """The release ids (Takedown.post_key) of every post taken down, whenever: a takedown means someone
    asked for the post to be removed, so its text never leaves the instance again - even though the
    releases published before it still hold the post."""
    from publication.models import Takedown

    return set(Takedown.objects.values_list("post_key", flat=True))


def release_data(release, seed: int) -> dict:
    """The release's split as MAAM runs read it (modeling/splits.py; a k-fold release tests on fold
    seed mod k), less the posts taken down since it was published: "taken_down" counts them per split."""
    from modeling.splits import run_split

    data = run_split(release, seed)
    gone = taken_down_keys()
    kept = {part: [r for r in data[part] if r["id"] not in gone] for part in ("test", "train")}
    data["taken_down"] = {part: len(data[part]) - len(kept[part]) for part in ("test", "train")}
    data.update(kept)
    if any(data["taken_down"].values()):
        logger.info("release %s: %s test and %s training posts taken down are left out of the LLM run",
                    release.number, data["taken_down"]["test"], data["taken_down"]["train"])
    return data


def run_data(run: LLMRun) -> dict:
    return release_data(run.release, run.seed)


def work_items(run: LLMRun, data: dict) -> list[Work]:
    """Every (run index, test post) with its messages and cache key, in a fixed order. The shots of
    run index r are drawn with seed + r from the training rows only. A post taken down is never an
    item nor a shot, whatever `data` holds (release_data leaves them out already). Every text in the
    messages, shots included, is masked with the current rules first (`texts_to_send`), and the
    cache key is made of the masked text."""
    items = []
    gone = taken_down_keys()
    train = [row for row in data["train"] if row["id"] not in gone]
    test = [row for row in data["test"] if row["id"] not in gone]
    endpoint = run.endpoint if run.backend == Backend.OPENAI else f"{run.endpoint}#{run.local_scoring}"
    shots_of_run = [shots_select(train, run.shots, run.seed + r) for r in range(run.runs)]
    sent = texts_to_send([row["text"] for row in test] + [s["text"] for shots in shots_of_run for s in shots])
    for r, chosen in enumerate(shots_of_run):
        shots = [{**shot, "text": sent[shot["text"]]} for shot in chosen]
        fingerprint = shots_fingerprint(shots)
        for row in sorted(test, key=lambda x: x["id"]):
            text = sent[row["text"]]
            key = cache_key(backend=run.backend, endpoint=endpoint, model=run.model_name,
                            template_text=run.template_text, post_text=text, shots=fingerprint, seed=run.seed,
                            temperature=run.temperature, run_index=r, max_tokens=run.max_tokens)
            items.append(Work(r, row, messages_build(run.template_text, text, shots), key, run.seed + r))
    return items


def texts_to_send(texts: list[str]) -> dict[str, str]:
    """release text -> the text a prompt carries: masked again with the personal-data rules and name
    recogniser in force now (publication.personal_data.services.mask_for_sending), because a release
    published under older rules (or without name masking) holds what the current rules would mask.
    Text masked with the current rules is unchanged, so its cache keys are too; the keys are made
    of the text actually sent. RecogniserUnavailable when the configured recogniser cannot run."""
    from publication.personal_data.services import mask_for_sending

    distinct = list(dict.fromkeys(texts))
    return dict(zip(distinct, mask_for_sending(distinct)))


def backend_open(run: LLMRun):
    """The chat backend for the run; the key is read from its variable now and held only in memory."""
    if run.backend == Backend.LOCAL:
        from .local import LocalChatModel

        return LocalChatModel(run.endpoint, device=run.device, mode=run.local_scoring), ""
    endpoint_check(run.endpoint, settings.LLM_ENDPOINT_ALLOWLIST)
    key = api_key(run.api_key_env)
    return ChatClient(base_url=run.endpoint, api_key=key, model=run.model_name, timeout=run.timeout_seconds,
                      max_retries=run.max_retries, seed=run.seed), key


def cached(keys: list[str]) -> dict[str, LLMResponseCache]:
    found: dict[str, LLMResponseCache] = {}
    for i in range(0, len(keys), 500):
        for entry in LLMResponseCache.objects.filter(key__in=keys[i:i + 500]):
            found[entry.key] = entry
    return found


class CacheWriter:
    """Answers into the cache as they arrive, a few at a time (one INSERT per answer would hold the
    runner on the database). Refusals (a per-request 4xx) are not cached: a re-run asks again."""

    def __init__(self):
        self.buffer: list[LLMResponseCache] = []
        self.last = time.monotonic()

    def add(self, key: str, completion: Completion) -> None:
        if completion.refused:
            return
        self.buffer.append(LLMResponseCache(key=key, answer=completion.text, probabilities=completion.probabilities,
                                            prompt_tokens=completion.prompt_tokens,
                                            completion_tokens=completion.completion_tokens,
                                            model_reported=completion.model[:200]))
        if len(self.buffer) >= CACHE_FLUSH_ROWS or time.monotonic() - self.last >= CACHE_FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            LLMResponseCache.objects.bulk_create(self.buffer, ignore_conflicts=True)
            self.buffer = []
        self.last = time.monotonic()


def execute(run: LLMRun) -> JobDone:
    data = run_data(run)
    items = work_items(run, data)
    hits = cached([w.key for w in items])
    todo = [w for w in items if w.key not in hits]
    total = len(items)
    results: dict[tuple[int, str], tuple[Completion, bool]] = {}
    for w in items:
        if w.key in hits:
            entry = hits[w.key]
            results[(w.run_index, w.row["id"])] = (Completion(
                text=entry.answer, prompt_tokens=entry.prompt_tokens, completion_tokens=entry.completion_tokens,
                model=entry.model_reported, probabilities=entry.probabilities), True)
    counters = {"requests_sent": 0, "cache_hits": len(hits), "retries": 0}
    job_progress(LLMRun, run.pk, stage="asking", current=len(results), total=total, **counters)
    backend = key = None
    if todo:
        backend, key = backend_open(run)
    writer = CacheWriter()
    stop = threading.Event()
    last_write = time.monotonic()
    concurrency = 1 if run.backend == Backend.LOCAL else max(1, run.concurrency)

    def ask(w: Work) -> Completion:
        return backend.complete(w.messages, temperature=run.temperature, seed=w.request_seed, max_tokens=run.max_tokens,
                                stop=stop)

    failure: BaseException | None = None
    try:
        for w, completion, error in map_concurrent(todo, ask, concurrency=concurrency, stop=stop,
                                                         on_idle=writer.flush, idle_seconds=CACHE_FLUSH_SECONDS):
            if error is not None:
                # Nothing more is sent; the answers already on their way are still kept (they are paid
                # for, and a re-run must not ask for them again). The run fails once they are in.
                stop.set()
                failure = failure or error
                continue
            writer.add(w.key, completion)
            results[(w.run_index, w.row["id"])] = (completion, False)
            now = time.monotonic()
            if now - last_write >= PROGRESS_WRITE_SECONDS:
                last_write = now
                writer.flush()
                counters.update(requests_sent=getattr(backend, "requests", len(results) - len(hits)),
                                retries=getattr(backend, "retries", 0))
                job_progress(LLMRun, run.pk, current=len(results), **counters)  # JobCancelled when cancelled
    except JobCancelled:
        stop.set()
        raise
    finally:
        stop.set()
        try:
            writer.flush()
        except Exception:  # the run's own error matters more; the cache is an optimisation
            logger.warning("could not write the last cached answers of LLM run %s", run.pk, exc_info=True)
        if backend is not None:
            backend.close()
    if failure is not None:
        if isinstance(failure, EndpointFailed):
            raise EndpointFailed(scrub(str(failure), key or "")) from None
        raise failure
    counters.update(requests_sent=getattr(backend, "requests", len(todo)) if backend is not None else 0,
                    retries=getattr(backend, "retries", 0) if backend is not None else 0)
    counters["device_used"] = getattr(backend, "device", "") if run.backend == Backend.LOCAL else ""
    return finish(run, data, items, results, counters)


def finish(run: LLMRun, data: dict, items: list[Work], results: dict, counters: dict) -> JobDone:
    post_ids = {post_key(ext, sha): pk for pk, ext, sha in Post.objects.values_list("pk", "external_id", "text_sha256")}
    answers, per_run = [], []
    prompt_tokens = completion_tokens = unparsed = 0
    for r in range(run.runs):
        gold, parsed_scores, probs = [], [], []
        for w in (w for w in items if w.run_index == r):
            completion, from_cache = results[(r, w.row["id"])]
            parsed = parse_answer(completion.text) if not completion.refused else None
            scores = parsed.scores if parsed is not None and parsed.ok else None
            unparsed += scores is None
            if not from_cache:
                prompt_tokens += completion.prompt_tokens
                completion_tokens += completion.completion_tokens
            gold.append({d: w.row[d] for d in DIMENSIONS})
            parsed_scores.append(scores)
            probs.append(completion.probabilities)
            answers.append(LLMAnswer(
                run=run, run_index=r, post_id=post_ids.get(w.row["id"]), post_key=w.row["id"], gold=gold[-1],
                answer=completion.text, parsed=scores is not None, probabilities=completion.probabilities,
                prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                from_cache=from_cache, cache_key=w.key, **(scores or {})))
        per_run.append(metrics.run_scores(gold, parsed_scores, probs))
    summary = metrics.summarise(per_run)
    score_rows = [LLMRunScore(run=run, run_index=r, dimension=d, accuracy=per_run[r][d]["accuracy"],
                              macro_f1=per_run[r][d]["macro_f1"], brier=per_run[r][d]["brier"], ece=per_run[r][d]["ece"],
                              n=per_run[r][d]["n"], unparsed=per_run[r][d]["unparsed"])
                  for r in range(run.runs) for d in DIMENSIONS]

    def commit() -> None:
        LLMAnswer.objects.filter(run=run).delete()
        LLMRunScore.objects.filter(run=run).delete()
        LLMAnswer.objects.bulk_create(answers, batch_size=1000)
        LLMRunScore.objects.bulk_create(score_rows)

    return JobDone(fields={
        **counters, "unparsed": unparsed, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
        "cost": cost(prompt_tokens, completion_tokens, run.price_input_per_mtok, run.price_output_per_mtok),
        "summary": summary, "split": {**data["split"], "taken_down": data["taken_down"]}, "n_test": len(data["test"]),
        "progress_current": len(items), "progress_total": len(items), "stage": "done"}, commit=commit)
