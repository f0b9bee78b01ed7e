"""Reading post and judgment files: decoding (UTF-8 with or without BOM, GB18030), ChLGBT's CSV
format, JSONL and the long judgments CSV. Pure parsing: every problem is collected with its line
number, nothing touches the database."""
from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..models import DIMENSIONS
from ..scores import score_from_text
from .cleaning import clean_text

CHLGBT_HEADER = ["Sentences", "Explicit", "Implicit", "Emotional"]
MAX_TEXT_CHARS = 10_000
csv.field_size_limit(MAX_TEXT_CHARS * 8)  # beyond this the csv module itself refuses the row

@dataclass
class ImportProblem:
    line: int
    reason: str

    def __str__(self) -> str:
        return _("line %(line)s: %(reason)s") % {"line": self.line, "reason": self.reason} if self.line else self.reason


class ImportFailed(Exception):
    """Raised with every problem found; nothing has been written."""

    def __init__(self, problems: list[ImportProblem]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s); nothing was imported:\n" + "\n".join(map(str, problems[:50])))


@dataclass
class ParsedPost:
    line: int
    raw_text: str
    text: str  # cleaned; read_posts_file masks its personal data (publication/personal_data/)
    labels: dict[str, int] | None
    external_id: str | None = None
    digest: str = ""  # sha256 of the cleaned text before masking: the post's identity (text_sha256)
    personal_data: dict[str, int] | None = None  # kind -> count, once masked
    findings: int = 0


NUL_PROBLEM = gettext_lazy("contains a NUL character (\\x00), which cannot be stored: remove it, or save the file as "
                           "UTF-8 if it is UTF-16")


def decode_bytes(data: bytes) -> tuple[str, str, list[ImportProblem]]:
    """Decode UTF-8 (with or without BOM) or GB18030; report lines that fit neither, and lines holding a
    NUL character (no database text column can store one; a file full of them is UTF-16)."""
    text, encoding, problems = _decode(data)
    if problems or "\x00" not in text:
        return text, encoding, problems
    return "", encoding, [ImportProblem(number, str(NUL_PROBLEM)) for number, line in enumerate(text.split("\n"), start=1)
                          if "\x00" in line]


def _decode(data: bytes) -> tuple[str, str, list[ImportProblem]]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), "utf-8", []
    except UnicodeDecodeError:
        pass
    lines = data.split(b"\n")
    utf8_bad = []
    utf8_nonascii_ok = 0
    for number, line in enumerate(lines, start=1):
        try:
            line.decode("utf-8")
            if any(b > 127 for b in line):
                utf8_nonascii_ok += 1
        except UnicodeDecodeError:
            utf8_bad.append(number)
    if utf8_nonascii_ok:
        # Mostly UTF-8 with some lines in another encoding: a mixed file, refuse those lines.
        problems = [
            ImportProblem(n, _("undecodable bytes: this line is not UTF-8 while the rest of the file is (mixed encodings)"))
            for n in utf8_bad
        ]
        return "", "utf-8", problems
    try:
        return data.decode("gb18030"), "gb18030", []
    except UnicodeDecodeError:
        problems = []
        for number, line in enumerate(lines, start=1):
            try:
                line.decode("gb18030")
            except UnicodeDecodeError:
                problems.append(ImportProblem(number, _("undecodable bytes: neither UTF-8 nor GB18030")))
        return "", "gb18030", problems


def _parse_label(value: str, column: str, line: int, problems: list[ImportProblem]) -> int | None:
    score, reason = score_from_text(value, column)
    if reason:
        problems.append(ImportProblem(line, reason))
    return score


def _make_post(line: int, raw: str, label_cells: list[str] | None, problems: list[ImportProblem],
               external_id: str | None = None) -> ParsedPost | None:
    if "\x00" in raw or "\x00" in (external_id or ""):  # a JSON \u0000 escape: decoding saw no NUL byte
        problems.append(ImportProblem(line, str(NUL_PROBLEM)))
        return None
    if len(raw) > MAX_TEXT_CHARS:
        problems.append(ImportProblem(line, _("text is %(length)s characters; the limit is %(limit)s")
                                      % {"length": f"{len(raw):,}", "limit": f"{MAX_TEXT_CHARS:,}"}))
        return None
    text = clean_text(raw)
    if not text:
        problems.append(ImportProblem(line, _("empty text (nothing left after cleaning)")))
        return None
    labels = None
    if label_cells is not None and any(cell.strip() for cell in label_cells):
        if not all(cell.strip() for cell in label_cells):
            problems.append(ImportProblem(line, _("labels must be given for all three dimensions or none")))
            return None
        parsed = [_parse_label(c, col, line, problems) for c, col in zip(label_cells, CHLGBT_HEADER[1:])]
        if any(p is None for p in parsed):
            return None
        labels = dict(zip(DIMENSIONS, parsed))  # type: ignore[arg-type]
    return ParsedPost(line=line, raw_text=raw, text=text, labels=labels, external_id=external_id,
                      digest=sha256_text(text))


