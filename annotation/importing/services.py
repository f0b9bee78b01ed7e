"""Importing posts and judgments: the one code path the upload page, the admin and the command
line share. All-or-nothing: a file is parsed and checked against the database first (every
problem with its line number), and only a file without problems is written, in one transaction."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from audit.services import audit_event
from core.db_statistics import tables_analyse_on_commit

from publication.personal_data import KINDS
from publication.personal_data.services import personal_data_record

from ..models import Assignment, Batch, FinalLabel, Judgment, Post, Provenance
from ..services import annotator_ensure
from .cleaning import clean_text
from .parsers import (
    ImportFailed,
    ImportProblem,
    decode_bytes,
    parse_judgments_csv,
    parse_posts_csv,
    parse_posts_jsonl,
    sha256_text,
)

__all__ = ["ImportFailed", "ImportProblem", "ImportResult", "import_judgments", "import_posts", "read_posts_file"]


@dataclass
class ImportResult:
    created: int
    labelled: int
    batch: str | None
    encoding: str
    warnings: list[str] = field(default_factory=list)
    # Rows left out because they repeat an earlier row exactly (same text, labels and id).
    skipped: list[ImportProblem] = field(default_factory=list)
    # Personal data masked in the imported posts: kind -> count (the counts the scan rows record,
    # publication/personal_data), and how many posts had any.
    personal_data: dict[str, int] = field(default_factory=dict)
    posts_with_personal_data: int = 0
    # Labelled posts are reference data: their batch (when named) is created locked, out of every
    # queue, unless the import was asked to make them annotation work (`as_work`).
    as_work: bool = False
    # Of `skipped`: labelled rows left out because the post is already in the database (reference data).
    already_there: int = 0

    def personal_data_line(self) -> str:
        """What was masked, per kind, in the reader's language (the command and the upload page say it)."""
        from publication.personal_data.services import KIND_LABELS

        if not self.personal_data:
            return _("No personal data found.")
        kinds = ", ".join(f"{KIND_LABELS.get(kind, kind)} {n}" for kind, n in self.personal_data.items())
        return _("Personal data masked in %(posts)s posts: %(kinds)s (the originals are kept for researchers; "
                 "report: /personal-data/).") % {"posts": self.posts_with_personal_data, "kinds": kinds}


def read_posts_file(data: bytes, *, filename: str = "", progress=None) -> tuple[list, list[ImportProblem], str,
                                                                                dict[str, int], list[ImportProblem]]:
    """A posts file (ChLGBT CSV or JSONL) read and parsed, for the post importer and the gold upload:
    (posts, problems, encoding, first line per text hash, skipped rows). A row repeating an earlier
    one exactly - the same text after cleaning, the same labels and id - is left out and reported as
    skipped (the paper's cleaning removes duplicates; ChLGBT's own file holds one); the same text with
    other labels or another id is a conflict, a problem on its line. Problems so far: parse errors
    and those conflicts. ImportFailed at once for a file over the size limit or not decodable.
    `progress(done, total)`, when given, hears how far the masking of personal data has gone."""
    if len(data) > settings.IMPORT_MAX_BYTES:
        raise ImportFailed([ImportProblem(0, _("file is %(size)s bytes; the limit is %(limit)s")
                                          % {"size": f"{len(data):,}", "limit": f"{settings.IMPORT_MAX_BYTES:,}"})])
    text, encoding, problems = decode_bytes(data)
    if problems:
        raise ImportFailed(problems)
    is_jsonl = filename.lower().endswith((".jsonl", ".ndjson")) or text.lstrip().startswith("{")
    posts, problems = parse_posts_jsonl(text) if is_jsonl else parse_posts_csv(text)
    seen: dict[str, int] = {}
    first: dict[str, object] = {}
    kept, skipped = [], []
    for post in posts:
        earlier = first.get(post.digest)
        if earlier is None:
            first[post.digest], seen[post.digest] = post, post.line
            kept.append(post)
        elif (post.labels, post.external_id) == (earlier.labels, earlier.external_id):
            skipped.append(ImportProblem(post.line, _("the same post as line %(line)s (same text and labels); skipped")
                                         % {"line": earlier.line}))
        else:
            problems.append(ImportProblem(post.line, _(
                "conflict: the same text as line %(line)s (after cleaning) with other labels or another id "
                "(%(here)s here, %(there)s there); keep the right one and remove the other")
                % {"line": earlier.line, "here": _row_key(post), "there": _row_key(earlier)}))
    if not problems:
        _mask_personal_data(kept, progress)
    return kept, problems, encoding, seen, skipped


