"""Personal data in post text: rules (as data), validators and masking. Pure Python, no Django.

Each rule finds one kind of personal data (a mobile number, an e-mail address, a resident ID whose
check digit holds, ...) and masking replaces what it finds with the kind's typed placeholder
(`[手机号]`, `[邮箱]` ...). Ordinary numbers (years, prices, ranks, episode numbers, percentages,
dates) match no rule: every numeric rule needs a shape a count or a date does not have (11 digits
starting 1[3-9], a leading 0 with an area code, a valid check digit, a cue word before it ...).

`mask_post(raw)` is what the importer stores as a post's text: the cleaning of the paper's appendix
(annotation/importing/cleaning.py) with personal data masked. @mentions and URLs are found with the
cleaning's own patterns; where the cleaning removes them (as the paper does) they stay removed and
are counted, and what it leaves (a full-width ＠, a bare `t.cn/...` link) gets `[用户]` / `[链接]`.
`mask_text(text)` masks any other text (a rewrite, say) with placeholders for every kind.
Decisions and measured precision/recall: docs/personal_data.md."""
from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import Callable, Iterable, Protocol

from annotation.importing.cleaning import _MENTION as CLEANING_MENTION
from annotation.importing.cleaning import _URL as CLEANING_URL
from annotation.importing.cleaning import clean_text

# Bumped whenever a rule changes, so a re-scan can say which rules a post was last scanned with.
RULES_VERSION = "4"

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


# --- validators -----------------------------------------------------------------------------------

ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
ID_CHECK_CHARS = "10X98765432"


def id_check_char(first17: str) -> str:
    """GB 11643-1999 check character of an 18-character resident ID: ISO 7064 MOD 11-2 over the
    first 17 digits."""
    return ID_CHECK_CHARS[sum(int(d) * w for d, w in zip(first17, ID_WEIGHTS)) % 11]


def is_valid_resident_id(value: str) -> bool:
    """18 characters: a 6-digit region code (first digit 1-9), a real birth date from 1900 on, a
    3-digit sequence and the GB 11643 check character (0-9 or X)."""
    value = value.upper()
    if len(value) != 18 or not value[:17].isdigit() or not value[:17].isascii() or value[0] == "0":
        return False
    try:
        born = date(int(value[6:10]), int(value[10:12]), int(value[12:14]))
    except ValueError:
        return False
    if born.year < 1900:
        return False
    return id_check_char(value[:17]) == value[17]


def luhn_valid(digits: str) -> bool:
    """Luhn (ISO/IEC 7812-1 mod 10): every second digit from the right doubled, digit sums added,
    the total divisible by 10."""
    if not digits or not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def luhn_check_digit(payload: str) -> str:
    """The digit that makes `payload + digit` pass the Luhn check."""
    for d in "0123456789":
        if luhn_valid(payload + d):
            return d
    raise AssertionError("unreachable: one of ten digits always completes a Luhn number")


def _digits(value: str) -> str:
    return re.sub(r"[^0-9Xx]", "", value)


def _valid_ip(value: str) -> bool:
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    if address.version == 6:
        return sum(1 for group in value.split(":") if group) >= 2  # not a bare "::" or a clock time
    return True


# Words written after 微信 that are not IDs (微信 Android版, 微信 WeChatPay): letters-only values only.
NOT_WECHAT_IDS = frozenset({
    "android", "iphone", "windows", "wechat", "wechatpay", "weixin", "official", "desktop", "mobile", "online",
    "update", "version", "account", "channel", "moments", "google", "huawei", "xiaomi", "harmony", "friends",
    "message", "service", "support", "payment", "miniprogram", "program", "public", "groups", "stickers"})


def _valid_wechat(value: str) -> bool:
    return not (value.isalpha() and value.lower() in NOT_WECHAT_IDS)


def _valid_plate(value: str) -> bool:
    tail = re.sub(r"[\s·•\-]", "", value)[2:]
    return sum(ch.isdigit() for ch in tail) >= 3  # a word such as 新MATE40 is not a plate


# --- rules ----------------------------------------------------------------------------------------

_NOT_ALNUM_BEFORE = r"(?<![0-9A-Za-z])"
_NOT_ALNUM_AFTER = r"(?![0-9A-Za-z])"
_NOT_DIGIT_BEFORE = r"(?<![0-9])"
_NOT_DIGIT_AFTER = r"(?![0-9])"
# A dotted number right after v/版本/第 or right before 版/条/款/节/章 is a version or clause number
# (v1.2.3.4, 固件1.2.3.4版, 第1.2.3.4条), not an IPv4 address.
_NOT_VERSION_BEFORE = "".join(f"(?<!{re.escape(w)})" for w in (
    "v", "V", "版本", "版本号", "版本 ", "版本:", "版本：", "版本号:", "版本号：", "版本号 ", "第"))
