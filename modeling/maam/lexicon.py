"""The sensitive keyword lexicon K for keyword-aware promotion. Data, not code: loaded from a
file, passed in by the app (which keeps it in the database), or the paper's defaults."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

# Appendix Table "top-30 LGBT-related keywords" (骄傲月/游行 and TXL/通讯录 are two entries each).
PAPER_TOP30 = (
    "同性恋", "双性恋", "跨性别", "酷儿", "无性恋", "泛性恋", "非二元性别", "出柜", "深柜", "性别焦虑",
    "性别欣悦", "顺性别", "异性恋霸权", "同性婚姻合法化", "意定监护", "选定家庭", "去病理化", "扭转治疗",
    "骄傲月", "游行", "彩虹旗", "跨儿韧性", "性别代词", "药娘", "TXL", "通讯录", "性别肯定手术", "交叉性",
    "彩虹资本主义", "柏拉图式取向", "身份政治", "自我认同",
)
# Coded and community terms the appendix "Ambiguous and Coded Identity Terms" names, plus common
# short forms of the identity terms above.
CODED_TERMS = ("南通", "同志", "拉拉", "基佬", "gay", "les", "LGBT", "lgbt", "LGBTQ", "性少数", "同性", "女同", "男同",
               "跨儿", "非二元")


@dataclass(frozen=True)
class LexiconEntry:
    term: str
    kind: str = "identity"


@dataclass
class Lexicon:
    entries: tuple[LexiconEntry, ...]
    version: str = "paper-default"
    max_len: int = field(init=False)
    _terms: frozenset = field(init=False, repr=False)

    def __post_init__(self) -> None:
        terms = [e.term.strip() for e in self.entries if e.term.strip()]
        self._terms = frozenset(t.lower() for t in terms)
        self.max_len = max((len(t) for t in terms), default=0)

    def __contains__(self, term: str) -> bool:
        return term.lower() in self._terms

    def __len__(self) -> int:
        return len(self._terms)

    @property
    def terms(self) -> frozenset:
        return self._terms

    def digest(self) -> str:
        return hashlib.sha256("\n".join(sorted(self._terms)).encode()).hexdigest()[:16]

    @classmethod
    def default(cls) -> Lexicon:
        return cls(tuple([LexiconEntry(t, "identity") for t in PAPER_TOP30] +
                         [LexiconEntry(t, "coded") for t in CODED_TERMS]))

    @classmethod
    def from_terms(cls, terms, version: str = "custom", kind: str = "identity") -> Lexicon:
        return cls(tuple(LexiconEntry(t, kind) for t in terms), version=version)

    @classmethod
    def from_file(cls, path: str | Path) -> Lexicon:
        """A text file (one term per line, `term<TAB>kind` allowed, # comments) or JSON list."""
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            data = json.loads(text)
            entries = [LexiconEntry(d["term"], d.get("kind", "identity")) if isinstance(d, dict) else LexiconEntry(d)
                       for d in data]
        else:
            entries = []
            for line in text.splitlines():
                line = line.split("#", 1)[0].strip()
                if line:
                    term, _, kind = line.partition("\t")
                    entries.append(LexiconEntry(term.strip(), kind.strip() or "identity"))
        lexicon = cls(tuple(entries), version=path.name)
        lexicon.version = f"{path.name}:{lexicon.digest()}"
        return lexicon