def _row_key(post) -> str:
    """What tells two rows with the same text apart: their labels (explicit/implicit/emotional) and id."""
    labels = "/".join(str(post.labels[d]) for d in ("explicit", "implicit", "emotional")) if post.labels else "–"
    return f"{labels} {post.external_id!r}" if post.external_id else labels


# Posts masked per call when someone is told the progress (a background import's bar).
MASK_CHUNK = 500


def _mask_personal_data(posts: list, progress=None) -> None:
    """Personal data masked before anything is stored (publication/personal_data/): each post's
    text becomes what annotators see; raw_text keeps the original for researchers. The name
    recogniser reads them in batches; `progress(done, total)` hears after each chunk."""
    from publication.personal_data.ner import RecogniserUnavailable
    from publication.personal_data.services import mask_many_for_import

    chunk = MASK_CHUNK if progress is not None else max(len(posts), 1)
    for start in range(0, len(posts), chunk):
        part = posts[start:start + chunk]
        try:
            results = mask_many_for_import([post.raw_text for post in part])
        except RecogniserUnavailable as exc:
            raise ImportFailed([ImportProblem(0, str(exc))]) from exc
        for post, result in zip(part, results):
            post.text, post.personal_data, post.findings = result.text, result.counts, len(result.findings)
        if progress is not None:
            progress(start + len(part), len(posts))


def _masked(raw: str):
    from publication.personal_data.ner import RecogniserUnavailable
    from publication.personal_data.services import mask_for_import

    try:
        return mask_for_import(raw)
    except RecogniserUnavailable as exc:
        raise ImportFailed([ImportProblem(0, str(exc))]) from exc


def import_posts(data: bytes, *, filename: str = "", with_labels: bool = False,
                 batch_name: str | None = None, as_work: bool = False, progress=None, actor=None) -> ImportResult:
    """Parse, validate and write posts; raise ImportFailed (writing nothing) on any problem.
    Posts with their labels (`with_labels`) are reference data, finished already: a batch named
    for them is created locked, so they reach no annotator's queue, and an open batch (annotation
    work) is refused; `as_work` puts them in the batch as work to be scored all the same.
    `progress(done, total)` hears how far the masking, the slow part, has gone (background imports).
    `actor`: who the audit log names (None: the person of the request being served, else the system)."""
    posts, problems, encoding, seen, skipped = read_posts_file(data, filename=filename, progress=progress)
    reference = with_labels and not as_work
    if reference:
        # More reference data: posts already in the database are left out and reported, not refused.
        posts, already = _already_there(posts)
        skipped = sorted([*skipped, *already], key=lambda p: p.line)
    else:
        already = []
        existing = set(
            Post.objects.filter(text_sha256__in=list(seen)).values_list("text_sha256", flat=True)
        ) if seen else set()
        for post in posts:
            if post.digest in existing and seen.get(post.digest) == post.line:
                problems.append(ImportProblem(post.line, _("duplicate of a post already in the database")))
        ids = [p.external_id for p in posts if p.external_id]
        if ids:
            taken = set(Post.objects.filter(external_id__in=ids).values_list("external_id", flat=True))
            problems += [ImportProblem(p.line, _("id %(id)r already exists") % {"id": p.external_id})
                         for p in posts if p.external_id in taken]
    if with_labels:
        problems += [ImportProblem(p.line, _("--with-labels needs labels on every row")) for p in posts if p.labels is None]
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: p.line))

    with transaction.atomic():
        batch = None
        if batch_name:
            batch, _created = Batch.objects.get_or_create(
                name=batch_name,
                defaults={"annotators_per_post": settings.ANNOTATORS_PER_POST,
                          "assignment_timeout_minutes": settings.ASSIGNMENT_TIMEOUT_MINUTES},
            )
            if _created and reference:
                batch.locked_at = timezone.now()  # reference data: finished, in nobody's queue
                batch.save(update_fields=["locked_at"])
            elif reference and batch.is_locked and _is_reference_batch(batch):
                pass  # a second labelled import adds to the reference data
            elif batch.is_locked:
                raise ImportFailed([ImportProblem(0, _("batch %(name)r is locked; choose another batch") % {"name": batch_name})])
            elif reference:
                raise ImportFailed([ImportProblem(0, _(
                    "batch %(name)r is open annotation work; posts imported with their labels are reference data "
                    "and would join every queue of it. Choose a new batch name (it is created locked), or import "
                    "them as work to be scored (--as-work).") % {"name": batch_name})])
        created = Post.objects.bulk_create(
            [Post(external_id=p.external_id, text=p.text, text_sha256=p.digest, raw_text=p.raw_text,
                  batch=batch) for p in posts],
            batch_size=2000,
        )
        personal_data_record(scans=[(obj.pk, p.personal_data or {}, p.findings) for obj, p in zip(created, posts)])
        labelled = 0
        if with_labels:
            FinalLabel.objects.bulk_create(
                [FinalLabel(post=obj, provenance=Provenance.IMPORTED, **p.labels)  # type: ignore[arg-type]
                 for obj, p in zip(created, posts)],
                batch_size=2000,
            )
            labelled = len(created)
        found: Counter = Counter()
        for p in posts:
            found.update(p.personal_data or {})
        tables_analyse_on_commit(Post, FinalLabel)
        audit_event(actor=actor, event="import", params={"n": len(created), "file": Path(filename).name or "–"},
                    what=gettext_noop("Imported %(n)s posts from %(file)s"),
                    changes={"posts": (None, len(created)), "labelled": (None, labelled), "batch": (None, batch_name),
                             "personal_data": (None, sum(found.values())),
                             **({"skipped": (None, len(skipped))} if skipped else {})})
    return ImportResult(created=len(created), labelled=labelled, batch=batch_name, encoding=encoding, skipped=skipped,
                        personal_data={kind: found[kind] for kind in KINDS if found[kind]},
                        posts_with_personal_data=sum(1 for p in posts if any((p.personal_data or {}).values())),
                        as_work=as_work and batch is not None, already_there=len(already))