_NOT_VERSION_AFTER = r"(?![ ]?[版条款节章])"
_SEP = r"[ \-‐–.]?"  # people write 138 0013 8000, 138-0013-8000 and 138.0013.8000

QQ_CUES = ("QQ", "qq", "Qq", "qQ", "Q Q", "q q", "Q q", "q Q", "扣扣", "q号", "Q号", "q群", "Q群", "加q", "加Q", "加扣", "企鹅号", "企鹅", "球球",
           "抠抠")
WECHAT_CUES = ("微信", "威信", "薇信", "徽信", "维信", "V信", "v信", "VX", "vx", "Vx", "vX", "WX", "wx", "Wx",
               "weixin", "WeChat", "wechat", "绿泡泡", "v❤", "V❤", "薇❤", "微❤", "威芯", "薇芯", "加v", "加V", "加薇")
# Cues of a mobile number written in groups no other rule reads (手机 13 80 01 38 000).
MOBILE_CUES = ("手机号码", "手机号", "手机", "电话号码", "电话", "联系电话", "联系方式", "联系", "号码", "打给我", "致电",
               "tel", "Tel", "TEL")
_CUE_FILLER = r"(?:群号?|号码|同号|号|账号|帐号|ID|id)?(?:[ :：=＝]|是|为|搜索|搜|添加|加|我|的){0,4}"
# Between the digit groups of a number after a cue: one or two spaces (a full-width space is folded
# to one), a hyphen or dash with or without spaces around it, or a dot. A dot followed by a space ends
# a sentence, not a group.
_GROUP_SEP = r"(?: {1,2}|[ ]?[\-‐–—][ ]?|\.)"
# 5-11 digits after a cue, in groups; what follows may not be another group. Tried before the
# contiguous form, which stays the fallback (QQ 123456 2023 10 01: the date is not part of it).
_QQ_VALUE = r"(?P<value>[1-9](?:" + _GROUP_SEP + r"?\d){4,10}(?!" + _GROUP_SEP + r"?\d)|[1-9]\d{4,10})"
PROVINCES = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼"
_PLATE_LETTERS = "A-HJ-NP-Z"  # plates use no I and no O


def _looks_like_date_or_decimal(groups: list[str], separators: list[str]) -> bool:
    """2023 10 01, 2023-10-01, 2023.10 (year, month, day) or 128.50 (a price): not a QQ number."""
    if len(groups) in (2, 3) and len(groups[0]) == 4 and 1900 <= int(groups[0]) <= 2099 \
            and all(len(g) <= 2 for g in groups[1:]) and 1 <= int(groups[1]) <= 12 \
            and (len(groups) == 2 or 1 <= int(groups[2]) <= 31):
        return True
    return separators == ["."] and len(groups[1]) <= 2


def _valid_qq(value: str) -> bool:
    """5-11 digits; written in groups, not a date nor a decimal number."""
    groups = re.findall(r"\d+", value)
    if not 5 <= sum(map(len, groups)) <= 11:
        return False
    separators = [s.strip() or " " for s in re.findall(r"\D+", value)]
    return len(groups) == 1 or not _looks_like_date_or_decimal(groups, separators)


def _cue_alternation(cues: Iterable[str]) -> str:
    return "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))


@dataclass(frozen=True)
class Rule:
    """One kind of personal data: a compiled pattern (the span to mask is group "value", or the
    whole match), an optional validator of the matched value, and `removed_by_cleaning` when the
    import's cleaning deletes what it matches (kept deleted there, not given a placeholder)."""

    kind: str
    pattern: re.Pattern
    validate: Callable[[str], bool] | None = None
    removed_by_cleaning: re.Pattern | None = None
    # Characters one of which a text must hold for the rule to be worth running (a cheap prefilter).
    needs: str = ""


