"""One importer for posts (CSV in ChLGBT's format, or JSONL) and one for long-format judgments.

Both are all-or-nothing: parsing collects every problem with its line number first, and only a
file without problems is written, inside one transaction. The command line, the upload page and
the admin all call these functions.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction

from .cleaning import clean_text
from .models import DIMENSIONS, Batch, FinalLabel, Judgment, Post, Provenance
from .services import annotator_ensure

CHLGBT_HEADER = ["Sentences", "Explicit", "Implicit", "Emotional"]
MAX_TEXT_CHARS = 10_000
csv.field_size_limit(MAX_TEXT_CHARS * 8)  # beyond this the csv module itself refuses the row


@dataclass
class ImportProblem:
    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason


class ImportFailed(Exception):
    """Raised with every problem found; nothing has been written."""

    def __init__(self, problems: list[ImportProblem]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s); nothing was imported:\n" + "\n".join(map(str, problems[:50])))


@dataclass
class ParsedPost:
    line: int
    raw_text: str
    text: str
    labels: dict[str, int] | None
    external_id: str | None = None


@dataclass
class ImportResult:
    created: int
    labelled: int
    batch: str | None
    encoding: str
    warnings: list[str] = field(default_factory=list)


def decode_bytes(data: bytes) -> tuple[str, str, list[ImportProblem]]:
    """Decode UTF-8 (with or without BOM) or GB18030; report lines that fit neither."""
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
            ImportProblem(n, "undecodable bytes: this line is not UTF-8 while the rest of the file is (mixed encodings)")
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
                problems.append(ImportProblem(number, "undecodable bytes: neither UTF-8 nor GB18030"))
        return "", "gb18030", problems


def _parse_label(value: str, column: str, line: int, problems: list[ImportProblem]) -> int | None:
    value = value.strip()
    try:
        number = int(value)
    except ValueError:
        problems.append(ImportProblem(line, f"{column} must be an integer 1-5, got {value[:20]!r}"))
        return None
    if number not in range(1, 6):
        problems.append(ImportProblem(line, f"{column} must be between 1 and 5, got {number}"))
        return None
    return number


def _make_post(line: int, raw: str, label_cells: list[str] | None, problems: list[ImportProblem],
               external_id: str | None = None) -> ParsedPost | None:
    if len(raw) > MAX_TEXT_CHARS:
        problems.append(ImportProblem(line, f"text is {len(raw):,} characters; the limit is {MAX_TEXT_CHARS:,}"))
        return None
    text = clean_text(raw)
    if not text:
        problems.append(ImportProblem(line, "empty text (nothing left after cleaning)"))
        return None
    labels = None
    if label_cells is not None and any(cell.strip() for cell in label_cells):
        if not all(cell.strip() for cell in label_cells):
            problems.append(ImportProblem(line, "labels must be given for all three dimensions or none"))
            return None
        parsed = [_parse_label(c, col, line, problems) for c, col in zip(label_cells, CHLGBT_HEADER[1:])]
        if any(p is None for p in parsed):
            return None
        labels = dict(zip(DIMENSIONS, parsed))  # type: ignore[arg-type]
    return ParsedPost(line=line, raw_text=raw, text=text, labels=labels, external_id=external_id)


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
                        line, f"header must be 'Sentences' or '{','.join(CHLGBT_HEADER)}', got {','.join(header)[:80]!r}"
                    ))
                    return [], problems
                continue
            if not row:
                continue
            if len(row) != len(header):
                problems.append(ImportProblem(line, f"expected {len(header)} columns, found {len(row)}"))
                continue
            post = _make_post(line, row[0], row[1:] if len(header) > 1 else None, problems)
            if post:
                posts.append(post)
    except csv.Error as exc:
        problems.append(ImportProblem(reader.line_num, f"malformed CSV ({exc}); a cell may be unterminated or too large"))
    if header is None and not problems:
        problems.append(ImportProblem(0, "the file is empty: expected a header 'Sentences,Explicit,Implicit,Emotional'"))
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
            problems.append(ImportProblem(line, f"invalid JSON ({exc.msg})"))
            continue
        if not isinstance(obj, dict):
            problems.append(ImportProblem(line, "each line must be a JSON object"))
            continue
        raw = obj.get("text", obj.get("Sentences"))
        if not isinstance(raw, str):
            problems.append(ImportProblem(line, "missing string field 'text'"))
            continue
        cells = [obj.get(d, obj.get(d.capitalize())) for d in DIMENSIONS]
        label_cells = ["" if c is None else str(c) for c in cells]
        external_id = obj.get("id")
        post = _make_post(line, raw, label_cells, problems, None if external_id is None else str(external_id))
        if post:
            posts.append(post)
    if not posts and not problems:
        problems.append(ImportProblem(0, "the file is empty: expected one JSON object per line"))
    return posts, problems


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def import_posts(data: bytes, *, filename: str = "", with_labels: bool = False,
                 batch_name: str | None = None) -> ImportResult:
    """Parse, validate and write posts; raise ImportFailed (writing nothing) on any problem."""
    if len(data) > settings.IMPORT_MAX_BYTES:
        raise ImportFailed([ImportProblem(0, f"file is {len(data):,} bytes; the limit is {settings.IMPORT_MAX_BYTES:,}")])
    text, encoding, problems = decode_bytes(data)
    if problems:
        raise ImportFailed(problems)
    stripped = text.lstrip()
    is_jsonl = filename.lower().endswith((".jsonl", ".ndjson")) or stripped.startswith("{")
    posts, problems = parse_posts_jsonl(text) if is_jsonl else parse_posts_csv(text)

    seen: dict[str, int] = {}
    for post in posts:
        digest = sha256_text(post.text)
        if digest in seen:
            problems.append(ImportProblem(post.line, f"duplicate of line {seen[digest]} (same text after cleaning)"))
        else:
            seen[digest] = post.line
    existing = set(
        Post.objects.filter(text_sha256__in=list(seen)).values_list("text_sha256", flat=True)
    ) if seen else set()
    for post in posts:
        if sha256_text(post.text) in existing and seen.get(sha256_text(post.text)) == post.line:
            problems.append(ImportProblem(post.line, "duplicate of a post already in the database"))
    ids = [p.external_id for p in posts if p.external_id]
    if ids:
        taken = set(Post.objects.filter(external_id__in=ids).values_list("external_id", flat=True))
        problems += [ImportProblem(p.line, f"id {p.external_id!r} already exists") for p in posts if p.external_id in taken]
    if with_labels:
        problems += [ImportProblem(p.line, "--with-labels needs labels on every row") for p in posts if p.labels is None]
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: p.line))

    with transaction.atomic():
        batch = None
        if batch_name:
            batch, _ = Batch.objects.get_or_create(
                name=batch_name,
                defaults={"annotators_per_post": settings.ANNOTATORS_PER_POST,
                          "assignment_timeout_minutes": settings.ASSIGNMENT_TIMEOUT_MINUTES},
            )
            if batch.is_locked:
                raise ImportFailed([ImportProblem(0, f"batch {batch_name!r} is locked; choose another batch")])
        created = Post.objects.bulk_create(
            [Post(external_id=p.external_id, text=p.text, text_sha256=sha256_text(p.text), raw_text=p.raw_text,
                  batch=batch) for p in posts],
            batch_size=2000,
        )
        labelled = 0
        if with_labels:
            FinalLabel.objects.bulk_create(
                [FinalLabel(post=obj, provenance=Provenance.IMPORTED, **p.labels)  # type: ignore[arg-type]
                 for obj, p in zip(created, posts)],
                batch_size=2000,
            )
            labelled = len(created)
    return ImportResult(created=len(created), labelled=labelled, batch=batch_name, encoding=encoding)


JUDGMENT_HEADER = ["post", "annotator", *DIMENSIONS]


def _post_lookup(keys: set[str]) -> dict[str, Post]:
    """Posts by external id, else by (cleaned) text, for the keys of a judgments file."""
    by_id = {p.external_id: p for p in Post.objects.filter(external_id__in=keys)}
    digests = {sha256_text(clean_text(k)): k for k in keys - set(by_id)}
    by_text = {digests[p.text_sha256]: p for p in Post.objects.filter(text_sha256__in=list(digests))}
    return {**by_text, **by_id}


def import_judgments(data: bytes, *, create_missing_posts: bool = False) -> dict[str, int]:
    """Long CSV post,annotator,explicit,implicit,emotional (empty cell = missing); `post` is a
    post's external id or its text. A key that matches no post is a problem on its line unless
    `create_missing_posts` (a post whose id and text are the key is created). Creates annotator
    accounts as needed; all-or-nothing."""
    text, _, problems = decode_bytes(data)
    if problems:
        raise ImportFailed(problems)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, str, str, dict[str, int | None]]] = []
    try:
        header = next(reader, None)
        if header is None or [h.strip().lower() for h in header] != JUDGMENT_HEADER:
            raise ImportFailed([ImportProblem(1, f"header must be {','.join(JUDGMENT_HEADER)}")])
        for row in reader:
            line = reader.line_num
            if not row:
                continue
            if len(row) != len(JUDGMENT_HEADER):
                problems.append(ImportProblem(line, f"expected 5 columns, found {len(row)}"))
                continue
            post_key, annotator = row[0].strip(), row[1].strip()
            if not post_key or not annotator:
                problems.append(ImportProblem(line, "post and annotator are required"))
                continue
            scores: dict[str, int | None] = {}
            for dim, cell in zip(DIMENSIONS, row[2:]):
                scores[dim] = None if not cell.strip() else _parse_label(cell, dim, line, problems)
            rows.append((line, post_key, annotator, scores))
    except csv.Error as exc:
        problems.append(ImportProblem(reader.line_num, f"malformed CSV ({exc})"))
    seen: dict[tuple[str, str], int] = {}
    for line, post_key, annotator, _ in rows:
        if (post_key, annotator) in seen:
            problems.append(ImportProblem(line, f"duplicate judgment (first on line {seen[(post_key, annotator)]})"))
        seen.setdefault((post_key, annotator), line)
    posts = _post_lookup({r[1] for r in rows})
    if not create_missing_posts:
        problems += [ImportProblem(line, f"no post has the id or text {post_key[:80]!r} "
                                         "(import the posts first, or pass --create-missing-posts)")
                     for line, post_key, _, _ in rows if post_key not in posts]
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: p.line))

    with transaction.atomic():
        users = {}
        for name in sorted({r[2] for r in rows}):
            users[name] = annotator_ensure(username=name)
        created_posts = 0
        for _, post_key, _, _ in rows:
            if post_key not in posts:  # only with create_missing_posts: the user asked for it
                posts[post_key] = Post.objects.create(external_id=post_key, text=post_key, raw_text=post_key,
                                                      text_sha256=sha256_text(post_key))
                created_posts += 1
        existing = set(Judgment.objects.filter(post__in=posts.values(), annotator__in=users.values())
                       .values_list("post_id", "annotator_id"))
        clashes = [line for line, pk, an, _ in rows if (posts[pk].id, users[an].id) in existing]
        if clashes:
            transaction.set_rollback(True)
            raise ImportFailed([ImportProblem(line, "a judgment for this post and annotator already exists")
                                for line in clashes])
        Judgment.objects.bulk_create(
            [Judgment(post=posts[pk], annotator=users[an], **scores) for _, pk, an, scores in rows],
            batch_size=5000,
        )
    return {"judgments": len(rows), "annotators": len(users), "posts_created": created_posts}
