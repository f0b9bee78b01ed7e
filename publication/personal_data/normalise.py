"""One normaliser for matching, with a map back to the characters that were written.

People write personal data to get past a platform's filters: full-width digits, a zero-width space
or an emoji between the groups of a phone number, traditional characters (企鵝號), `abc[at]qq[dot]com`,
`一三八…` after a cue. The rules (rules.py) match the *folded* text; every folded character keeps the
span of original characters it stands for, so a finding maps back to exactly what was written and
masking replaces that (the invisible characters inside it included).

What folding does, in order:
1. one character for one: NFKC where it gives a single character (full-width and other compatibility
   forms: `１３８` -> `138`, `＠` -> `@`, `ｖｘ` -> `vx`, `𝟏` -> `1`), a decimal digit of any script
   -> its ASCII digit (`١٣٨` and `१३८` -> `138`), traditional -> simplified by
   OpenCC's character table (opencc-python-reimplemented's TSCharacters.txt: `號` -> `号`, `鵝` -> `鹅`);
2. dropped: format characters (zero-width spaces and joiners, direction marks, BOM, soft hyphen),
   variation selectors, combining marks, and, in the matching view, symbols and emoji (`薇❤信` ->
   `薇信`, `138😀0013` -> `1380013`); the search view (spans.py) also drops punctuation and whitespace;
3. the separators people put between digit groups (space, `-`, `.`, `/`, `_`, `·`, `・`, `。`, a
   dash, `*`, `~`, `〜`; `，` and `、` only in a run of three groups or more), up to three of them, become one canonical separator: `.` when only dots, `-` when any other
   mark, a space when only spaces (`138/0013/8000` -> `138-0013-8000`, `192。168。1。1` -> `192.168.1.1`);
4. Chinese numerals right after a cue (`手机一三八…`, `扣扣：幺二三四五六`) become digits;
5. e-mail obfuscations: `[at]`, `(at)`, `艾特`, `@` with spaces around, ` at ` before a domain ->
   `@`; in the domain after it `[dot]`, `(dot)`, `点`, ` dot `, `。` and `. ` -> `.`; `@ name` -> `@name`.

Pure Python, no Django."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Callable

# --- tables ---------------------------------------------------------------------------------------

# Ranges holding every compatibility form worth folding for Chinese posts (Latin-1 and letterlike
# symbols, enclosed alphanumerics, CJK compatibility, half- and full-width forms, mathematical digits
# and letters): NFKC is computed once per character at import, not per post.
_NFKC_RANGES = ((0x00A0, 0x0250), (0x2000, 0x2500), (0x2E80, 0x3400), (0xF900, 0xFB00), (0xFE10, 0xFE70),
                (0xFF00, 0xFFF0), (0x1D400, 0x1D800), (0x1F100, 0x1F200))
# Characters that show nothing (inclusive ranges): format characters and marks, and the Hangul fillers
# (U+115F, U+1160, U+3164, U+FFA0), letters (Lo) that render as blank space, and the braille blank
# (U+2800, a symbol that shows nothing). Every view drops them,
# and so does the publication cleaning: a character one of them keeps and the other drops would let a
# number or a verbatim sentence through (a filler between the groups of a phone number).
INVISIBLE_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
                    (0x3164, 0x3164),
                    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
# Emoji and pictographs live mostly here; with the symbols (So, Sk) elsewhere they are dropped when matching.
_EMOJI_RANGES = ((0x1F000, 0x1FB00), (0x2600, 0x27C0), (0x2B00, 0x2C00))
_SCAN_RANGES = ((0x80, 0x3400), (0xA000, 0x10000), (0x10000, 0x20000), (0xE0000, 0xE0200))


def _ts_table_path() -> Path:
    spec = find_spec("opencc")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("opencc-python-reimplemented is not installed: pip install opencc-python-reimplemented==0.1.7")
    return Path(next(iter(spec.submodule_search_locations))) / "dictionary" / "TSCharacters.txt"


def _t2s_table() -> dict[int, str]:
    """Traditional -> simplified, character for character (OpenCC's TSCharacters: the first choice)."""
    table: dict[int, str] = {}
    for line in _ts_table_path().read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[0]) == 1 and len(parts[1]) == 1 and parts[0] != parts[1]:
            table[ord(parts[0])] = parts[1]
    return table


