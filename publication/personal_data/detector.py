"""Finding and masking personal data in post text. Pure Python, no Django.

`find_personal_data(text)` folds the text for matching (normalise.py: full-width, traditional,
invisible characters, emoji, digit-group separators, e-mail obfuscations), runs every rule
(recognisers.py, built from the word lists in data/ through cues.py) and the optional name
recogniser (ner.py) on it, and maps each finding back to the characters that were written, so
masking replaces exactly those. Listed public numbers (hotlines, 400/800 numbers, public
resolvers) are never findings.

`mask_post(raw)` is what the importer stores as a post's text: the cleaning of the paper's appendix
(annotation/importing/cleaning.py) with personal data masked. @mentions and URLs are found with the
cleaning's own patterns; where the cleaning removes them (as the paper does) they stay removed and
are counted, and what it leaves (a full-width ＠, a bare `t.cn/...` link) gets `[用户]` / `[链接]`.
`mask_text(text)` masks any other text (a rewrite, say) with placeholders for every kind.
Decisions and measured recall: docs/personal_data.md."""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Protocol

from annotation.importing.cleaning import clean_text

from .cues import RuleData, load_rule_data, rules_dir_setting
from .normalise import Folded, fold_for_matching
from .recognisers import (  # noqa: F401  (re-exported: the validators' one public home is recognisers.py)
    Rule,
    build_rules,
    id_check_char,
    is_valid_resident_id,
    luhn_check_digit,
    luhn_valid,
    public_number_check,
)

# kind -> placeholder. The order is the report's order.
PLACEHOLDERS: dict[str, str] = {
    "id_card": "[身份证号]",
    "bank_card": "[银行卡号]",
    "mobile": "[手机号]",
    "landline": "[座机号]",
    "email": "[邮箱]",
    "qq": "[QQ号]",
    "wechat": "[微信号]",
    "plate": "[车牌号]",
    "ip": "[IP地址]",
    "mention": "[用户]",
    "url": "[链接]",
    "address": "[地址]",
    "person": "[人名]",
}
KINDS: tuple[str, ...] = tuple(PLACEHOLDERS)
# Kinds only a named-entity recogniser finds (none offline); "address" also has an offline rule.
NER_KINDS: frozenset[str] = frozenset({"person", "address"})


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    value: str
    removed_by_cleaning: bool = False


class EntityRecognizer(Protocol):
    """A named-entity recogniser for what rules cannot find: spans (kind, start, end) of `text`
    with kind "person" or "address". It may also offer `entities_many(texts)` for a batch."""

    name: str

    def entities(self, text: str) -> list[tuple[str, int, int]]: ...


@dataclass(frozen=True)
class Ruleset:
    """The rules built from one set of word lists, and the version they make."""

    data: RuleData
    rules: tuple[Rule, ...]
    is_public: Callable[[str], bool]
    numeral_cue: re.Pattern
    needs: tuple[frozenset, ...] = ()  # per rule: characters one of which a text must hold

    @property
    def version(self) -> str:
        return self.data.version


def ruleset(extra_dir: str | None = None) -> Ruleset:
    """The rules from the built-in lists plus PERSONAL_DATA_RULES_DIR's (or `extra_dir`'s)."""
    return _ruleset(rules_dir_setting() if extra_dir is None else extra_dir)


@lru_cache(maxsize=8)
def _ruleset(extra_dir: str) -> Ruleset:
    data = load_rule_data(extra_dir)
    cues = data.cue_pattern("cues_mobile", "cues_qq", "cues_wechat", "cues_id_card", "cues_bank_card")
    rules = build_rules(data)
    return Ruleset(data=data, rules=rules, is_public=public_number_check(data),
                   numeral_cue=re.compile(cues, re.IGNORECASE), needs=tuple(frozenset(r.needs) for r in rules))


def rules_version() -> str:
    """The version of the rules in force: the code's and a digest of every word list."""
    return ruleset().version


# The version at import, for scripts; the services ask rules_version() (PERSONAL_DATA_RULES_DIR may change).
RULES_VERSION = rules_version()


def _fold(text: str, rules: Ruleset) -> Folded:
    return fold_for_matching(text, numeral_cue=rules.numeral_cue)


def _past_marks(text: str, end: int) -> int:
    """`end` moved past the combining marks (accents, strokes, keycaps, variation selectors) written
    right after a finding: they belong to its last character, and masking leaves none hanging on the
    placeholder. The matching view drops them, so the rules' spans end before them."""
    while end < len(text) and unicodedata.category(text[end])[0] == "M":
        end += 1
    return end


def find_personal_data(text: str, *, ner: EntityRecognizer | None = None, rules: Ruleset | None = None,
                       entities: list[tuple[str, int, int]] | None = None) -> list[Finding]:
    """Every piece of personal data in `text`, left to right, none overlapping (where two rules
    match overlapping text the earlier rule wins; named entities come last), in characters of `text`.
    `entities`: the recogniser's answer for the folded text, when it was asked for a batch already."""
    rules = rules or ruleset()
    folded = _fold(text, rules)
    norm = folded.text
    taken: list[tuple[int, int]] = []
    found: list[Finding] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    present = set(norm)
    for rule, needs in zip(rules.rules, rules.needs):
        if needs and present.isdisjoint(needs):
            continue
        for match in rule.pattern.finditer(norm):
            has_value = "value" in rule.pattern.groupindex and match.group("value") is not None
            start, end = match.span("value") if has_value else match.span()
            value = norm[start:end]
            if start == end or not free(start, end) or (rule.validate and not rule.validate(value)) \
                    or (rule.accept and not rule.accept(norm, start, end)) or (rule.numeric and rules.is_public(value)):
                continue
            o_start, o_end = folded.span(start, end)
            removed = rule.removed_by_cleaning is not None and \
                rule.removed_by_cleaning.fullmatch(text, o_start, o_end) is not None
            taken.append((start, end))
            o_end = _past_marks(text, o_end)
            found.append(Finding(rule.kind, o_start, o_end, text[o_start:o_end], removed))
    if entities is None and ner is not None:
        entities = ner.entities(norm)
    for kind, start, end in entities or ():
        if kind in NER_KINDS and 0 <= start < end <= len(norm) and free(start, end):
            taken.append((start, end))
            o_start, o_end = folded.span(start, end)
            o_end = _past_marks(text, o_end)
            found.append(Finding(kind, o_start, o_end, text[o_start:o_end]))
    return sorted(found, key=lambda f: f.start)