def _already_there(posts: list) -> tuple[list, list[ImportProblem]]:
    """Labelled posts to import as reference data, less those already in the database - the same
    text (after cleaning) or the same source id - each reported as skipped on its line (the
    database's post and label are kept; a label that differs is named)."""
    digests = [p.digest for p in posts]
    ids = [p.external_id for p in posts if p.external_id]
    by_text = {sha: pk for sha, pk in Post.objects.filter(text_sha256__in=digests).values_list("text_sha256", "pk")} \
        if digests else {}
    by_id = {ext: pk for ext, pk in Post.objects.filter(external_id__in=ids).values_list("external_id", "pk")} \
        if ids else {}
    labels = {row[0]: row[1:] for row in FinalLabel.objects.filter(post_id__in=[*by_text.values(), *by_id.values()])
              .values_list("post_id", "explicit", "implicit", "emotional")}
    kept, skipped = [], []
    for post in posts:
        pk = by_text.get(post.digest)
        if pk is None and post.external_id in by_id:
            pk = by_id[post.external_id]
            reason = _("id %(id)r is already in the database") % {"id": post.external_id}
        elif pk is not None:
            reason = _("the same text is already in the database")
        else:
            kept.append(post)
            continue
        there = labels.get(pk)
        here = tuple(post.labels[d] for d in ("explicit", "implicit", "emotional")) if post.labels else None
        if there is not None and here is not None and tuple(there) != here:
            reason = _("%(reason)s with other labels (%(there)s there, %(here)s here)") % {
                "reason": reason, "there": "/".join(map(str, there)), "here": "/".join(map(str, here))}
        skipped.append(ImportProblem(post.line, _("%(reason)s; skipped, the database's post kept") % {"reason": reason}))
    return kept, skipped


def _is_reference_batch(batch: Batch) -> bool:
    """A locked batch that was never annotation work: no post of it was ever served or judged (the
    batch a labelled import created). A second labelled import may add to it."""
    return not (Assignment.objects.filter(post__batch=batch).exists()
                or Judgment.objects.filter(post__batch=batch).exists())


