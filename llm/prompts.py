"""Prompts: the paper's zero-shot template (its prompt table, tab:prompt in MAAM.tex), verbatim, and the
chat messages a run sends for one post - the template filled with the post's text, after K few-shot
demonstrations (the same template filled with a training post, and its gold scores answered in the
template's own dict format). No Django here."""
from __future__ import annotations

import json
import string
from collections.abc import Sequence

# The paper's prompt table (MAAM.tex, tab:prompt), character for character: a Python format string, so
# {text} is the post and the doubled braces are the literal braces of the dict it asks for (with the
# paper's own curly quotes, closing one first). The line break after {text} is the one in the table.
PAPER_PROMPT = (
    '请对以下文本进行分析，并评分： {text}' "\n"
    '评分标准：1. 显性歧视 (1-5)   - 1分：没有任何显性歧视行为，文本内容中没有攻击性或侮辱性的语言。   - 2-4分：逐渐增高的歧视行为。  - 5分：文本包含非常明显的歧视言辞，语言攻击性强，表现出对同性恋群体的敌意或贬低。  2. 隐性歧视 (1-5)   - 1分：没有隐性歧视成分，文本内容不包含任何间接的贬低、偏见或隐蔽的负面情绪。   - 2-4分：逐渐增高的歧视行为。   - 5分：文本隐含非常深刻的歧视成分，可能以微妙的方式表现出对同性恋群体的偏见或歧视。3. 情绪激烈度 (1-5)   - 1分：文本情绪冷静、理性，没有明显的情感倾向。即使是讨论同性恋话题，也保持了客观、平和的语气。   - 2-4分：逐渐增高的情绪激烈度，表示情感从冷静中立到偏向支持或反对的激烈程度。  - 5分：文本情感极为强烈，表现出过度的支持或强烈的反对，语气激进或偏激。请返回一个字典，格式如下：{{”显性歧视“: 显性歧视分数, ”隐性歧视“: 隐性歧视分数, ”情感强烈程度“: 情感强烈程度分数}}'
)
PAPER_TEMPLATE_NAME = "paper-zero-shot"
PLACEHOLDERS = frozenset({"text"})
# The keys of the dict the paper's prompt asks for, per dimension, in the prompt's order.
PAPER_KEYS = {"explicit": "显性歧视", "implicit": "隐性歧视", "emotional": "情感强烈程度"}
DIMENSIONS = ("explicit", "implicit", "emotional")


class TemplateError(ValueError):
    """A template that cannot be filled: a placeholder other than {text}, no {text}, or a lone brace."""


def template_check(template: str) -> None:
    """Raise TemplateError unless `template` is a format string whose only placeholder is {text}."""
    try:
        fields = [name for _literal, name, _spec, _conv in string.Formatter().parse(template) if name is not None]
    except ValueError as exc:
        raise TemplateError(f"The template is not a valid format string ({exc}); write literal braces as {{ and }}.") from exc
    unknown = sorted(set(fields) - PLACEHOLDERS)
    if unknown:
        raise TemplateError(f"Unknown placeholder(s) {', '.join('{' + f + '}' for f in unknown)}; only {{text}} is filled.")
    if "text" not in fields:
        raise TemplateError("The template must contain {text}, where the post goes.")


def prompt_render(template: str, text: str) -> str:
    """The template with the post's text in place of {text} (the text is never parsed as a format)."""
    return template.format(text=text)


def answer_render(scores: dict[str, int]) -> str:
    """A demonstration's answer: the gold scores in the paper's dict format, with its quotes."""
    return "{" + ", ".join(f"”{PAPER_KEYS[d]}“: {int(scores[d])}" for d in DIMENSIONS) + "}"


def messages_build(template: str, text: str, shots: Sequence[dict] = ()) -> list[dict]:
    """Chat messages for one post: each shot (a training row with text and the three labels) as a user
    turn (the template filled with its text) and an assistant turn (its gold answer), then the post."""
    messages: list[dict] = []
    for shot in shots:
        messages.append({"role": "user", "content": prompt_render(template, shot["text"])})
        messages.append({"role": "assistant", "content": answer_render(shot)})
    messages.append({"role": "user", "content": prompt_render(template, text)})
    return messages


def shots_fingerprint(shots: Sequence[dict]) -> str:
    """The shots' content as one canonical string (texts and labels, in order): part of the cache key."""
    return json.dumps([[s["text"], *[int(s[d]) for d in DIMENSIONS]] for s in shots], ensure_ascii=False,
                      separators=(",", ":"))
