"""What a release may hold, by kind (annotation/releases/services.py `release_publish` asks here).

Every release: taken-down posts are left out (the diff lists them, by id only), and the release
reports how many of its texts are searchable and the distribution of their longest shared spans.

An *internal* release holds the posts' (cleaned, masked) texts: every one is searchable by
construction, and it says so. It stays inside the instance.

A *public* release holds, for each labelled post, its newest confirmed rewrite instead of its
text, and only where that rewrite is not searchable now (its span recomputed against the current
`RELEASE_MAX_SHARED_SPAN`), the personal-data detector finds nothing unmasked in it and it keeps no
five digits in a row of a number found in the original (`kept_personal_digits`). Posts get a
public id (`p` + a number) that is neither the original's external id (a Weibo id would lead to
it) nor a hash of its text (which would confirm a guess). judgments.csv keeps the pseudonymised
scores of the published posts only; no file holds notes, raw or cleaned original text, or names.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from annotation.models import Post, ReleaseKind
from annotation.releases.files import post_key
from core.errors import DomainError

from .personal_data.normalise import clean_for_publication
from .rewriting.checks import kept_personal_digits, release_span, unmasked_personal_data
from .rewriting.selectors import confirmed_rewrites
from .spans import max_shared_span_setting, span_report

# Why a labelled post is not in a public release, in the data card's order.
LEFT_OUT_REASONS = {
    "taken_down": "taken down on request",
    "no_confirmed_rewrite": "no confirmed rewrite",
    "searchable": "its confirmed rewrite is searchable",
    "personal_data": "personal data found unmasked in its rewrite",
}


@dataclass
class ShapedRelease:
    labels: list[dict]
    judgments: list[list]
    card_section: str
    summary: dict
    taken_down_ids: list[str] = field(default_factory=list)  # in this release's id space


def public_id(pk: int) -> str:
    return f"p{pk}"


def _posts(keys) -> dict[str, tuple[int, str, str]]:
    """release key -> (pk, raw text, text) of the labelled posts."""
    out = {}
    for pk, ext, sha, raw, text in Post.objects.filter(final_label__isnull=False).values_list(
            "pk", "external_id", "text_sha256", "raw_text", "text"):
        out[post_key(ext, sha)] = (pk, raw, text)
    return {k: out[k] for k in keys if k in out}


def _taken_down() -> set[int]:
    return set(Post.objects.filter(takedowns__isnull=False).values_list("pk", flat=True))


def _personal_data_counts(pks: list[int]) -> dict[str, int]:
    """Personal data masked at import in the published posts' originals (kind -> count)."""
    from .personal_data.models import PersonalDataScan

    total: Counter = Counter()
    for counts in PersonalDataScan.objects.filter(post_id__in=pks).values_list("counts", flat=True):
        total.update(counts or {})
    return dict(sorted(total.items()))


def _span_lines(report: dict) -> list[str]:
    return [f"- threshold (`RELEASE_MAX_SHARED_SPAN`): {report['threshold']} characters",
            f"- searchable texts in this release: {report['searchable']} of {report['posts']}",
            f"- longest shared span: {report['longest']}", "",
            "| longest shared span (characters) | texts |", "|---|---|",
            *[f"| {bucket} | {n} |" for bucket, n in report["distribution"].items()], ""]


