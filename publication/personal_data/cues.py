"""The rules' word lists as data (publication/personal_data/data/*.txt, README there): cues people
write before a phone, QQ or WeChat number, identifier and product words, public numbers and public
figures. Researchers extend them without code: edit the files, or put files of the same names in a
folder named by PERSONAL_DATA_RULES_DIR (their entries are added). Every entry is part of the rules
version. Pure Python, no Django."""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .normalise import fold_for_matching

DATA_DIR = Path(__file__).resolve().parent / "data"
# Bumped when the code of a rule changes; the data's digest is added to it (RULES_VERSION).
CODE_VERSION = "6"
LISTS = ("cues_mobile", "cues_qq", "cues_qq_lone", "cues_wechat", "cues_wechat_lone", "cues_id_card",
         "cues_bank_card", "identifier_words", "product_words", "public_numbers", "public_figures", "not_names",
         "not_wechat_ids")
# Between the characters of a cue people put spaces, dots, dashes or underscores (微 信, v.x, w_x).
CUE_GAP = r"[ _.\-·・]?"


def _read(path: Path) -> list[str]:
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("re:") else line.strip()
        if line:
            entries.append(line)
    return entries


def _fold_entry(entry: str) -> str:
    if entry.startswith("re:"):
        return entry
    return fold_for_matching(entry).text.strip().lower()


@dataclass(frozen=True)
class RuleData:
    """The lists, folded as the rules read text (lower case), and the version they make."""

    lists: dict
    version: str

    def __getitem__(self, name: str) -> tuple[str, ...]:
        return self.lists[name]

    def cue_pattern(self, *names: str) -> str:
        """A regex alternation of the cues of these lists, each character allowed a gap after it,
        behind a look-ahead for their first characters (one test per position instead of one per cue)."""
        cues = sorted({c.replace(" ", "") for name in names for c in self.lists[name]} - {""}, key=len, reverse=True)
        first = {ch for cue in cues for ch in (cue[0], cue[0].upper(), cue[0].lower())}
        alternation = "|".join(CUE_GAP.join(re.escape(ch) for ch in cue) for cue in cues)
        return f"(?=[{''.join(re.escape(ch) for ch in sorted(first))}])(?:{alternation})"


@lru_cache(maxsize=8)
def load_rule_data(extra_dir: str = "") -> RuleData:
    """The built-in lists plus those in `extra_dir` (PERSONAL_DATA_RULES_DIR)."""
    lists: dict[str, tuple[str, ...]] = {}
    digest = hashlib.sha256()
    for name in LISTS:
        entries = _read(DATA_DIR / f"{name}.txt")
        if extra_dir:
            entries += _read(Path(extra_dir) / f"{name}.txt")
        folded = tuple(dict.fromkeys(e for e in map(_fold_entry, entries) if e))
        lists[name] = folded
        digest.update(name.encode() + b"\0" + "\n".join(sorted(folded)).encode() + b"\1")
    return RuleData(lists=lists, version=f"{CODE_VERSION}.{digest.hexdigest()[:8]}")


def rules_dir_setting() -> str:
    return os.environ.get("PERSONAL_DATA_RULES_DIR", "").strip()