def parse_posts_csv(text: str) -> tuple[list[ParsedPost], list[ImportProblem]]:
    problems: list[ImportProblem] = []
    posts: list[ParsedPost] = []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    try:
        for row in reader:
            line = reader.line_num
            if header is None:
                if not row or not any(cell.strip() for cell in row):
                    continue
                if row[0].lstrip().startswith("#"):
                    continue  # the ChLGBT comment line
                header = [cell.strip() for cell in row]
                while header and header[-1] == "":
                    header.pop()
                if header not in (CHLGBT_HEADER[:1], CHLGBT_HEADER):
                    problems.append(ImportProblem(
                        line, _("header must be 'Sentences' or '%(header)s', got %(got)r")
                        % {"header": ",".join(CHLGBT_HEADER), "got": ",".join(header)[:80]}))
                    return [], problems
                continue
            if not row:
                continue
            if len(row) != len(header):
                problems.append(ImportProblem(line, _("expected %(expected)s columns, found %(found)s")
                                              % {"expected": len(header), "found": len(row)}))
                continue
            post = _make_post(line, row[0], row[1:] if len(header) > 1 else None, problems)
            if post:
                posts.append(post)
    except csv.Error as exc:
        problems.append(ImportProblem(reader.line_num, _("malformed CSV (%(error)s); a cell may be unterminated or too large")
                                      % {"error": exc}))
    if header is None and not problems:
        problems.append(ImportProblem(0, _("the file is empty: expected a header 'Sentences,Explicit,Implicit,Emotional'")))
    return posts, problems


def parse_posts_jsonl(text: str) -> tuple[list[ParsedPost], list[ImportProblem]]:
    problems: list[ImportProblem] = []
    posts: list[ParsedPost] = []
    for line, raw_line in enumerate(text.splitlines(), start=1):
        if not raw_line.strip():
            continue
        try:
            obj = json.loads(raw_line)
        except json.JSONDecodeError as exc:
            problems.append(ImportProblem(line, _("invalid JSON (%(error)s)") % {"error": exc.msg}))
            continue
        if not isinstance(obj, dict):
            problems.append(ImportProblem(line, _("each line must be a JSON object")))
            continue
        raw = obj.get("text", obj.get("Sentences"))
        if not isinstance(raw, str):
            problems.append(ImportProblem(line, _("missing string field 'text'")))
            continue
        cells = [obj.get(d, obj.get(d.capitalize())) for d in DIMENSIONS]
        label_cells = ["" if c is None else str(c) for c in cells]
        external_id = obj.get("id")
        post = _make_post(line, raw, label_cells, problems, None if external_id is None else str(external_id))
        if post:
            posts.append(post)
    if not posts and not problems:
        problems.append(ImportProblem(0, _("the file is empty: expected one JSON object per line")))
    return posts, problems


def sha256_text(text: str) -> str:
    """A post's identity: the hash of its cleaned text before personal data is masked (duplicates are
    refused on it; a re-scan that masks more leaves it as it is)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


JUDGMENT_HEADER = ["post", "annotator", *DIMENSIONS]


@dataclass
class ParsedJudgment:
    line: int
    post_key: str
    annotator: str
    scores: dict[str, int | None]


def parse_judgments_csv(data: bytes) -> tuple[list[ParsedJudgment], list[ImportProblem]]:
    """Long CSV post,annotator,explicit,implicit,emotional; an empty cell is a missing score. A
    release's judgments.csv with provisional labels has a last `provisional` column: read, not kept."""
    text, _encoding, problems = decode_bytes(data)
    if problems:
        return [], problems
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[ParsedJudgment] = []
    try:
        header = next(reader, None)
        names = [h.strip().lower() for h in header] if header is not None else None
        if names not in (JUDGMENT_HEADER, [*JUDGMENT_HEADER, "provisional"]):
            return [], [ImportProblem(1, _("header must be %(header)s") % {"header": ",".join(JUDGMENT_HEADER)})]
        width = len(names)
        for row in reader:
            line = reader.line_num
            if not row:
                continue
            if len(row) != width:
                problems.append(ImportProblem(line, _("expected %(expected)s columns, found %(found)s")
                                              % {"expected": width, "found": len(row)}))
                continue
            post_key, annotator = row[0].strip(), row[1].strip()
            if not post_key or not annotator:
                problems.append(ImportProblem(line, _("post and annotator are required")))
                continue
            scores: dict[str, int | None] = {}
            for dim, cell in zip(DIMENSIONS, row[2:5]):
                scores[dim] = None if not cell.strip() else _parse_label(cell, dim, line, problems)
            rows.append(ParsedJudgment(line, post_key, annotator, scores))
    except csv.Error as exc:
        problems.append(ImportProblem(reader.line_num, _("malformed CSV (%(error)s)") % {"error": exc}))
    seen: dict[tuple[str, str], int] = {}
    for parsed in rows:
        first = seen.setdefault((parsed.post_key, parsed.annotator), parsed.line)
        if first != parsed.line:
            problems.append(ImportProblem(parsed.line, _("duplicate judgment (first on line %(line)s)") % {"line": first}))
    return rows, problems
