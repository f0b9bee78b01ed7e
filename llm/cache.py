"""The response cache key: sha256 of what determines an answer - backend, endpoint, model, the exact
template text, the post's text, the shots' content, seed, temperature, run index and the answer-length
cap. Never the API key (a key change must not re-pay, and a key must never reach the database).
No Django here; the rows are llm.models.LLMResponseCache."""
from __future__ import annotations

import hashlib
import json


def cache_key(*, backend: str, endpoint: str, model: str, template_text: str, post_text: str, shots: str,
              seed: int, temperature: float, run_index: int, max_tokens: int) -> str:
    material = ["llm-cache-v1", backend, endpoint.rstrip("/"), model, template_text, post_text, shots, int(seed),
                repr(float(temperature)), int(run_index), int(max_tokens)]
    return hashlib.sha256(json.dumps(material, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()
