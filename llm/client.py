"""An OpenAI-compatible chat client fit for thousands of requests (vLLM, llama.cpp's server, Ollama,
DeepSeek, Qwen's and ERNIE's compatible modes, OpenAI): the `openai` package with its own retries off
and ours on - exponential backoff with full jitter that honours Retry-After (and retry-after-ms) on
429 and 5xx, retries on timeouts and dropped connections, a per-request timeout, and a bounded
number of requests in flight (`map_concurrent`). Token counts come from the response's usage. The
API key is held by the client object only; every message this module raises is scrubbed of it.
No Django here."""
from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

from .costs import tokens_estimate
from .privacy import scrub

# httpx logs every request at INFO: thousands of lines per run. Warnings and errors still show.
logging.getLogger("httpx").setLevel(logging.WARNING)

RETRY_STATUS = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))
# A 4xx that concerns one request (its content refused, too long): that post's answer is recorded
# as a refusal (unparsed) and the run goes on. Other 4xx (401, 403, 404: key, permission, model or
# URL wrong) stop the run: every request would fail the same way.
PER_REQUEST_STATUS = frozenset({400, 413, 422})


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    model: str = ""
    attempts: int = 1
    usage_reported: bool = True
    refused: bool = False  # a per-request 4xx: `text` holds the error, the answer is unparsed
    probabilities: dict | None = None  # {dimension: [p1..p5]} (the local backend's likelihood scoring)


class EndpointFailed(RuntimeError):
    """The endpoint cannot serve this run: a fatal status, or retries exhausted on one request."""


