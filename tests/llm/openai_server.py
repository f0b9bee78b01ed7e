"""A real OpenAI-compatible chat-completions server on loopback (http.server in a thread), for the LLM
tests and bench/bench_llm.py. It records every request (body and headers) and can misbehave the way
real endpoints do: 429 with Retry-After, 500/503, answers slower than the client's timeout, and
answers that are not the dict asked for. What it does to a request is decided by `plan(body, n)`,
where n counts earlier requests with the same content (0 on the first try)."""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAPER_KEYS = ("显性歧视", "隐性歧视", "情感强烈程度")


def request_fingerprint(body: dict) -> str:
    last = body["messages"][-1]["content"]
    return hashlib.sha256(json.dumps([last, body.get("seed"), len(body["messages"])], ensure_ascii=False)
                          .encode()).hexdigest()


def paper_answer(scores: tuple[int, int, int], style: int = 0) -> str:
    """An answer as models write them: the paper's dict (its quotes), chatter around it, or JSON in a fence."""
    e, i, m = scores
    if style == 1:
        return f'好的，以下是评分结果：\n```json\n{{"explicit": {e}, "implicit": {i}, "emotional": {m}}}\n```\n如有需要请告知。'
    if style == 2:
        return f'{{"显性歧视": {e}, "隐性歧视": {i}, "情感强烈程度": {m}}}'
    return f"分析：该文本……\n{{”{PAPER_KEYS[0]}“: {e}, ”{PAPER_KEYS[1]}“: {i}, ”{PAPER_KEYS[2]}“: {m}}}"


def scores_from_text(text: str) -> tuple[int, int, int]:
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    return 1 + h % 5, 1 + (h // 5) % 5, 1 + (h // 25) % 5


def default_answer(body: dict) -> str:
    last = body["messages"][-1]["content"]
    return paper_answer(scores_from_text(last), style=int(hashlib.md5(last.encode()).hexdigest(), 16) % 3)


class OpenAIServer:
    """Start with `with OpenAIServer(...) as server:`; the client's base URL is `server.url`.

    plan(body, n) -> None (answer normally) or one of: ("429", retry_after_seconds), ("500",), ("503", retry_after),
    ("slow", seconds) (answer after that long), ("nonsense", text) (200 with that text), ("401",), ("400",)."""

    def __init__(self, *, answer: Callable[[dict], str] = default_answer,
                 plan: Callable[[dict, int], tuple | None] | None = None, delay: float = 0.0, model: str = "fake-llm"):
        self.answer, self.plan, self.delay, self.model = answer, plan or (lambda body, n: None), delay, model
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.seen: dict[str, int] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "not found"}})
                body = json.loads(raw)
                fp = request_fingerprint(body)
                with server.lock:
                    n = server.seen.get(fp, 0)
                    server.seen[fp] = n + 1
                    record = {"body": body, "headers": dict(self.headers), "n": n, "at": time.monotonic(),
                              "fingerprint": fp}
                    server.requests.append(record)
                action = server.plan(body, n)
                record["action"] = action[0] if action else "ok"
                if server.delay:
                    time.sleep(server.delay)
                if action is not None:
                    kind = action[0]
                    if kind == "429":
                        return self._send(429, {"error": {"message": "rate limited"}},
                                          {"Retry-After": str(action[1])})
                    if kind == "503":
                        return self._send(503, {"error": {"message": "overloaded"}}, {"Retry-After": str(action[1])})
                    if kind == "500":
                        return self._send(500, {"error": {"message": "internal error"}})
                    if kind == "401":
                        message = action[1] if len(action) > 1 else "invalid api key"
                        return self._send(401, {"error": {"message": message}})
                    if kind == "400":
                        return self._send(400, {"error": {"message": "content refused"}})
                    if kind == "slow":
                        time.sleep(action[1])
                    if kind == "nonsense":
                        return self._reply(body, action[1])
                return self._reply(body, server.answer(body))

            def _reply(self, body: dict, text: str):
                prompt_chars = sum(len(m["content"]) for m in body["messages"])
                self._send(200, {
                    "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": server.model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": prompt_chars, "completion_tokens": len(text),
                              "total_tokens": prompt_chars + len(text)}})

            def _send(self, status: int, payload: dict, headers: dict | None = None):
                data = json.dumps(payload, ensure_ascii=False).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True, name="openai-test-server")

    def __enter__(self) -> OpenAIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answered(self) -> list[dict]:
        with self.lock:
            return [r for r in self.requests if r.get("action") in ("ok", "nonsense", "slow")]
