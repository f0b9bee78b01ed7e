"""`import_rewrites`: rewrites made elsewhere, from a CSV with columns `Sentences,Rewrite` (the
original text as imported) or `post,Rewrite` (the post's external id, its id in releases, or its
database id). Read like a posts file (size limit, UTF-8 with or without BOM or GB18030, problems
with their line numbers, annotation/importing/parsers.py) and all-or-nothing like the post importer.
Every rewrite passes the same checks as on the rewrite page: personal data masked, longest span
shared with the original measured; searchable rewrites are imported and flagged (a public release
leaves them out until they are rewritten)."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.importing.parsers import ImportFailed, ImportProblem, decode_bytes
from annotation.importing.services import _post_lookup
from annotation.models import FinalLabel, Post
from annotation.releases.files import post_key
from core.converters import parse_id

from ..personal_data import mask_text
from ..rewrite_models import Rewrite, RewriteSource, RewriteStatus
from .checks import kept_digits_message, kept_personal_digits, rewrite_check
from .services import MAX_REWRITE_CHARS, can_rewrite

HEADERS = (["Sentences", "Rewrite"], ["post", "Rewrite"])


@dataclass
class RewriteImportResult:
    imported: int
    confirmed: int
    encoding: str
    searchable: list[tuple[int, int]] = field(default_factory=list)  # (line, shared span)
    personal_data: dict[str, int] = field(default_factory=dict)  # kind -> count masked in the rewrites
    threshold: int = 15


@dataclass
class _Row:
    line: int
    key: str
    rewrite: str


def _parse(text: str) -> tuple[str, list[_Row], list[ImportProblem]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[_Row] = []
    problems: list[ImportProblem] = []
    column = ""
    try:
        for row in reader:
            line = reader.line_num
            if not column:
                if not row or not any(cell.strip() for cell in row):
                    continue
                header = [cell.strip() for cell in row]
                while header and header[-1] == "":
                    header.pop()
                found = [h for h in HEADERS if [c.lower() for c in h] == [c.lower() for c in header]]
                if not found:
                    return "", [], [ImportProblem(line, _("header must be 'Sentences,Rewrite' or 'post,Rewrite', got %(got)r")
                                                  % {"got": ",".join(header)[:80]})]
                column = found[0][0]
                continue
            if not row or not any(cell.strip() for cell in row):
                continue
            if len(row) != 2:
                problems.append(ImportProblem(line, _("expected %(expected)s columns, found %(found)s")
                                              % {"expected": 2, "found": len(row)}))
                continue
            key, rewrite = row[0].strip(), row[1].strip()
            if not key:
                problems.append(ImportProblem(line, _("the %(column)s cell is empty") % {"column": column}))
            elif not rewrite:
                problems.append(ImportProblem(line, _("the Rewrite cell is empty")))
            elif len(rewrite) > MAX_REWRITE_CHARS:
                problems.append(ImportProblem(line, _("the rewrite is %(length)s characters; the limit is %(limit)s")
                                              % {"length": f"{len(rewrite):,}", "limit": f"{MAX_REWRITE_CHARS:,}"}))
            else:
                rows.append(_Row(line, key, rewrite))
    except csv.Error as exc:
        problems.append(ImportProblem(reader.line_num, _("malformed CSV (%(error)s); a cell may be unterminated or too large")
                                      % {"error": exc}))
    if not column and not problems:
        problems.append(ImportProblem(0, _("the file is empty: expected a header 'Sentences,Rewrite' or 'post,Rewrite'")))
    return column, rows, problems


def _posts_by_id(keys: set[str]) -> dict[str, Post]:
    """Posts by external id, by their id in releases (h + text hash prefix), or by database id."""
    found = {p.external_id: p for p in Post.objects.filter(external_id__in=keys)}
    rest = keys - set(found)
    hashed = {k for k in rest if k.startswith("h") and len(k) == 17}
    if hashed:
        for pk, digest in Post.objects.filter(external_id__isnull=True).values_list("pk", "text_sha256"):
            if post_key(None, digest) in hashed:
                found[post_key(None, digest)] = pk
        objects = Post.objects.in_bulk([v for v in found.values() if isinstance(v, int)])
        found = {k: objects[v] if isinstance(v, int) else v for k, v in found.items()}
    # parse_id: ASCII digits within the bigint range ('²' or a 30-digit number is no id, not a crash)
    numeric = {parse_id(k): k for k in rest - set(found) if parse_id(k) is not None}
    for post in Post.objects.filter(pk__in=list(numeric)):
        found[numeric[post.pk]] = post
    return found


def rewrites_import(data: bytes, *, confirm: bool = False, user=None) -> RewriteImportResult:
    """Check every line, then write all rewrites in one transaction, or raise ImportFailed with every
    problem (nothing written). Each becomes a new version of its post's rewrite, submitted for
    confirmation - or, with `confirm`, confirmed by `user` (the importing researcher)."""
    if confirm and (user is None or not can_rewrite(user)):
        raise ImportFailed([ImportProblem(0, _("--confirm records the importing researcher as the confirmer: name a "
                                              "user who may rewrite posts (--user)"))])
    if len(data) > settings.IMPORT_MAX_BYTES:
        raise ImportFailed([ImportProblem(0, _("file is %(size)s bytes; the limit is %(limit)s")
                                          % {"size": f"{len(data):,}", "limit": f"{settings.IMPORT_MAX_BYTES:,}"})])
    text, encoding, problems = decode_bytes(data)
    if problems:
        raise ImportFailed(problems)
    column, rows, problems = _parse(text)
    keys = {r.key for r in rows}
    posts = _post_lookup(keys) if column == "Sentences" else _posts_by_id(keys)
    what = _("text") if column == "Sentences" else _("id")
    labelled = set(FinalLabel.objects.filter(post__in=[p.pk for p in posts.values()]).values_list("post_id", flat=True))
    taken_down = set(Post.objects.filter(pk__in=[p.pk for p in posts.values()], takedowns__isnull=False)
                     .values_list("pk", flat=True))
    latest: dict[int, Rewrite] = {}
    for rewrite in Rewrite.objects.filter(post__in=[p.pk for p in posts.values()]).order_by("post_id", "version"):
        latest[rewrite.post_id] = rewrite
    seen: dict[int, int] = {}
    for row in rows:
        post = posts.get(row.key)
        if post is None:
            problems.append(ImportProblem(row.line, _("no post has this %(what)s: %(key)r") % {"what": what, "key": row.key[:80]}))
            continue
        if post.pk in seen:
            problems.append(ImportProblem(row.line, _("a second rewrite of the post on line %(line)s") % {"line": seen[post.pk]}))
            continue
        seen[post.pk] = row.line
        if post.pk in taken_down:
            problems.append(ImportProblem(row.line, _("this post was taken down; it is never published again")))
        elif post.pk not in labelled:
            problems.append(ImportProblem(row.line, _("this post has no final label yet (a rewrite is confirmed against "
                                                      "its labels)")))
        elif post.pk in latest and latest[post.pk].status == RewriteStatus.SUBMITTED:
            problems.append(ImportProblem(row.line, _("version %(version)s of this post's rewrite is waiting for "
                                                      "confirmation; confirm it or send it back first")
                                          % {"version": latest[post.pk].version}))
        elif post.pk in latest and latest[post.pk].status == RewriteStatus.DRAFT:
            problems.append(ImportProblem(row.line, _("%(user)s is drafting a rewrite of this post")
                                          % {"user": latest[post.pk].author}))
        elif kind := kept_personal_digits(mask_text(row.rewrite).text, raw_text=post.raw_text):
            problems.append(ImportProblem(row.line, kept_digits_message(kind)))
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: p.line))

    result = RewriteImportResult(imported=0, confirmed=0, encoding=encoding)
    now = timezone.now()
    with transaction.atomic():
        locked = {p.pk: p for p in Post.objects.select_for_update().filter(pk__in=[posts[r.key].pk for r in rows])}
        versions = dict(Rewrite.objects.filter(post__in=list(locked)).values("post_id").annotate(v=Max("version"))
                        .values_list("post_id", "v"))
        labels = {fl.post_id: fl.scores() for fl in FinalLabel.objects.filter(post__in=list(locked))}
        created = []
        for row in rows:
            post = locked[posts[row.key].pk]
            check = rewrite_check(row.rewrite, raw_text=post.raw_text, cleaned_text=post.text)
            result.threshold = check.threshold
            if check.searchable:
                result.searchable.append((row.line, check.shared_span))
            for kind, count in check.personal_data.items():
                result.personal_data[kind] = result.personal_data.get(kind, 0) + count
            created.append(Rewrite(
                post=post, version=versions.get(post.pk, 0) + 1, text=check.text, source=RewriteSource.IMPORT,
                created_by=user, shared_span=check.shared_span, personal_data=check.personal_data,
                labels=labels[post.pk], submitted_at=now,
                status=RewriteStatus.CONFIRMED if confirm else RewriteStatus.SUBMITTED,
                confirmer=user if confirm else None, decided_at=now if confirm else None))
        Rewrite.objects.bulk_create(created, batch_size=2000)
        from audit.services import audit_event

        audit_event(actor=user, event="import", params={"n": len(created)}, changes={"posts": (None, len(created))},
                    what=gettext_noop("Imported %(n)s rewrites, confirmed") if confirm
                    else gettext_noop("Imported %(n)s rewrites for confirmation"))
    result.imported = len(created)
    result.confirmed = len(created) if confirm else 0
    return result
