"""How each kind of personal data is found: one rule (a compiled pattern, a validator, a check of
what stands around it) per way of writing it, built from the word lists in data/ (cues.py).

The rules read the text folded by normalise.fold_for_matching: full-width and traditional forms
folded, invisible characters and emoji dropped, every separator between digit groups made one of
` `, `-` or `.`, Chinese numerals after a cue made digits, e-mail obfuscations undone. So a rule for
a phone number need only know `[ \\-.]` between digits, and a cue `微信` also finds `微 信`, `薇❤信`
(with 薇信 in the list) and `微信號`.

| kind | found when |
|---|---|
| id_card | 18 characters in any grouping (6-8-4, 3-3-4-4-4 ...): a region code, a real birth date, the GB 11643 check character |
| bank_card | 16-19 digits passing Luhn: in groups of four, or after a card cue in any grouping, or bare unless an identifier word (微博, mid, id, 订单 …) stands right before |
| mobile | `1[3-9]` + 9 digits: together, 3-4-4, 4-3-4, a space after every digit, +86, 0086 or 86 before; after a cue in any grouping |
| landline | an area code (with or without parentheses, or the country code 86 without its 0) + a 7-8 digit number, an extension |
| email | local@domain.tld (after the obfuscations are undone) |
| qq | 5-11 digits after a QQ cue (or before one), or 6-11 after a lone `Q`/`扣`; never without a cue; not a date, a price or a count (`256000 对`) |
| wechat | an ID or a number after a WeChat cue; after a lone `v`/`微` an ID holding a digit, or a mobile number; `wxid_…` |
| plate | province + letter + 5 characters with at least 3 digits and at most 2 letters (new-energy: 6), not right after product talk |
| ip | IPv4 not private, reserved or well known (114.114.114.114), not a version (after v, 版本, 升级到); IPv6 |
| mention, url | the import cleaning's patterns; bare links |
| address | a street with a house number; a residential compound with a building or unit number |

Pure Python, no Django."""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from datetime import date
from typing import Callable

from annotation.importing.cleaning import _MENTION as CLEANING_MENTION
from annotation.importing.cleaning import _URL as CLEANING_URL

from .cues import RuleData

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


def digits_of(value: str) -> str:
    return re.sub(r"[^0-9Xx]", "", value)


def _valid_card(value: str) -> bool:
    digits = re.sub(r"\D", "", value)
    return 16 <= len(digits) <= 19 and luhn_valid(digits)


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


def _valid_plate(value: str) -> bool:
    """At least three digits and at most two letters after the province and the issuing letter (a
    new-energy plate has D or F and five digits)."""
    tail = re.sub(r"[\s·•・\-]", "", value)[2:]
    letters = sum(ch.isalpha() for ch in tail)
    return sum(ch.isdigit() for ch in tail) >= 3 and letters <= 2