def folded_for_entities(text: str, rules: Ruleset | None = None) -> str:
    """The text a name recogniser reads for `find_personal_data(text, entities=...)`."""
    return _fold(text, rules or ruleset()).text


@dataclass
class MaskResult:
    text: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """kind -> how many were found, in the report's order; kinds not found are left out."""
        counted = Counter(f.kind for f in self.findings)
        return {kind: counted[kind] for kind in KINDS if counted[kind]}


def _replace(text: str, findings: list[Finding], replacement: Callable[[Finding], str]) -> str:
    parts, pos = [], 0
    for f in findings:
        parts += [text[pos:f.start], replacement(f)]
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def mask_text(text: str, *, ner: EntityRecognizer | None = None, rules: Ruleset | None = None,
              entities: list[tuple[str, int, int]] | None = None) -> MaskResult:
    """`text` with every finding replaced by its kind's placeholder (mentions and URLs included)."""
    findings = find_personal_data(text, ner=ner, rules=rules, entities=entities)
    return MaskResult(_replace(text, findings, lambda f: PLACEHOLDERS[f.kind]), findings)


# Placeholders travel through the cleaning as single private-use characters, because the cleaning
# would take `[手机号]` for a Weibo emoticon code and drop it.
_SENTINEL_BASE = 0xF0000  # Supplementary Private Use Area-A: never in a Weibo post
_SENTINELS = {chr(_SENTINEL_BASE + i): PLACEHOLDERS[kind] for i, kind in enumerate(KINDS)}
_SENTINEL_OF = {kind: chr(_SENTINEL_BASE + i) for i, kind in enumerate(KINDS)}
_SENTINEL_RE = re.compile(f"[{chr(_SENTINEL_BASE)}-{chr(_SENTINEL_BASE + 0xFFFF)}]")


def _first_pass(raw: str, rules: Ruleset) -> tuple[list[Finding], str]:
    raw = _SENTINEL_RE.sub("", unicodedata.normalize("NFC", raw))
    first = find_personal_data(raw, rules=rules)
    marked = _replace(raw, first, lambda f: " " if f.removed_by_cleaning else _SENTINEL_OF[f.kind])
    return first, clean_text(marked).translate(_SENTINEL_TABLE)


_SENTINEL_TABLE = {ord(s): p for s, p in _SENTINELS.items()}


def mask_post(raw: str, *, ner: EntityRecognizer | None = None, rules: Ruleset | None = None) -> MaskResult:
    """The text a post is stored and shown with: `clean_text(raw)` with its personal data masked.

    Personal data is found in the raw text first (the cleaning would cut an e-mail address at its
    @ as if it were a mention), then once more in the cleaned text (the cleaning can join what an
    emoji split). What the cleaning removes (@mentions, http/www links) stays removed and is
    counted; the named-entity recogniser, if any, reads the masked text last.
    Without findings the result is exactly `clean_text(raw)`."""
    rules = rules or ruleset()
    first, cleaned = _first_pass(raw, rules)
    second = mask_text(cleaned, ner=ner, rules=rules)
    return MaskResult(second.text, [*first, *second.findings])


def mask_posts(raws: list[str], *, ner: EntityRecognizer | None = None, rules: Ruleset | None = None) -> list[MaskResult]:
    """`mask_post` of each text, the name recogniser asked once for the whole list (a batch runs
    several times faster than one text at a time)."""
    rules = rules or ruleset()
    passes = [_first_pass(raw, rules) for raw in raws]
    entities: list = [None] * len(raws)
    if ner is not None:
        folded = [folded_for_entities(cleaned, rules) for _first, cleaned in passes]
        many = getattr(ner, "entities_many", None)
        entities = many(folded) if many is not None else [ner.entities(t) for t in folded]
    out = []
    for (first, cleaned), found in zip(passes, entities):
        second = mask_text(cleaned, rules=rules, entities=found or [])
        out.append(MaskResult(second.text, [*first, *second.findings]))
    return out


def mask_texts(texts: list[str], *, ner: EntityRecognizer | None = None,
               rules: Ruleset | None = None) -> list[MaskResult]:
    """`mask_text` of each text, the name recogniser asked once for the whole list. For text that
    is already cleaned (and maybe masked): the placeholders in it stay, what the rules and the
    recogniser find now is masked too, and a text masked with these rules comes back unchanged."""
    rules = rules or ruleset()
    if ner is None:
        return [mask_text(t, rules=rules) for t in texts]
    folded = [folded_for_entities(t, rules) for t in texts]
    many = getattr(ner, "entities_many", None)
    entities = many(folded) if many is not None else [ner.entities(t) for t in folded]
    return [mask_text(t, rules=rules, entities=found or []) for t, found in zip(texts, entities)]