def _rules() -> tuple[Rule, ...]:
    number = "0123456789"
    return (
        # URLs first: an e-mail or a number inside a link is part of the link.
        Rule("url", CLEANING_URL, removed_by_cleaning=CLEANING_URL, needs="/wW"),
        Rule("email", re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@"
                                 r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?[.。])+[A-Za-z]{2,12}"
                                 + _NOT_ALNUM_AFTER), needs="@"),
        Rule("id_card", re.compile(_NOT_ALNUM_BEFORE + r"[1-9]\d{5}[ \-]?(?:18|19|20)\d{2}[01]\d[0-3]\d[ \-]?\d{3}[0-9Xx]"
                                   + _NOT_ALNUM_AFTER, re.ASCII), validate=lambda v: is_valid_resident_id(_digits(v)),
             needs=number),
        Rule("bank_card", re.compile(_NOT_ALNUM_BEFORE + r"(?:\d{4}[ \-]){3,4}\d{1,7}(?=$|[^0-9A-Za-z])|"
                                     + _NOT_ALNUM_BEFORE + r"\d{16,19}" + _NOT_ALNUM_AFTER, re.ASCII),
             validate=lambda v: 16 <= len(_digits(v)) <= 19 and luhn_valid(_digits(v)), needs=number),
        Rule("mobile", re.compile(r"(?:(?:\+|00)86[ \-]?|[(（]\+?86[)）][ ]?|(?<![0-9A-Za-z+]))"
                                  r"(?:1[3-9]\d" + _SEP + r"\d{4}" + _SEP + r"\d{4}|1[3-9]\d\d[ \-.]\d{3}[ \-.]\d{4}|1 [3-9](?: \d){9})"
                                  + _NOT_DIGIT_AFTER, re.ASCII),
             needs=number),
        Rule("landline", re.compile(r"(?:[(（]0(?:10|2\d|[3-9]\d{2})[)）][ \-]?|" + _NOT_DIGIT_BEFORE
                                    + r"0(?:10|2\d|[3-9]\d{2})[ \-]?)[2-9]\d{2,3}[ \-]?\d{4}"
                                    r"(?:[ ]?(?:转|-|ext\.?|#)[ ]?\d{1,5})?" + _NOT_DIGIT_AFTER, re.ASCII),
             needs=number),
        Rule("ip", re.compile(_NOT_VERSION_BEFORE + r"(?<![0-9.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
                              r"(?!\.?\d)" + _NOT_VERSION_AFTER + r"|(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Fa-f:])",
                              re.ASCII), validate=_valid_ip, needs=".:"),
        # A mobile number after a cue, in groups the rule above does not read (138-00-138-000).
        Rule("mobile", re.compile(r"(?<![A-Za-z])(?:" + _cue_alternation(MOBILE_CUES) + r")" + _CUE_FILLER
                                  + r"(?<![0-9])(?P<value>1" + _GROUP_SEP + r"?[3-9](?:" + _GROUP_SEP + r"?\d){9})(?!"
                                  + _GROUP_SEP + r"?\d)"), needs="手电联号打致Tt"),
        # The cue before the number, its digits together or in groups (QQ 1234 5678 9, 扣扣：12-345-6789).
        Rule("qq", re.compile(r"(?<![A-Za-z])(?:" + _cue_alternation(QQ_CUES) + r")" + _CUE_FILLER
                              + _QQ_VALUE + _NOT_DIGIT_AFTER), validate=_valid_qq, needs="Qq扣企球抠"),
        # The cue after the number: 123456789（QQ）, 123456789是我的扣扣.
        Rule("qq", re.compile(_NOT_ALNUM_BEFORE + r"(?P<value>[1-9]\d{4,10})(?:[ (（]|是我的|是|我的){0,2}(?:"
                              + _cue_alternation(QQ_CUES) + r")", re.ASCII), needs="Qq扣企球抠"),
        Rule("wechat", re.compile(r"(?<![A-Za-z])(?:" + _cue_alternation(WECHAT_CUES) + r")" + _CUE_FILLER
                                  + r"(?P<value>[A-Za-z][A-Za-z0-9_\-]{5,19}|[1-9]\d{4,10})" + _NOT_ALNUM_AFTER
                                  + r"|(?<![A-Za-z0-9_])wxid_[A-Za-z0-9_\-]{4,30}"),
             validate=_valid_wechat, needs="微威薇徽维信VvWw绿"),
        Rule("plate", re.compile(f"[{PROVINCES}][{_PLATE_LETTERS}][ ·•\\-]?"
                                 f"(?:[{_PLATE_LETTERS}0-9]{{4}}[{_PLATE_LETTERS}0-9挂学警港澳]"
                                 f"|[DF][{_PLATE_LETTERS}0-9]\\d{{4}}|\\d{{5}}[DF])" + _NOT_ALNUM_AFTER, re.IGNORECASE),
             validate=_valid_plate, needs=PROVINCES),
        # Links the cleaning does not remove: bare domains (t.cn/xxxx, weibo.com/u/123).
        Rule("url", re.compile(r"(?<![A-Za-z0-9@.\-])(?:[A-Za-z0-9\-]+\.)+(?:com|cn|net|org|cc|me|io|top|xyz|info|tv)"
                               r"(?:/[^\s\u3000-\u303f\uff00-\uffef]*)?" + _NOT_ALNUM_AFTER), needs="."),
        Rule("mention", CLEANING_MENTION, removed_by_cleaning=CLEANING_MENTION, needs="@"),
        # A street address with a house number (XX路12号, XX街道3号院2单元501室): the offline rule;
        # place names without a number need the named-entity recogniser.
        Rule("address", re.compile(r"(?:(?![在住到去从于是的了我你他她们和与])[\u4e00-\u9fff]){1,8}(?:路|街|大道|大街|巷|弄|胡同)[0-9〇零一二三四五六七八九十百]{1,5}号"
                                   r"(?:院|楼)?(?:[0-9]{1,3}(?:号楼|栋|幢|座))?(?:[0-9]{1,2}单元)?(?:[0-9]{1,5}(?:室|号房))?"),
             needs="路街道巷弄同"),
    )