def _build_tables() -> tuple[dict[int, str], str, str]:
    """The one-for-one fold table, the characters dropped when matching, and those dropped for search."""
    fold: dict[int, str] = {}
    for low, high in _NFKC_RANGES:
        for cp in range(low, high):
            ch = chr(cp)
            norm = unicodedata.normalize("NFKC", ch)
            if len(norm) == 1 and norm != ch:
                fold[cp] = norm
    t2s = _t2s_table()
    for cp, simple in t2s.items():
        fold.setdefault(cp, simple)
    # NFKC then traditional -> simplified (a full-width or compatibility form of a traditional character)
    for cp, ch in list(fold.items()):
        if ord(ch) in t2s:
            fold[cp] = t2s[ord(ch)]
    fold[0x3000] = " "  # an ideographic space is a space
    fold[0x00A0] = " "
    # Chinese sentence punctuation no rule reads stays as written: nearly every post holds some, and
    # leaving it lets most posts skip the fold (the search view drops punctuation anyway).
    for ch in "，！？；＂＇":
        fold.pop(ord(ch), None)
    dropped_match, dropped_search = [], []
    for low, high in _SCAN_RANGES:
        for cp in range(low, high):
            cat = unicodedata.category(chr(cp))
            if cat == "Nd":  # a decimal digit of any script (Arabic-Indic ٣, Devanagari ३ ...) is that digit
                fold.setdefault(cp, str(unicodedata.decimal(chr(cp))))
            invisible = cat in ("Cf", "Mn", "Me") or any(lo <= cp <= hi for lo, hi in INVISIBLE_RANGES)
            symbol = cat in ("So", "Sk") or any(lo <= cp < hi for lo, hi in _EMOJI_RANGES) and cat.startswith(("S", "Po"))
            if invisible or symbol:
                dropped_match.append(cp)
            if invisible or cat[0] in "SPZ":
                dropped_search.append(cp)
    _DROP_TABLE.update(dict.fromkeys(dropped_match))
    return fold, _char_class(dropped_match), _char_class(dropped_search)


# Every character the matching view drops, for a C-speed check that a text holds none (str.translate).
_DROP_TABLE: dict[int, None] = {}


def _char_class(cps: list[int]) -> str:
    """A regex character class for a sorted list of code points, as ranges."""
    out, start, prev = [], None, None
    for cp in cps:
        if start is None:
            start = prev = cp
        elif cp == prev + 1:
            prev = cp
        else:
            out.append((start, prev))
            start = prev = cp
    if start is not None:
        out.append((start, prev))
    return "[" + "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in out) + "]"


FOLD_TABLE, _DROPPED_MATCH_CLASS, _DROPPED_SEARCH_CLASS = _build_tables()
_FOLD_KEYS = frozenset(map(chr, FOLD_TABLE))
_DROP_KEYS = frozenset(map(chr, _DROP_TABLE))
# Format characters, marks, symbols and emoji (the matching view). "+" stays: it is a symbol (Sm)
# people write in +86 and +v.
DROPPED_WHEN_MATCHING = re.compile(_DROPPED_MATCH_CLASS + "+")
# The search view also drops punctuation (ASCII included), whitespace and every symbol.
DROPPED_WHEN_SEARCHING = re.compile(f"(?:{_DROPPED_SEARCH_CLASS}|[\\s!-/:-@\\[-`{{-~])+")

CHINESE_DIGITS = {"零": "0", "〇": "0", "○": "0", "一": "1", "幺": "1", "壹": "1", "二": "2", "贰": "2", "两": "2",
                  "三": "3", "叁": "3", "四": "4", "肆": "4", "五": "5", "伍": "5", "六": "6", "陆": "6", "七": "7",
                  "柒": "7", "八": "8", "捌": "8", "九": "9", "玖": "9"}
_CHINESE_DIGIT_TABLE = str.maketrans(CHINESE_DIGITS)
# A run of Chinese digits (or digits) at least five long, separators allowed between them.
_CHINESE_RUN = re.compile(r"[0-9零〇○一幺壹二贰两三叁四肆五伍六陆七柒八捌九玖](?:[ \-.]?[0-9零〇○一幺壹二贰两三叁四肆五伍六陆七柒八捌九玖]){4,}")