# --- rules ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    """One way of writing one kind of personal data: a compiled pattern (the span to mask is group
    "value", or the whole match), an optional validator of the matched value, an optional check of
    the text around it (`accept(folded_text, start, end)`), `removed_by_cleaning` when the import's
    cleaning deletes what it matches, and `needs`: characters one of which a text must hold for the
    rule to be worth running (a cheap prefilter)."""

    kind: str
    pattern: re.Pattern
    validate: Callable[[str], bool] | None = None
    accept: Callable[[str, int, int], bool] | None = None
    removed_by_cleaning: re.Pattern | None = None
    needs: str = ""
    numeric: bool = False  # checked against the public numbers


_FILLER = (r"(?:群号?|号码|同号|号|账号|帐号|id|ID|Id)?(?:[ :=]|是|为|搜索|搜|添加|加|我|的|号){0,4}")
_NOT_DIGIT_BEFORE = r"(?<![0-9])"
_S = r"[ \-.]?"  # one canonical separator between digits, or none
DIGITS = "0123456789"
ALNUM = DIGITS + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
PROVINCES = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼"
_PLATE_LETTERS = "A-HJ-NP-Z"  # plates use no I and no O
# What comes after a number that is a count, an amount or a date, not an account (帝企鹅 256000 对).
_UNIT_AFTER = re.compile(r" ?(?:[对只个人元块年月日号万亿次米头条名位件台度%岁分秒斤克吨票张本套部集期天]|公里|千米|小时)")
_VERSION_BEFORE = re.compile(r"(?:v|ver|version|版本号?|升级到|更新到|升到|固件|系统|第)[ :]?$", re.IGNORECASE)
_VERSION_AFTER = re.compile(r" ?[版条款节章]")
PLATE_CUES = re.compile(r"(?:车牌号?|牌照|号牌|车号|的车|车)[ :是为]{0,3}$")
_PRODUCT_AFTER = re.compile(r"(?:处理器|芯片|手机|电脑|笔记本|显卡|平板|系列|机型)")


def _unit_after(text: str, end: int) -> bool:
    return _UNIT_AFTER.match(text, end) is not None


def _valid_ip(value: str) -> bool:
    try:
        address = ipaddress.ip_address(value.replace("。", "."))
    except ValueError:
        return False
    if address.version == 6:
        return sum(1 for group in value.split(":") if group) >= 2  # not a bare "::" or a clock time
    return not (address.is_private or address.is_reserved or address.is_loopback or address.is_link_local
                or address.is_multicast or address.is_unspecified)


def build_rules(data: RuleData) -> tuple[Rule, ...]:
    """Every rule, in the order they win overlaps (a link holding an e-mail address is a link)."""
    mobile_cues = data.cue_pattern("cues_mobile")
    qq_cues = data.cue_pattern("cues_qq")
    qq_lone = data.cue_pattern("cues_qq_lone")
    wechat_cues = data.cue_pattern("cues_wechat")
    wechat_lone = data.cue_pattern("cues_wechat_lone")
    card_cues = data.cue_pattern("cues_bank_card")
    identifier = re.compile(r"(?:" + data.cue_pattern("identifier_words") + r")[ :=#号是为]{0,3}$", re.IGNORECASE)
    product = re.compile(r"(?:" + data.cue_pattern("product_words") + r")[ ]?$", re.IGNORECASE)
    not_wechat = frozenset(data["not_wechat_ids"])
    flags = re.IGNORECASE

    def not_identifier(text: str, start: int, end: int) -> bool:
        return identifier.search(text, max(0, start - 12), start) is None

    def not_version(text: str, start: int, end: int) -> bool:
        return _VERSION_BEFORE.search(text[max(0, start - 8):start]) is None and _VERSION_AFTER.match(text, end) is None

    def not_count(text: str, start: int, end: int) -> bool:
        return not _unit_after(text, end)

    def plate_context(text: str, start: int, end: int) -> bool:
        before = text[max(0, start - 6):start]
        if product.search(before) or _PRODUCT_AFTER.match(text, end):
            return False
        # 新 is also "new": a plate from Xinjiang needs a plate word before it (车牌 新A12345).
        return text[start] != "新" or PLATE_CUES.search(before) is not None

    def valid_wechat(value: str) -> bool:
        return not (value.isalpha() and value.lower() in not_wechat)

    # 5-11 digits, in groups; what follows may not be another group (then the first group alone).
    qq_value = r"(?P<value>[1-9](?:" + _S + r"\d){4,10}(?!" + _S + r"\d)|[1-9]\d{4,10})"
    return (
        # URLs first: an e-mail or a number inside a link is part of the link.
        Rule("url", CLEANING_URL, removed_by_cleaning=CLEANING_URL, needs="/wW"),
        # Links the cleaning does not remove: bare domains (t.cn/xxxx, weibo.com/u/123).
        Rule("url", re.compile(r"(?<![A-Za-z0-9@.\-])(?:[A-Za-z0-9\-]+\.)+(?:com|cn|net|org|cc|me|io|top|xyz|info|tv)"
                               r"(?:/[^\s\u3000-\u303f\uff00-\uffef]*)?(?![A-Za-z0-9])"), needs="."),
        Rule("email", re.compile(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@"
                                 r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?[.。])+[A-Za-z]{2,12}(?![A-Za-z0-9])"),
             needs="@"),
        Rule("id_card", re.compile(_NOT_DIGIT_BEFORE + r"[1-9](?:" + _S + r"\d){16}" + _S + r"[0-9Xx](?![0-9A-Za-z])",
                                   re.ASCII), validate=lambda v: is_valid_resident_id(digits_of(v)), needs="0123456789"),
        # Cards: groups of four (4-4-4-4, 4-4-4-4-3), or any grouping after a card cue, or bare digits
        # not right after an identifier word (微博 4912…, mid=…, 订单号 …).
        Rule("bank_card", re.compile(_NOT_DIGIT_BEFORE + r"\d{4}([ \-.。])\d{4}\1\d{4}\1\d{4}(?:\1?\d{1,3})?(?![0-9])", re.ASCII),
             validate=_valid_card, needs="0123456789"),
        Rule("bank_card", re.compile(r"(?:" + card_cues + r")" + _FILLER + r"(?P<value>\d(?:" + _S + r"\d){15,18})(?!"
                                     + _S + r"\d)", flags), validate=_valid_card, needs="卡账帐cC"),
        Rule("bank_card", re.compile(r"(?<![0-9A-Za-z])\d{16,19}(?![0-9A-Za-z])", re.ASCII), validate=_valid_card,
             accept=not_identifier, needs="0123456789"),
        # The country code with +, 00, in parentheses or bare (8613800138000, 86 138 0013 8000) is part of it.
        Rule("mobile", re.compile(r"(?:(?:\+|00)86[ \-]?|\(\+?86\)[ ]?|(?<![0-9A-Za-z+])86[ \-]?(?=1[3-9])|(?<![0-9A-Za-z+]))"
                                  r"(?:1[3-9]\d(?P<sep>[ \-.。]?)\d{4}(?P=sep)\d{4}|1[3-9]\d\d(?P<sep2>[ \-.。])\d{3}(?P=sep2)\d{4}|1 [3-9](?: \d){9})"
                                  r"(?![0-9])", re.ASCII), numeric=True, needs="0123456789"),
        Rule("landline", re.compile(r"(?:\(0(?:10|2\d|[3-9]\d{2})\)[ \-]?|" + _NOT_DIGIT_BEFORE + r"0(?:10|2\d|[3-9]\d{2})[ \-.]?"
                                    r"|(?<![0-9])(?:\+|00)?86[ \-.]?(?:10|2\d|[3-9]\d{2})[ \-.])[2-9](?:[ \-.]?\d){6,7}"
                                    r"(?:[ ]?(?:转|-|ext\.?|#)[ ]?\d{1,5})?(?![0-9])", re.ASCII), numeric=True,
             needs="0123456789"),
        Rule("ip", re.compile(r"(?<![0-9.。])(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?P<dot>[.。])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?P=dot)){2}"
                              r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\.?\d)|(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Fa-f:])",
                              re.ASCII), validate=_valid_ip, accept=not_version, numeric=True, needs=".:"),
        # A mobile number after a cue, in groups the rule above does not read (138-00-138-000).
        Rule("mobile", re.compile(r"(?<![A-Za-z])(?:" + mobile_cues + r")" + _FILLER + r"(?<![0-9])(?P<value>1" + _S
                                  + r"[3-9](?:" + _S + r"\d){9})(?!" + _S + r"\d)", flags), numeric=True, needs=DIGITS),
        # QQ: the cue before the number, its digits together or in groups (QQ 1234 5678 9, 扣扣：12-345-6789).
        Rule("qq", re.compile(r"(?<![A-Za-z])(?:" + qq_cues + r")" + _FILLER + qq_value, flags), validate=_valid_qq,
             accept=not_count, numeric=True, needs=DIGITS),
        # A lone Q or 扣 before a number of a QQ number's shape (Q：12345678, 扣 12345678).
        Rule("qq", re.compile(r"(?<![A-Za-z0-9/])(?:" + qq_lone + r")[ :]?(?P<value>[1-9]\d{5,10})(?![0-9]|\.\d)", flags),
             accept=not_count, numeric=True, needs=DIGITS),
        # The cue after the number: 123456789（QQ）, 123456789是我的扣扣.
        Rule("qq", re.compile(r"(?<![0-9A-Za-z])(?P<value>[1-9]\d{4,10})(?:[ (]|是我的|是|我的){0,2}(?:" + qq_cues + r")", flags),
             numeric=True, needs=DIGITS),
        Rule("wechat", re.compile(r"(?<![A-Za-z])(?:" + wechat_cues + r")" + _FILLER
                                  + r"(?P<value>[A-Za-z][A-Za-z0-9_\-]{5,19}|[1-9](?:" + _S + r"\d){4,10})(?![A-Za-z0-9])"
                                  r"|(?<![A-Za-z0-9_])wxid_[A-Za-z0-9_\-]{4,30}", flags),
             validate=valid_wechat, accept=not_count, numeric=True, needs=ALNUM),
        # A lone v, 微 or 薇 before an ID holding a digit, or before a mobile number.
        Rule("wechat", re.compile(r"(?<![A-Za-z0-9/_\-])(?:" + wechat_lone + r")[ :]?(?P<value>[A-Za-z](?=[A-Za-z0-9_\-]*\d)"
                                  r"[A-Za-z0-9_\-]{5,19}|1[3-9]\d{9})(?![A-Za-z0-9])", flags), validate=valid_wechat, needs=DIGITS),
        Rule("plate", re.compile(f"[{PROVINCES}] ?[{_PLATE_LETTERS}][ ·•・\\-]?"
                                 f"(?:[{_PLATE_LETTERS}0-9]{{4}}[{_PLATE_LETTERS}0-9挂学警港澳]"
                                 f"|[DF][{_PLATE_LETTERS}0-9]\\d{{4}}|\\d{{5}}[DF])(?![A-Za-z0-9])", re.IGNORECASE),
             validate=_valid_plate, accept=plate_context, needs=PROVINCES),
        Rule("mention", CLEANING_MENTION, removed_by_cleaning=CLEANING_MENTION, needs="@"),
        # A street address with a house number (XX路12号, XX街道3号院2单元501室).
        Rule("address", re.compile(r"(?:(?![在住到去从于是的了我你他她们])[\u4e00-\u9fff]){1,8}(?:路|街|大道|大街|巷|弄|胡同)"
                                   r"[0-9〇零一二三四五六七八九十百]{1,5}号(?:院|楼)?(?:[0-9]{1,3}(?:号楼|栋|幢|座))?"
                                   r"(?:[0-9]{1,2}单元)?(?:[0-9]{1,5}(?:室|号房))?"), needs="号"),
        # A residential compound with a building or unit number (阳光花园3栋2单元501, 幸福小区5号楼).
        Rule("address", re.compile(r"(?:(?![在住到去从于是的了我你他她们和与家])[\u4e00-\u9fff]){1,8}"
                                   r"(?:小区|花园|家园|公寓|新村|苑|园|庭|府|公馆|社区|大厦|宿舍)"
                                   r"[0-9一二三四五六七八九十]{1,3}(?:号楼|栋|幢|座|号|期|区)"
                                   r"(?:[0-9一二三四五六七八九十]{1,2}(?:单元|门|栋|号楼))?(?:[0-9]{1,5}(?:室|号|房)?)?"),
             needs="栋幢座号期区"),
    )


def public_number_check(data: RuleData) -> Callable[[str], bool]:
    """value -> True when it is a listed public number (hotline, 400/800 number, public IP)."""
    exact = {e for e in data["public_numbers"] if not e.startswith("re:")}
    digits_exact = {re.sub(r"\D", "", e) for e in exact if re.fullmatch(r"[\d\- ]+", e)}
    patterns = [re.compile(e[3:].strip()) for e in data["public_numbers"] if e.startswith("re:")]

    def is_public(value: str) -> bool:
        if value in exact:
            return True
        if re.search(r"[A-Za-z]", value):  # an ID with letters is never a listed number
            return False
        digits = re.sub(r"\D", "", value)
        return bool(digits) and (digits in digits_exact or any(p.fullmatch(digits) for p in patterns))

    return is_public
