"""Text cleaning from the paper's appendix "Data Cleaning": drop @mentions, URLs, platform tags
and emoji; keep everything else (including the ideographic punctuation Myopia needs)."""
from __future__ import annotations

import re
import unicodedata

CLEANING_STEPS = (
    "Unicode NFC normalisation",
    "@mentions removed (@name up to whitespace or punctuation)",
    "URLs removed (http/https/www) and Weibo link stubs (网页链接, 全文, 展开c, O网页链接)",
    "Weibo emoticon codes removed ([哈哈], [抱拳]: brackets holding 1-5 letters)",
    "Weibo topic markers #...# reduced to their words",
    "emoji and pictographs removed (Unicode So/Sk symbols in emoji blocks, variation selectors, ZWJ)",
    "whitespace collapsed",
)

_URL = re.compile(r"(?:https?://|www\.)[^\s\u3000-\u303f\uff00-\uffef]+", re.IGNORECASE)
_MENTION = re.compile(r"@[^\s@:：，,。.!！?？、;；()（）\[\]【】]{1,30}[:：]?")
_LINK_STUBS = re.compile(r"(?:O?网页链接|展开c|...全文|L[^\s]{1,20}的微博视频)")
_EMOTICON_CODE = re.compile(r"\[[\u4e00-\u9fffA-Za-z]{1,5}\]")
_TOPIC = re.compile(r"#([^#\n]{1,60})#")
_EMOJI = re.compile(
    "["
    "\U0001f000-\U0001faff"  # pictographs, emoticons, transport, supplemental symbols
    "\u2600-\u27bf"  # misc symbols, dingbats
    "\u2b00-\u2bff"  # arrows and stars used as emoji
    "\ufe0e\ufe0f\u200d\u20e3"  # variation selectors, zero-width joiner, keycap
    "\U000e0000-\U000e007f"  # tag characters (flag sequences)
    "]+"
)
_SPACES = re.compile(r"[ \t\r\n\u3000\u00a0]+")


def clean_text(raw: str) -> str:
    text = unicodedata.normalize("NFC", raw)
    text = _URL.sub(" ", text)
    text = _MENTION.sub(" ", text)
    text = _LINK_STUBS.sub(" ", text)
    text = _EMOTICON_CODE.sub("", text)
    text = _TOPIC.sub(r"\1 ", text)
    text = _EMOJI.sub("", text)
    return _SPACES.sub(" ", text).strip()
