"""Topics of posts, for topic-aware evaluation (issue 23; docs/topics.md). ChLGBT's authors
collected posts by search keyword (同性恋, 变性人, 非二元, 跨性别, 性少数, 双性恋); a post's topic
is the first topic, in the map's order, one of whose keywords it contains, else "other". Matching
is case-insensitive; a keyword written in Latin script only (ASCII, e.g. "gay", "trans", "non-binary")
matches as a whole word (no Latin letter right before or after it: "les和gay" has both, "lesson" and
"translate" neither), or, written with a trailing "*" ("lgbt*"), as the start of a word ("LGBTQ",
"LGBTcommunity"); any other keyword (Chinese) matches as a substring. The map is data kept beside the
lexicon: the default below, or a JSON file {"topic": ["keyword", ...], ...} (`--topics FILE`), whose
order is the precedence."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

OTHER = "other"
# Precedence: the narrower identities first, the broad 同性恋 block after them, the umbrella terms last,
# so a post about trans people that also says 同性恋 counts as 跨性别. 间性人 (intersex; 双性人 in
# everyday Chinese) is a topic of its own, before 双性恋 (bisexual): it is a variation of sex
# characteristics, not an orientation, and is not one of the dataset's search keywords.
DEFAULT_TOPICS: dict[str, tuple[str, ...]] = {
    "变性人": ("变性人", "变性", "做变性手术"),
    "跨性别": ("跨性别", "跨儿", "药娘", "mtf", "ftm", "trans", "transgender*", "transsexual*"),
    "非二元": ("非二元", "性别酷儿", "nonbinary", "non-binary"),
    "间性人": ("间性人", "双性人", "intersex*"),
    "双性恋": ("双性恋", "双性", "bisexual*"),
    "同性恋": ("同性恋", "同志", "男同", "女同", "拉拉", "基佬", "南通", "gay", "gays", "les", "lesbian*",
              "homosexual*", "同妻", "同婚", "同性"),
    "性少数": ("性少数", "lgbt*", "彩虹", "酷儿", "queer*"),
}


def keyword_regex(keyword: str) -> str:
    """A keyword's pattern, on lower-cased text: Latin script (ASCII) as a whole word (not touching
    a Latin letter), or as a word's start with a trailing "*"; any other keyword as a substring."""
    prefix = keyword.endswith("*")
    word = keyword.rstrip("*").lower()
    if not word.isascii():
        return re.escape(word)
    return rf"(?<![a-z]){re.escape(word)}" + ("" if prefix else "(?![a-z])")


def keyword_pattern(keywords: Sequence[str]) -> re.Pattern:
    """One pattern for a topic's keywords (see keyword_regex)."""
    return re.compile("|".join(keyword_regex(k) for k in keywords))


@dataclass
class TopicMap:
    topics: dict[str, tuple[str, ...]]
    _patterns: dict[str, re.Pattern] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._patterns = {name: keyword_pattern(keywords) for name, keywords in self.topics.items()}

    @classmethod
    def default(cls) -> TopicMap:
        return cls(dict(DEFAULT_TOPICS))

    @classmethod
    def from_file(cls, path: str | Path) -> TopicMap:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not data or not all(
                isinstance(v, list) and v and all(isinstance(k, str) and k for k in v) for v in data.values()):
            raise ValueError(f"{path}: a topic map is a JSON object of topic -> non-empty list of keywords")
        if any(not k.rstrip("*") for v in data.values() for k in v):
            raise ValueError(f"{path}: a keyword cannot be only '*'")
        if OTHER in data:
            raise ValueError(f"{path}: {OTHER!r} is the topic of posts that match none; do not define it")
        return cls({str(k): tuple(v) for k, v in data.items()})

    def topic(self, text: str) -> str:
        lowered = text.lower()
        for name, pattern in self._patterns.items():
            if pattern.search(lowered):
                return name
        return OTHER

    def assign(self, texts: Sequence[str]) -> list[str]:
        return [self.topic(t) for t in texts]

    def names(self) -> list[str]:
        return [*self.topics, OTHER]
