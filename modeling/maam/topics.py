"""Topics of posts, for topic-aware evaluation (issue 23; docs/topics.md). ChLGBT's authors
collected posts by search keyword (同性恋, 变性人, 非二元, 跨性别, 性少数, 双性恋); a post's topic
is the first topic, in the map's order, one of whose keywords it contains, else "other". The map
is data kept beside the lexicon: the default below, or a JSON file {"topic": ["keyword", ...], ...}
(`--topics FILE`), whose order is the precedence."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

OTHER = "other"
# Precedence: the narrower identities first, the broad 同性恋 block after them, the umbrella terms last,
# so a post about trans people that also says 同性恋 counts as 跨性别.
DEFAULT_TOPICS: dict[str, tuple[str, ...]] = {
    "变性人": ("变性人", "变性", "做变性手术"),
    "跨性别": ("跨性别", "跨儿", "药娘", "MTF", "FTM", "mtf", "ftm", "trans"),
    "非二元": ("非二元", "性别酷儿", "nonbinary", "non-binary"),
    "双性恋": ("双性恋", "双性", "bisexual"),
    "同性恋": ("同性恋", "同志", "男同", "女同", "拉拉", "基佬", "南通", "gay", "les", "同妻", "同婚", "同性"),
    "性少数": ("性少数", "LGBT", "lgbt", "彩虹", "酷儿"),
}


@dataclass
class TopicMap:
    topics: dict[str, tuple[str, ...]]

    @classmethod
    def default(cls) -> TopicMap:
        return cls(dict(DEFAULT_TOPICS))

    @classmethod
    def from_file(cls, path: str | Path) -> TopicMap:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not data or not all(
                isinstance(v, list) and v and all(isinstance(k, str) and k for k in v) for v in data.values()):
            raise ValueError(f"{path}: a topic map is a JSON object of topic -> non-empty list of keywords")
        if OTHER in data:
            raise ValueError(f"{path}: {OTHER!r} is the topic of posts that match none; do not define it")
        return cls({str(k): tuple(v) for k, v in data.items()})

    def topic(self, text: str) -> str:
        lowered = text.lower()
        for name, keywords in self.topics.items():
            if any(k.lower() in lowered for k in keywords):
                return name
        return OTHER

    def assign(self, texts: Sequence[str]) -> list[str]:
        return [self.topic(t) for t in texts]

    def names(self) -> list[str]:
        return [*self.topics, OTHER]