def retry_after_seconds(headers: Any, now: float | None = None) -> float | None:
    """Seconds the server asks us to wait: retry-after-ms, or Retry-After as seconds or an HTTP date."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


def backoff_seconds(attempt: int, *, base: float, cap: float, rng: random.Random,
                    retry_after: float | None = None, max_retry_after: float = 120.0) -> float:
    """Full-jitter exponential backoff (uniform in [0, min(cap, base * 2^attempt)]); where the server
    sent Retry-After, that long at least (and at most max_retry_after), plus up to 10% jitter."""
    if retry_after is not None:
        wait_for = min(retry_after, max_retry_after)
        return wait_for + rng.uniform(0, 0.1 * wait_for)
    return rng.uniform(0, min(cap, base * (2 ** attempt)))


class ChatClient:
    def __init__(self, *, base_url: str, api_key: str, model: str, timeout: float = 60.0, max_retries: int = 6,
                 backoff_base: float = 0.5, backoff_cap: float = 20.0, max_retry_after: float = 120.0,
                 max_connections: int = 64, seed: int = 0):
        import httpx
        from openai import OpenAI

        self.model = model
        self._key = api_key
        self.max_retries = max_retries
        self.backoff_base, self.backoff_cap, self.max_retry_after = backoff_base, backoff_cap, max_retry_after
        self._rng = random.Random(f"backoff:{seed}")
        self._rng_lock = threading.Lock()
        self._stats_lock = threading.Lock()
        self.retries = 0
        self.requests = 0
        self._client = OpenAI(
            base_url=base_url, api_key=api_key, max_retries=0, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            http_client=httpx.Client(limits=httpx.Limits(max_connections=max_connections,
                                                         max_keepalive_connections=max_connections)))

    def close(self) -> None:
        self._client.close()

    def _jitter(self, attempt: int, retry_after: float | None) -> float:
        with self._rng_lock:
            return backoff_seconds(attempt, base=self.backoff_base, cap=self.backoff_cap, rng=self._rng,
                                   retry_after=retry_after, max_retry_after=self.max_retry_after)

    def _count(self, *, request: bool = False, retry: bool = False) -> None:
        with self._stats_lock:
            self.requests += request
            self.retries += retry

    def complete(self, messages: list[dict], *, temperature: float, seed: int | None, max_tokens: int,
                 stop: threading.Event | None = None) -> Completion:
        """One chat completion, retried as the module says. EndpointFailed when it cannot be had."""
        import openai

        stop = stop or threading.Event()
        last = ""
        for attempt in range(self.max_retries + 1):
            if stop.is_set():
                raise EndpointFailed("stopped")
            retry_after = None
            try:
                self._count(request=True)
                kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature,
                                          "max_tokens": max_tokens}
                if seed is not None:
                    kwargs["seed"] = seed
                response = self._client.chat.completions.create(**kwargs)
                return self._completion(response, messages, attempt + 1)
            except openai.APIStatusError as exc:
                status = exc.status_code
                detail = scrub(_status_detail(exc), self._key)
                if status in PER_REQUEST_STATUS:
                    return Completion(text=f"[HTTP {status}] {detail}"[:2000], prompt_tokens=0, completion_tokens=0,
                                      attempts=attempt + 1, usage_reported=False, refused=True)
                if status not in RETRY_STATUS:
                    raise EndpointFailed(f"The endpoint answered HTTP {status}: {detail}"[:2000]) from None
                retry_after = retry_after_seconds(exc.response.headers)
                last = f"HTTP {status}: {detail}"
            except openai.APITimeoutError:
                last = "the request timed out"
            except openai.APIConnectionError as exc:
                last = scrub(f"connection failed ({exc.__cause__ or exc})", self._key)
            except (ValueError, TypeError, AttributeError) as exc:  # a 200 whose body is not a chat completion
                last = scrub(f"malformed response ({exc.__class__.__name__})", self._key)
            if attempt == self.max_retries:
                break
            self._count(retry=True)
            if stop.wait(self._jitter(attempt, retry_after)):
                raise EndpointFailed("stopped")
        raise EndpointFailed(f"No answer after {self.max_retries + 1} attempts; last: {last}"[:2000])

    def _completion(self, response, messages: list[dict], attempts: int) -> Completion:
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice is not None and choice.message is not None else ""
        usage = getattr(response, "usage", None)
        if usage is not None and usage.prompt_tokens is not None:
            return Completion(text=text, prompt_tokens=int(usage.prompt_tokens or 0),
                              completion_tokens=int(usage.completion_tokens or 0), model=response.model or "",
                              attempts=attempts)
        return Completion(text=text, prompt_tokens=sum(tokens_estimate(m["content"]) for m in messages),
                          completion_tokens=tokens_estimate(text), model=getattr(response, "model", "") or "",
                          attempts=attempts, usage_reported=False)


def _status_detail(exc) -> str:
    try:
        body = exc.response.json()
        if isinstance(body, dict):
            error = body.get("error", body)
            message = error.get("message") if isinstance(error, dict) else error
            return str(message)[:500]
    except Exception:
        pass
    return (exc.response.text or exc.__class__.__name__)[:500]


T = TypeVar("T")
R = TypeVar("R")


def map_concurrent(items: Iterable[T], work: Callable[[T], R], *, concurrency: int,
                   stop: threading.Event, on_idle: Callable[[], None] | None = None,
                   idle_seconds: float = 0.25) -> Iterator[tuple[T, R | None, BaseException | None]]:
    """(item, result, error) as each finishes, at most `concurrency` in flight. Setting `stop`
    submits nothing more; closing the iterator (or an error in the consumer) stops too, and waits
    for the requests in flight to return. `on_idle` is called in the consumer's thread whenever
    `idle_seconds` pass with nothing finishing (the runner writes its buffered answers to the cache
    then, so a worker killed during a long wait has lost none it was sent)."""
    iterator = iter(items)
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="llm")
    pending: dict[Future, T] = {}
    try:
        def refill() -> None:
            while len(pending) < concurrency and not stop.is_set():
                item = next(iterator, _END)
                if item is _END:
                    return
                pending[pool.submit(work, item)] = item

        refill()
        while pending:
            done, _ = wait(list(pending), timeout=idle_seconds if on_idle is not None else None,
                           return_when=FIRST_COMPLETED)
            if not done and on_idle is not None:
                on_idle()
            for future in done:
                item = pending.pop(future)
                error = future.exception()
                yield item, (None if error else future.result()), error
            refill()
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)


_END: Any = object()