RULES: tuple[Rule, ...] = _rules()

# Full-width digits, letters and signs read as their ASCII forms (one character for one, so spans
# found in the folded text are spans of the original).
_FOLD = {**{0xFF10 + i: ord("0") + i for i in range(10)},
         **{0xFF21 + i: ord("A") + i for i in range(26)},
         **{0xFF41 + i: ord("a") + i for i in range(26)},
         0xFF0B: "+", 0xFF0D: "-", 0xFF0E: ".", 0xFF1A: ":", 0xFF20: "@", 0xFF3F: "_", 0x3000: " ", 0x00A0: " "}


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    value: str
    removed_by_cleaning: bool = False


class EntityRecognizer(Protocol):
    """A named-entity recogniser for what rules cannot find: spans (kind, start, end) of `text`
    with kind "person" or "address"."""

    name: str

    def entities(self, text: str) -> list[tuple[str, int, int]]: ...


def find_personal_data(text: str, *, ner: EntityRecognizer | None = None) -> list[Finding]:
    """Every piece of personal data in `text`, left to right, none overlapping (where two rules
    match overlapping text the earlier rule in RULES wins; named entities come last)."""
    folded = text.translate(_FOLD)
    taken: list[tuple[int, int]] = []
    found: list[Finding] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    for rule in RULES:
        if rule.needs and not any(ch in folded for ch in rule.needs):
            continue
        for match in rule.pattern.finditer(folded):
            has_value = "value" in rule.pattern.groupindex and match.group("value") is not None
            start, end = match.span("value") if has_value else match.span()
            value = folded[start:end]
            if start == end or not free(start, end) or (rule.validate and not rule.validate(value)):
                continue
            removed = rule.removed_by_cleaning is not None and text[start:end] == value and \
                rule.removed_by_cleaning.fullmatch(text, start, end) is not None
            taken.append((start, end))
            found.append(Finding(rule.kind, start, end, text[start:end], removed))
    if ner is not None:
        for kind, start, end in ner.entities(text):
            if kind in NER_KINDS and start < end and free(start, end):
                taken.append((start, end))
                found.append(Finding(kind, start, end, text[start:end]))
    return sorted(found, key=lambda f: f.start)


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


def mask_text(text: str, *, ner: EntityRecognizer | None = None) -> MaskResult:
    """`text` with every finding replaced by its kind's placeholder (mentions and URLs included)."""
    findings = find_personal_data(text, ner=ner)
    return MaskResult(_replace(text, findings, lambda f: PLACEHOLDERS[f.kind]), findings)


# Placeholders travel through the cleaning as single private-use characters, because the cleaning
# would take `[手机号]` for a Weibo emoticon code and drop it.
_SENTINEL_BASE = 0xF0000  # Supplementary Private Use Area-A: never in a Weibo post
_SENTINELS = {chr(_SENTINEL_BASE + i): PLACEHOLDERS[kind] for i, kind in enumerate(KINDS)}
_SENTINEL_OF = {kind: chr(_SENTINEL_BASE + i) for i, kind in enumerate(KINDS)}
_SENTINEL_RE = re.compile(f"[{chr(_SENTINEL_BASE)}-{chr(_SENTINEL_BASE + 0xFFFF)}]")


def mask_post(raw: str, *, ner: EntityRecognizer | None = None) -> MaskResult:
    """The text a post is stored and shown with: `clean_text(raw)` with its personal data masked.

    Personal data is found in the raw text first (the cleaning would cut an e-mail address at its
    @ as if it were a mention), then once more in the cleaned text (the cleaning can join what an
    emoji split, 138😀0013 8000). What the cleaning removes (@mentions, http/www links) stays
    removed and is counted; the named-entity recogniser, if any, reads the masked text last.
    Without findings the result is exactly `clean_text(raw)`."""
    raw = _SENTINEL_RE.sub("", unicodedata.normalize("NFC", raw))
    first = find_personal_data(raw)
    marked = _replace(raw, first, lambda f: " " if f.removed_by_cleaning else _SENTINEL_OF[f.kind])
    cleaned = clean_text(marked).translate({ord(s): p for s, p in _SENTINELS.items()})
    second = mask_text(cleaned, ner=ner)
    return MaskResult(second.text, [*first, *second.findings])