def release_shape(kind: str, labels: list[dict], judgments: list[list], *, include_gold: bool = False) -> ShapedRelease:
    """The rows, judgments, data-card section and summary of a release of `kind`."""
    if kind not in ReleaseKind.values:
        raise DomainError(_("Unknown release kind %(kind)r.") % {"kind": kind})
    posts = _posts([r["id"] for r in labels])
    taken = _taken_down()
    threshold = max_shared_span_setting()
    if kind == ReleaseKind.INTERNAL:
        kept = [r for r in labels if posts.get(r["id"], (None,))[0] not in taken]
        gone = sorted(r["id"] for r in labels if posts.get(r["id"], (None,))[0] in taken)
        keep_keys = {r["id"] for r in kept}
        spans = [release_span(r["text"], raw_text=posts[r["id"]][1], cleaned_text=posts[r["id"]][2])
                 if r["id"] in posts else len(r["text"]) for r in kept]
        report = span_report(spans, threshold).as_dict()
        section = ["## Re-identification risk (internal release)", "",
                   "This is an internal release: it holds the posts' own (cleaned, personal-data-masked) texts, "
                   "which a search engine can link back to their authors. Do not publish it; publish a public "
                   "release (confirmed rewrites only) instead.", "",
                   f"- posts left out because they were taken down on request: {len(gone)}", *_span_lines(report)]
        return ShapedRelease(labels=kept, judgments=[j for j in judgments if j[0] in keep_keys],
                             card_section="\n".join(section) + "\n",
                             summary={"kind": kind, "spans": report, "left_out": {"taken_down": len(gone)}},
                             taken_down_ids=gone)

    if include_gold:
        raise DomainError(_("A public release cannot list the gold items: gold.csv holds the original texts."))
    rewrites = confirmed_rewrites(pk for pk, _raw, _text in posts.values())
    left_out: Counter = Counter()
    published: list[dict] = []
    spans: list[int] = []
    ids: dict[str, str] = {}
    for row in labels:
        pk, raw, text = posts.get(row["id"], (None, "", ""))
        if pk is None:
            left_out["no_confirmed_rewrite"] += 1
            continue
        if pk in taken:
            left_out["taken_down"] += 1
            continue
        rewrite = rewrites.get(pk)
        if rewrite is None:
            left_out["no_confirmed_rewrite"] += 1
            continue
        # Published as cleaned: NFKC, no invisible or format characters (a zero-width space hides nothing).
        published_text = clean_for_publication(rewrite.text)
        # Measured on what is published too: cleaning can make a rewrite that looked different the
        # original again (an enclosed ideograph 🈐, a symbol the search view drops, is published as 手).
        span = max(release_span(rewrite.text, raw_text=raw, cleaned_text=text),
                   release_span(published_text, raw_text=raw, cleaned_text=text))
        if span >= threshold:
            left_out["searchable"] += 1
            continue
        # Personal data the current rules find after normalisation (an obfuscated number, a name), or
        # 5+ digits of a number found in the original (rewrites confirmed before the page's guard
        # existed or before these rules are checked here too).
        if unmasked_personal_data(rewrite.text) or unmasked_personal_data(published_text) \
                or kept_personal_digits(published_text, raw_text=raw):
            left_out["personal_data"] += 1
            continue
        ids[row["id"]] = public_id(pk)
        published.append({**row, "id": public_id(pk), "text": published_text})
        spans.append(span)
    published.sort(key=lambda r: int(r["id"][1:]))
    public_judgments = sorted(([ids[j[0]], *j[1:]] for j in judgments if j[0] in ids), key=lambda j: (int(j[0][1:]), j[1]))
    report = span_report(spans, threshold).as_dict()
    pd_counts = _personal_data_counts([int(r["id"][1:]) for r in published])
    section = ["## Publication policy (public release)", "",
               "This is a public release. A verbatim post can be searched for and linked back to the person who "
               "wrote it, so no original text is published: every text here is a rewrite of its post, made to "
               "keep what the labels depend on and confirmed by a second person who answered that the labels "
               "still hold. A post is published only when its confirmed rewrite, as confirmed and as published, shares no exact span of "
               f"{threshold} characters or more with the original post (compared as a search engine compares them: "
               "width, case, traditional characters, punctuation, emoji, spaces and invisible characters ignored) "
               "and the personal-data detector finds nothing unmasked in it, after normalising obfuscations such "
               "as invisible characters, full-width or traditional forms. Texts are published "
               "NFKC-normalised with invisible and format characters removed. Ids are release ids, not "
               "the platform's; `judgments.csv` holds pseudonymised scores of the published posts only, without "
               "notes. Users must not search for, reconstruct or redistribute the original posts.", "",
               f"- labelled posts: {len(labels)}; published: {len(published)}; left out: {sum(left_out.values())}",
               *[f"  - {text}: {left_out.get(reason, 0)}" for reason, text in LEFT_OUT_REASONS.items()],
               "- personal data masked at import in the published posts' originals: "
               + (", ".join(f"{k} {v}" for k, v in pd_counts.items()) or "none"),
               "", "### Shared spans of the published rewrites", "", *_span_lines(report)]
    return ShapedRelease(labels=published, judgments=public_judgments, card_section="\n".join(section) + "\n",
                         summary={"kind": kind, "spans": report, "left_out": {k: left_out.get(k, 0) for k in LEFT_OUT_REASONS},
                                  "personal_data": pd_counts},
                         taken_down_ids=sorted((public_id(posts[k][0]) for k in posts if posts[k][0] in taken),
                                               key=lambda i: int(i[1:])))
