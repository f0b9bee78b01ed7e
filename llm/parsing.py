"""An LLM's answer -> the three scores, or Unparsed. Never guessed (docs/llm.md, "Parsing").

Accepted: the dict the paper's prompt asks for (MAAM.tex, tab:prompt) with its curly quotes (either
order), straight, single or full-width quotes or none; JSON, also inside ``` fences; Chinese keys
(显性歧视 / 隐性歧视 / 情感强烈程度, and the rubric's 情绪激烈度) or English ones (explicit / implicit /
emotional, with "bias" / "intensity"); any chatter around it. Each value must be a whole number 1-5
(3, "3", 3.0). Everything else is unparsed: no dict, a key missing, a value out of range or not whole
(2.5), or two dicts in the answer that disagree. No Django here.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

DIMENSIONS = ("explicit", "implicit", "emotional")

# Normalised key (lower case, no spaces, underscores, hyphens or quotes) -> dimension.
KEY_NAMES = {
    "explicit": ("显性歧视", "显性", "显性偏见", "显性歧视分数", "explicit", "explicitbias", "explicitdiscrimination",
                 "explicitscore"),
    "implicit": ("隐性歧视", "隐性", "隐性偏见", "隐性歧视分数", "implicit", "implicitbias", "implicitdiscrimination",
                 "implicitscore"),
    "emotional": ("情感强烈程度", "情绪激烈度", "情感强烈程度分数", "情绪激烈程度", "情感强度", "情绪强度", "情感激烈度",
                  "emotional", "emotionalintensity", "emotion", "emotionintensity", "intensity", "emotionalscore"),
}
KEYS = {name: dim for dim, names in KEY_NAMES.items() for name in names}

# Quotes of every kind -> '"' (the paper's own template writes ”key“, closing quote first).
_QUOTES = str.maketrans({c: '"' for c in "“”„‟＂「」『』〝〞«»"} | {c: "'" for c in "‘’‚‛＇"})
_FULLWIDTH = str.maketrans({"｛": "{", "｝": "}", "：": ":", "，": ",", "　": " "})
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*(.*?)```", re.S)
_PAIR = re.compile(r"""["']?\s*([^"'{}:,\s][^"'{}:,]*?)\s*["']?\s*[:=]\s*["']?\s*(-?\d+(?:\.\d+)?)\s*(?:分)?\s*["']?""")


@dataclass(frozen=True)
class Parsed:
    scores: dict[str, int] | None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.scores is not None


def _key(raw) -> str | None:
    if not isinstance(raw, str):
        return None
    norm = re.sub(r"[\s_\-\"'`*]+", "", raw).lower()
    norm = norm.removesuffix("(1-5)").removesuffix("（1-5）")
    return KEYS.get(norm)


def _whole(value) -> int | None:
    """A whole number 1..5 from 3, "3", 3.0 or "3分"; None otherwise (2.5, "high", True)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip().removesuffix("分").strip()
        if not re.fullmatch(r"-?\d+(?:\.0+)?", text):
            return None
        value = float(text)
    if isinstance(value, (int, float)) and float(value).is_integer() and 1 <= value <= 5:
        return int(value)
    return None


def _scores(pairs) -> dict[str, int] | str:
    """(key, value) pairs -> {dimension: score}, or why not. Keys that name no dimension are ignored;
    a dimension given twice must have one score."""
    found: dict[str, int] = {}
    for raw_key, raw_value in pairs:
        dim = _key(raw_key)
        if dim is None:
            continue
        score = _whole(raw_value)
        if score is None:
            return f"value {raw_value!r} for {raw_key!r} is not a whole number 1-5"
        if dim in found and found[dim] != score:
            return f"two different scores for {dim}"
        found[dim] = score
    return found


def _complete(found: dict[str, int]) -> dict[str, int] | str:
    missing = [d for d in DIMENSIONS if d not in found]
    return ("missing " + ", ".join(missing)) if missing else found


def _from_mapping(mapping: dict) -> dict[str, int] | str:
    found = _scores(mapping.items())
    if isinstance(found, str):
        return found
    if not found:  # one level of nesting: {"scores": {...}}
        nested = [v for v in mapping.values() if isinstance(v, dict)]
        if len(nested) == 1:
            return _from_mapping(nested[0])
    return _complete(found)


def _candidates(text: str) -> list[str]:
    """Every balanced {...} in the text (outermost first), fenced blocks included."""
    out, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0 and start is not None:
                out.append(text[start:i + 1])
    return out


def _parse_object(block: str) -> dict[str, int] | str:
    # Doubled braces, as an unfilled format string would leave them: {{...}} -> {...}
    while block.startswith("{{") and block.endswith("}}"):
        block = block[1:-1]
    for loader in (json.loads, ast.literal_eval):
        try:
            value = loader(block)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return _from_mapping(value)
    # Unquoted or oddly quoted keys: key: value pairs inside the braces, and nothing else of substance.
    inner = block[1:-1]
    pairs = _PAIR.findall(inner)
    if not pairs:
        return "no key: value pairs"
    leftover = _PAIR.sub("", inner)
    if re.sub(r"[\s,;]+", "", leftover):
        return "not a dict"
    found = _scores(pairs)
    return found if isinstance(found, str) else _complete(found)


def parse_answer(answer: str | None) -> Parsed:
    """The scores in `answer`, or Parsed(None, reason). Two readable dicts that disagree: unparsed."""
    if not answer or not answer.strip():
        return Parsed(None, "empty answer")
    text = answer.translate(_QUOTES).translate(_FULLWIDTH)
    blocks = [b for fenced in _FENCE.findall(text) for b in _candidates(fenced)] or _candidates(text)
    if not blocks:
        return Parsed(None, "no dict in the answer")
    readings, reasons = [], []
    for block in blocks:
        result = _parse_object(block)
        (readings if isinstance(result, dict) else reasons).append(result)
    distinct = {tuple(r[d] for d in DIMENSIONS) for r in readings}
    if len(distinct) == 1:
        return Parsed(readings[0])
    if len(distinct) > 1:
        return Parsed(None, "several dicts with different scores")
    return Parsed(None, reasons[0] if reasons else "no dict in the answer")