def _post_lookup(keys: set[str]) -> dict[str, Post]:
    """Posts by external id, else by (cleaned) text, for the keys of a judgments file."""
    by_id = {p.external_id: p for p in Post.objects.filter(external_id__in=keys)}
    digests = {sha256_text(clean_text(k)): k for k in keys - set(by_id)}
    by_text = {digests[p.text_sha256]: p for p in Post.objects.filter(text_sha256__in=list(digests))}
    return {**by_text, **by_id}


def _key_is_an_id(key: str, masked) -> bool:
    """Whether a judgments file's key that matches no post names the post (an id such as u1 or a
    Weibo id) rather than being its text. Only an id becomes the new post's external id: the id
    travels (release files, the admin's list, takedown records), so a text key - which may hold
    personal data - never does (issue 21)."""
    import re

    return re.fullmatch(r"[A-Za-z0-9_.:\-]{1,64}", key) is not None and not masked.findings


def import_judgments(data: bytes, *, create_missing_posts: bool = False) -> dict[str, int]:
    """Long CSV post,annotator,explicit,implicit,emotional (empty cell = missing); `post` is a
    post's external id or its text. A key that matches no post is a problem on its line unless
    `create_missing_posts` (a post is created with the key as its text, and as its id only when the
key looks like an id and holds no personal data: _key_is_an_id). Creates annotator
    accounts as needed; all-or-nothing."""
    rows, problems = parse_judgments_csv(data)
    posts = _post_lookup({r.post_key for r in rows})
    if not create_missing_posts:
        problems += [ImportProblem(r.line, _("no post has the id or text %(key)r (import the posts first, or pass "
                                             "--create-missing-posts)") % {"key": r.post_key[:80]})
                     for r in rows if r.post_key not in posts]
    if problems:
        raise ImportFailed(sorted(problems, key=lambda p: p.line))

    with transaction.atomic():
        users = {name: annotator_ensure(username=name) for name in sorted({r.annotator for r in rows})}
        created_posts = 0
        by_digest: dict[str, Post] = {}
        for r in rows:
            if r.post_key not in posts:  # only with create_missing_posts: the user asked for it
                masked = _masked(r.post_key)
                if _key_is_an_id(r.post_key, masked):
                    external_id, digest = r.post_key, sha256_text(r.post_key)
                else:  # the key is the text: hashed as the post importer and _post_lookup hash it
                    external_id, digest = None, sha256_text(clean_text(r.post_key))
                if digest in by_digest:  # two keys that clean to one text (a trailing emoji)
                    posts[r.post_key] = by_digest[digest]
                    continue
                posts[r.post_key] = by_digest[digest] = Post.objects.create(
                    external_id=external_id, text=masked.text, raw_text=r.post_key, text_sha256=digest)
                personal_data_record(scans=[(posts[r.post_key].pk, masked.counts, len(masked.findings))])
                created_posts += 1
        existing = set(Judgment.objects.filter(post__in=posts.values(), annotator__in=users.values())
                       .values_list("post_id", "annotator_id"))
        clashes = [r.line for r in rows if (posts[r.post_key].id, users[r.annotator].id) in existing]
        pairs: set[tuple[int, int]] = set()
        for r in rows:  # two keys of one post (its id and its text, or texts that clean alike), one annotator
            pair = (posts[r.post_key].id, users[r.annotator].id)
            if pair in pairs:
                clashes.append(r.line)
            pairs.add(pair)
        if clashes:
            transaction.set_rollback(True)
            raise ImportFailed([ImportProblem(line, _("a judgment for this post and annotator already exists"))
                                for line in clashes])
        Judgment.objects.bulk_create(
            [Judgment(post=posts[r.post_key], annotator=users[r.annotator], **r.scores) for r in rows],
            batch_size=5000,
        )
        tables_analyse_on_commit(Post, Judgment)
        audit_event(actor=None, event="import", params={"n": len(rows), "annotators": len(users)},
                    what=gettext_noop("Imported %(n)s judgments by %(annotators)s annotators"),
                    changes={"judgments": (None, len(rows)), "posts": (None, created_posts)})
    return {"judgments": len(rows), "annotators": len(users), "posts_created": created_posts}