_SEPARATOR_CHARS = " \t-‐‑–—−_/·・•.。*~〜"
_DIGIT_SEPARATORS = re.compile(r"(?<=[0-9])[" + re.escape(_SEPARATOR_CHARS) + r"]{1,3}(?=[0-9])")
# A full-width or ideographic comma also ends a clause between two numbers ("QQ 123456，1998年的事"), so
# it separates digit groups only in a run of three groups or more (138，0013，8000; 6222，0212，…).
_COMMAS = "，、"
_COMMA_SEPARATOR = re.compile(r"(?<=[0-9]) ?[，、] ?(?=[0-9])")
_COMMA_RUN = re.compile(r"(?<![0-9])[0-9]+(?: ?[，、] ?[0-9]+){2,}")
_DOTS = frozenset(".。")

_TLD = r"(?:com|cn|net|org|edu|gov|cc|me|io|top|xyz|info|tv|hk|tw)"
_AT = re.compile(r"(?<=[A-Za-z0-9_.\-]) *(?:\[ *at *\]|\( *at *\)|\{ *at *\}|< *at *>|【 *at *】|（ *at *）|\[ *艾特 *\]|艾特|@"
                 r"| at (?=[A-Za-z0-9\-]+ *(?:\.|\[dot\]|\(dot\)|点|dot|。) *" + _TLD + r"\b)) *(?=[A-Za-z0-9])",
                 re.IGNORECASE)
_DOMAIN_SEP = r"(?: *(?:\[ *dot *\]|\( *dot *\)|（ *dot *）|【 *dot *】|\{ *dot *\}|点| dot |。|\.) *)"
_DOMAIN = re.compile(r"@[A-Za-z0-9\-]+(?:" + _DOMAIN_SEP + r"[A-Za-z0-9\-]+)*" + _DOMAIN_SEP + _TLD + r"(?![A-Za-z0-9])",
                     re.IGNORECASE)
_DOMAIN_SEP_RE = re.compile(_DOMAIN_SEP, re.IGNORECASE)
# "@ name": a mention written with a space after the @ (not an e-mail address: nothing before it).
_SPACED_MENTION = re.compile(r"(?<![A-Za-z0-9_.\-])@ +(?=[^\s@])")


# --- the folded text and its map ------------------------------------------------------------------

