"""Reads for releases. `release_file_bytes` is the one way to read a published file: it checks the
bytes against the manifest, so a tampered or damaged file is never served, copied or trained on."""
from __future__ import annotations

from pathlib import Path

from django.db.models import Count, F, Q, QuerySet
from django.utils.translation import gettext as _

from core.errors import Conflict, NotFound

from ..models import AUTOMATIC, DIMENSIONS, FinalLabel, Judgment, Post, Release
from ..selectors import annotator_pseudonyms, pseudonym_fallback
from .files import default_split_scheme, parse_rows, post_key, sha256, split_plan


class ReleaseFileDamaged(Conflict):
    """A published file no longer matches the hash its release recorded."""


def releases_recent(limit: int = 100) -> QuerySet[Release]:
    return Release.objects.select_related("created_by").order_by("-number")[:limit]


def release_latest() -> Release | None:
    return Release.objects.order_by("-number").first()


def release_get(*, number: int) -> Release:
    release = Release.objects.filter(number=number).first()
    if release is None:
        raise NotFound(_("No release %(number)s.") % {"number": number})
    return release


def release_file_bytes(release: Release, name: str) -> bytes:
    """A release file's bytes, verified against the manifest (NotFound, or ReleaseFileDamaged)."""
    digest = release.manifest.get(name)
    if digest is None:
        raise NotFound(_("No such release file."))
    try:
        data = (Path(release.directory) / name).read_bytes()
    except OSError:
        raise ReleaseFileDamaged(_("%(name)s of release %(number)s is missing on disk; it was not served. Tell an "
                                   "administrator: the release must be restored from a backup.")
                                 % {"name": name, "number": release.number})
    if sha256(data) != digest:
        raise ReleaseFileDamaged(_("%(name)s of release %(number)s does not match its manifest (sha256 %(digest)s...); "
                                   "it was not served. Tell an administrator: the file was changed after publication "
                                   "and must be restored from a backup.")
                                 % {"name": name, "number": release.number, "digest": digest[:12]})
    return data


def release_rows(release: Release) -> list[dict]:
    """The release's rows - id, text, the three labels, provenance, split - from its verified files.
    Modeling trains on these and calibration builds priors from them."""
    return parse_rows(release_file_bytes(release, "release.jsonl"), release_file_bytes(release, "split.csv"))


def current_label_rows() -> list[dict]:
    """Every post's current final label, as a release would write it (ordered by text hash)."""
    rows = (FinalLabel.objects.order_by("post__text_sha256")
            .values_list("post__external_id", "post__text_sha256", "post__text", *DIMENSIONS, "provenance"))
    return [{"id": post_key(r[0], r[1]), "text": r[2], **dict(zip(DIMENSIONS, r[3:6])), "provenance": r[6]}
            for r in rows]


def unfinished_label_keys() -> set[str]:
    """Release keys of the posts whose final label is not finished: an automatic label (rounded mean
    or aggregate) of a post in a batch that is still open and has fewer than the batch's k counted
    judgments. Finished, and released: adjudicated and imported labels, posts with k counted
    judgments, posts of a locked batch, and posts judged outside any batch (`import_judgments`).
    Taken-down posts are left to the takedown rule (publication/releasing.py), which counts them."""
    rows = (Post.objects.filter(final_label__provenance__in=AUTOMATIC, batch__isnull=False,
                                batch__locked_at__isnull=True, takedowns__isnull=True)
            .annotate(counted=Count("judgments", filter=Q(judgments__gold=False), distinct=True))
            .filter(counted__lt=F("batch__annotators_per_post"))
            .values_list("external_id", "text_sha256"))
    return {post_key(ext, sha) for ext, sha in rows}


def label_rows(*, release: Release | None, seed: int = 0) -> list[dict]:
    """A release's rows, or the current final labels split by `seed` the way a release of them would
    be by default (the paper's 1,000 / rest up to 2,000 posts, a stratified 80/20 above)."""
    if release is not None:
        return release_rows(release)
    rows = current_label_rows()
    plan = split_plan(rows, seed, default_split_scheme(len(rows)))
    return [{**r, "split": plan[r["id"]]["split"]} for r in rows]


def judgment_rows() -> list[list]:
    """Every judgment as judgments.csv writes it: post key, annotator pseudonym, scores ('' = missing)."""
    pseudonyms = annotator_pseudonyms()
    return [
        [post_key(ext, sha), pseudonyms.get(uid) or pseudonym_fallback(uid), *[("" if v is None else v) for v in scores]]
        for ext, sha, uid, *scores in Judgment.objects.counted().order_by("post__text_sha256", "annotator_id")
        .values_list("post__external_id", "post__text_sha256", "annotator_id", *DIMENSIONS)
    ]


def labelled_posts(*, release: Release | None) -> list[tuple[Post, dict[str, int]]]:
    """(post, labels) for the posts of a release (labels as released), or every post with a current
    final label; in post id order."""
    if release is None:
        return [(fl.post, fl.scores()) for fl in FinalLabel.objects.select_related("post").order_by("post_id")]
    wanted = {r["id"]: r for r in release_rows(release)}
    out = []
    for post in Post.objects.order_by("id").only("id", "external_id", "text_sha256", "text", "tone", "identity", "stance"):
        row = wanted.get(post_key(post.external_id, post.text_sha256))
        if row is not None:
            out.append((post, {d: row[d] for d in DIMENSIONS}))
    return out
