"""Tokens and cost before launch (an estimate from text length) and after (the counted usage), at the
per-model prices of settings.LLM_PRICES (per million tokens). No Django here.

The estimate: one token per CJK character (Chinese tokenisers take 0.6-1.5 tokens a character, so
this is of the right order, not exact) and one per four other characters, plus 4 per chat message."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
MESSAGE_OVERHEAD = 4
# What an answer in the paper's dict format takes, about: {”显性歧视“: 2, ”隐性歧视“: 4, ”情感强烈程度“: 3}
ANSWER_TOKENS = 30


def tokens_estimate(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return cjk + -(-(len(text) - cjk) // 4)


def messages_tokens_estimate(messages: Sequence[Mapping]) -> int:
    return sum(tokens_estimate(m["content"]) + MESSAGE_OVERHEAD for m in messages)


def prices_for(model: str, prices: Mapping[str, Sequence[float]]) -> tuple[float, float]:
    """(input, output) price per million tokens for `model`: an exact entry, else the longest entry
    the model name starts with ("deepseek" covers "deepseek-chat"), else free (0, 0)."""
    if model in prices:
        found = prices[model]
    else:
        keys = sorted((k for k in prices if model.startswith(k)), key=len, reverse=True)
        found = prices[keys[0]] if keys else (0.0, 0.0)
    return float(found[0]), float(found[1])


def cost(prompt_tokens: int, completion_tokens: int, price_input: float, price_output: float) -> float:
    return round(prompt_tokens / 1e6 * price_input + completion_tokens / 1e6 * price_output, 6)