@dataclass
class Folded:
    """A folded text and, for each of its characters, the span [start, end) of the original it
    stands for. `starts is None` while nothing was dropped or merged (the map is the identity)."""

    text: str
    original_length: int
    starts: list[int] | None = None
    ends: list[int] | None = None

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters behind folded[start:end] (end > start)."""
        if self.starts is None:
            return start, end
        return self.starts[start], self.ends[end - 1]

    def origin(self, index: int) -> int:
        return index if self.starts is None else self.starts[index]

    def _maps(self) -> tuple[list[int], list[int]]:
        if self.starts is None:
            return list(range(len(self.text))), list(range(1, len(self.text) + 1))
        return self.starts, self.ends

    def sub(self, pattern: re.Pattern, replace: Callable[[re.Match], str], *, pos: int = 0) -> None:
        """Replace each match of `pattern` by `replace(match)`; every new character stands for the
        original span of the whole match. A no-op (and no map built) when nothing matches."""
        matches = [(m, replace(m)) for m in pattern.finditer(self.text, pos)]
        matches = [(m, new) for m, new in matches if new != m.group()]  # a no-op changes no map
        if not matches:
            return
        starts, ends = self._maps()
        text_parts: list[str] = []
        new_starts: list[int] = []
        new_ends: list[int] = []
        last = 0
        for m, new in matches:
            a, b = m.span()
            text_parts.append(self.text[last:a])
            new_starts += starts[last:a]
            new_ends += ends[last:a]
            if new:
                if a < b:
                    o_start, o_end = starts[a], ends[b - 1]
                else:  # an insertion: stands for the character before it
                    o_start = o_end = ends[a - 1] if a else 0
                text_parts.append(new)
                new_starts += [o_start] * len(new)
                new_ends += [o_end] * len(new)
            last = b
        text_parts.append(self.text[last:])
        new_starts += starts[last:]
        new_ends += ends[last:]
        self.text, self.starts, self.ends = "".join(text_parts), new_starts, new_ends

    def translate_spans(self, spans: list[tuple[int, int]], table: dict) -> None:
        """One character for one inside the given spans (the map is unchanged)."""
        if not spans:
            return
        parts, last = [], 0
        for a, b in spans:
            parts += [self.text[last:a], self.text[a:b].translate(table)]
            last = b
        parts.append(self.text[last:])
        self.text = "".join(parts)


def _separator(match: re.Match) -> str:
    marks = match.group().replace(" ", "").replace("\t", "")
    if not marks:
        return " "
    if set(marks) == {"。"}:  # kept: a full stop can end a sentence before a number (rules decide)
        return "。"
    return "." if set(marks) <= _DOTS else "-"


def _domain(match: re.Match) -> str:
    return _DOMAIN_SEP_RE.sub(".", match.group())


def fold_for_matching(text: str, *, numeral_cue: re.Pattern | None = None) -> Folded:
    """The text the rules read (module docstring), with its map back to `text`."""
    # Set checks first: most posts hold nothing to fold or drop, and str.translate with a large
    # table costs a dictionary lookup per character.
    folded = Folded(text if _FOLD_KEYS.isdisjoint(text) else text.translate(FOLD_TABLE), len(text))
    if not _DROP_KEYS.isdisjoint(folded.text):
        folded.sub(DROPPED_WHEN_MATCHING, lambda m: "")
    if any(ch in folded.text for ch in _COMMAS):
        runs = [m.span() for m in _COMMA_RUN.finditer(folded.text)]
        if runs:
            folded.sub(_COMMA_SEPARATOR, lambda m: "-" if any(a < m.start() < b for a, b in runs) else m.group())
    if any(ch in folded.text for ch in _SEPARATOR_CHARS):
        folded.sub(_DIGIT_SEPARATORS, _separator)
    if numeral_cue is not None:
        spans = []
        for run in _CHINESE_RUN.finditer(folded.text):
            window = folded.text[max(0, run.start() - 12):run.start()]
            if not run.group().isascii() and numeral_cue.search(window):
                spans.append(run.span())
        folded.translate_spans(spans, _CHINESE_DIGIT_TABLE)
    lowered = folded.text.lower()
    if "@" in folded.text or "at" in lowered or "艾特" in folded.text:
        folded.sub(_AT, lambda m: "@")
        if "@" in folded.text:
            folded.sub(_DOMAIN, _domain)
            folded.sub(_SPACED_MENTION, lambda m: "@")
    return folded


def fold_for_search(text: str) -> Folded:
    """The text a search engine compares: one-for-one folds (width, traditional -> simplified), lower
    case, and every invisible or format character, symbol, emoji, punctuation mark and whitespace
    dropped (spans.py measures shared spans on it)."""
    folded = Folded(text.translate(FOLD_TABLE).lower(), len(text))
    if len(folded.text) != len(text):  # lower() of a few letters (İ) is longer: keep one for one
        folded = Folded("".join(ch.translate(FOLD_TABLE).lower()[:1] or ch for ch in text), len(text))
    folded.sub(DROPPED_WHEN_SEARCHING, lambda m: "")
    return folded


@lru_cache(maxsize=65536)
def fold_char_for_search(ch: str) -> str:
    """One character as the search view has it ("" when dropped)."""
    return fold_for_search(ch).text


_INVISIBLE = re.compile("[" + "".join(
    f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in INVISIBLE_RANGES) + "]")


def clean_for_publication(text: str) -> str:
    """A text as a public release publishes it: NFKC (full-width letters and digits folded, Chinese
    full-width punctuation kept), and every invisible or format character
    (zero-width spaces and joiners, direction marks, soft hyphens, variation selectors, tags) removed,
    so nothing hidden in a rewrite reaches the published file."""
    text = _INVISIBLE.sub("", text)
    out = []
    for piece in _KEEP_PUNCTUATION.split(text):  # Chinese full-width punctuation stays as written
        out.append(piece if _KEEP_PUNCTUATION.fullmatch(piece) else unicodedata.normalize("NFKC", piece))
    return "".join(ch for ch in "".join(out) if unicodedata.category(ch) != "Cf")


# Full-width punctuation (，！？：；（）…) is how Chinese is written, not an obfuscation: NFKC would make
# it ASCII, so a published text keeps it; full-width letters and digits are folded.
_KEEP_PUNCTUATION = re.compile(r"([\uFF01-\uFF0F\uFF1A-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65\u3000]+)")
