"""Personal data in the database: masking at import, the per-post scan rows, re-scans of posts
already imported, and the per-batch report. The detector itself is publication/personal_data/detector.py.

A post's `text` is `mask_post(raw_text)`: what annotators, adjudicators and models see. Its
`text_sha256` stays the hash of the cleaned text *before* masking, so a post keeps its identity
(duplicate refusal, judgments files keyed by text, releases' post keys) when the rules change and
a re-scan masks more of it."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import Batch, Post

from .detector import KINDS, PLACEHOLDERS, MaskResult, mask_post, mask_posts, mask_texts, rules_version
from .models import PersonalDataScan
from .ner import RecogniserUnavailable, load_recogniser


KIND_LABELS = {
    "id_card": gettext_lazy("Resident ID number"),
    "bank_card": gettext_lazy("Bank card number"),
    "mobile": gettext_lazy("Mobile number"),
    "landline": gettext_lazy("Landline number"),
    "email": gettext_lazy("E-mail address"),
    "qq": gettext_lazy("QQ number"),
    "wechat": gettext_lazy("WeChat ID"),
    "plate": gettext_lazy("Licence plate"),
    "ip": gettext_lazy("IP address"),
    "mention": gettext_lazy("@mention"),
    "url": gettext_lazy("Link"),
    "address": gettext_lazy("Street address"),
    "person": gettext_lazy("Personal name"),
}


@lru_cache(maxsize=4)
def _recogniser_for(setting: str):
    return load_recogniser(setting)


def personal_data_recogniser():
    """The name recogniser PERSONAL_DATA_NER names (by default "lac", the offline LAC model), loaded
    once per process; None when it is "none": then no personal names are found.
    RecogniserUnavailable when it is named but absent."""
    return _recogniser_for(getattr(settings, "PERSONAL_DATA_NER", "") or "")


def recogniser_name() -> str:
    setting = (getattr(settings, "PERSONAL_DATA_NER", "") or "").strip()
    return "" if setting.lower() in ("", "none", "off") else setting


def mask_for_import(raw: str) -> MaskResult:
    return mask_post(raw, ner=personal_data_recogniser())


def mask_many_for_import(raws: list[str]) -> list[MaskResult]:
    """`mask_for_import` of each text; the name recogniser reads them in batches."""
    return mask_posts(raws, ner=personal_data_recogniser())


def mask_for_sending(texts: list[str]) -> list[str]:
    """Post texts about to leave the instance (an LLM endpoint's prompts), masked with the rules and
    the name recogniser in force now, whatever rules masked them when they were stored or
    released: the placeholders already in them stay, and what the current rules find is masked too
    (`mask_texts`). Text masked with the current rules comes back unchanged. RecogniserUnavailable
    when PERSONAL_DATA_NER names a recogniser that cannot run: nothing is sent then."""
    return [r.text for r in mask_texts(list(texts), ner=personal_data_recogniser())]


def personal_data_record(*, scans: list[tuple[int, dict[str, int], int]]) -> None:
    """Write (or replace) the scan rows (post id, kind -> count, findings) of imported or re-scanned posts."""
    now, name = timezone.now(), recogniser_name()
    rows = [PersonalDataScan(post_id=pk, counts=counts, total=total, rules_version=rules_version(), recogniser=name,
                             scanned_at=now) for pk, counts, total in scans]
    PersonalDataScan.objects.bulk_create(rows, batch_size=2000, update_conflicts=True, unique_fields=["post"],
                                         update_fields=["counts", "total", "rules_version", "recogniser", "scanned_at"])


class RescanFailed(Exception):
    """Nothing was changed; the message says why."""


_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS.values()))


def unmasks(before: str, after: str) -> bool:
    """Whether `after` (a post's text masked again) shows characters that `before` had masked: True
    unless `after` is `before` with some stretches of it (each at least one character, placeholders
    or not) replaced by placeholders, i.e. unless the new masking only masks more. Any other
    difference (say, a cleaning that changed) counts as unmasking, which keeps the earlier text."""
    if not _PLACEHOLDER.search(before):
        return False
    parts = _PLACEHOLDER.split(after)
    if len(parts) == 1:
        return True  # no placeholder left at all
    first, *middle, last = parts
    if not before.startswith(first):
        return True
    pos = len(first)
    for literal in middle:  # each placeholder stands for at least one character; the earliest fit is the best
        found = before.find(literal, pos + 1)
        if found < 0:
            return True
        pos = found + len(literal)
    return not (len(before) - len(last) >= pos + 1 and before.endswith(last))


@dataclass
class RescanReport:
    scanned: int = 0
    texts_changed: int = 0
    first_scans: int = 0
    before: Counter = field(default_factory=Counter)  # kind -> count in the scan rows before
    after: Counter = field(default_factory=Counter)
    changed_post_ids: list[int] = field(default_factory=list)
    dry_run: bool = False
    versions_before: Counter = field(default_factory=Counter)  # rules version -> posts last scanned with it
    version: str = ""
    # Posts whose new masking would show something masked before: kept masked (the default), or,
    # with allow_unmask, unmasked.
    unmasking_post_ids: list[int] = field(default_factory=list)
    allow_unmask: bool = False

    def kind_changes(self) -> list[tuple[str, int, int]]:
        """(kind, before, after) for every kind whose count changed."""
        kinds = [k for k in KINDS if self.before[k] != self.after[k]]
        return [(k, self.before[k], self.after[k]) for k in kinds]


def _weaker_recogniser_check(old: dict[int, PersonalDataScan]) -> None:
    """RescanFailed when no name recogniser is configured but posts were last scanned with one: a
    re-scan would show every name that recogniser masked."""
    if recogniser_name():
        return
    stronger = Counter(scan.recogniser for scan in old.values() if scan.recogniser)
    if stronger:
        setting = (getattr(settings, "PERSONAL_DATA_NER", "") or "").strip() or '""'
        raise RescanFailed(_(
            "PERSONAL_DATA_NER is %(setting)s, so no name recogniser runs, but %(posts)s posts were last scanned "
            "with %(recognisers)s: re-scanning them now would unmask the names it found. Set PERSONAL_DATA_NER "
            "to %(recogniser)s (the default is lac), or re-scan with --allow-unmask to unmask them (with "
            "--dry-run first to see how many posts would lose a mask).") % {
                "setting": setting, "posts": sum(stronger.values()),
                "recognisers": ", ".join(f"{name} ({n})" for name, n in stronger.most_common()),
                "recogniser": stronger.most_common(1)[0][0]})


def personal_data_rescan(*, batch_name: str | None = None, dry_run: bool = False,
                         allow_unmask: bool = False) -> RescanReport:
    """Apply the current rules (and name recogniser) to posts already imported: each post's text
    becomes mask_post(raw_text) and its scan row is rewritten. All-or-nothing: one transaction,
    with the posts locked; `dry_run` reports what would change and writes nothing.

    A re-scan never unmasks unless `allow_unmask`: it refuses to run without a name recogniser when
    posts were last scanned with one (RescanFailed), and a post whose new text would show
    characters its current text masks (`unmasks`: a cue taken out of a word list, another
    recogniser) keeps its masks - its text becomes its current text masked again with the current
    rules - and is listed in `unmasking_post_ids`. With `allow_unmask` (a mask that was a false
    alarm) those posts get mask_post(raw_text) like the rest, and the list says which lost a mask."""
    try:
        recogniser = personal_data_recogniser()
    except RecogniserUnavailable as exc:
        raise RescanFailed(str(exc)) from exc
    posts = Post.objects.order_by("pk")
    if batch_name is not None:
        batch = Batch.objects.filter(name=batch_name).first()
        if batch is None:
            known = ", ".join(Batch.objects.order_by("name").values_list("name", flat=True)[:20])
            raise RescanFailed(_("No batch is named %(name)r (batches: %(known)s).")
                               % {"name": batch_name, "known": known or "–"})
        posts = posts.filter(batch=batch)
    report = RescanReport(dry_run=dry_run, allow_unmask=allow_unmask)
    with transaction.atomic():
        rows = list(posts.select_for_update().values_list("pk", "text", "raw_text"))
        old = {s.post_id: s for s in PersonalDataScan.objects.filter(post_id__in=[pk for pk, _t, _r in rows])}
        if not allow_unmask:
            _weaker_recogniser_check(old)
        version = report.version = rules_version()
        masked = mask_posts([raw for _pk, _text, raw in rows], ner=recogniser)
        report.unmasking_post_ids = [pk for (pk, text, _raw), result in zip(rows, masked) if unmasks(text, result.text)]
        kept: dict[int, str] = {}
        if report.unmasking_post_ids and not allow_unmask:
            texts = {pk: text for pk, text, _raw in rows}
            again = mask_texts([texts[pk] for pk in report.unmasking_post_ids], ner=recogniser)
            kept = {pk: r.text for pk, r in zip(report.unmasking_post_ids, again)}
        results, changed = [], []
        for (pk, text, _raw), result in zip(rows, masked):
            counts = result.counts
            if pk in kept:  # the earlier masks stay: count what either scan found
                before = old[pk].counts if pk in old else {}
                counts = {k: max(before.get(k, 0), counts.get(k, 0)) for k in KINDS
                          if before.get(k, 0) or counts.get(k, 0)}
            new_text = kept.get(pk, result.text)
            report.scanned += 1
            report.after.update(counts)
            if pk in old:
                report.before.update(old[pk].counts)
                report.versions_before[old[pk].rules_version] += 1
            else:
                report.first_scans += 1
            if new_text != text:
                changed.append(Post(pk=pk, text=new_text))
            if pk not in old or old[pk].counts != counts or old[pk].rules_version != version \
                    or old[pk].recogniser != recogniser_name():
                results.append((pk, counts, sum(counts.values()) if pk in kept else len(result.findings)))
        report.texts_changed = len(changed)
        report.changed_post_ids = [p.pk for p in changed]
        if not dry_run:
            Post.objects.bulk_update(changed, ["text"], batch_size=1000)
            personal_data_record(scans=results)
    return report


# --- the report ---------------------------------------------------------------------------------------

@dataclass
class PersonalDataReport:
    batch: Batch | None
    posts: int
    scanned: int
    affected: int
    counts: list[tuple[str, str, str, int]]  # (kind, label, placeholder, count) for every kind
    total: int
    recognisers: list[str]
    rules_versions: list[str]
    examples: list[Post]


def personal_data_report(*, batch: Batch | None, examples: int = 20) -> PersonalDataReport:
    """Counts per kind and posts affected for one batch (None: posts outside any batch). Reads only
    the scan rows and the masked text, never raw text."""
    posts = Post.objects.filter(batch=batch) if batch is not None else Post.objects.filter(batch__isnull=True)
    scans = PersonalDataScan.objects.filter(post__in=posts)
    counted: Counter = Counter()
    affected = scanned = total = 0
    recognisers, versions = set(), set()
    for counts, n, recogniser, version in scans.values_list("counts", "total", "recogniser", "rules_version"):
        scanned += 1
        counted.update(counts)
        total += n
        affected += n > 0
        recognisers.add(recogniser)
        versions.add(version)
    return PersonalDataReport(
        batch=batch, posts=posts.count(), scanned=scanned, affected=affected,
        counts=[(kind, KIND_LABELS[kind], PLACEHOLDERS[kind], counted[kind]) for kind in KINDS], total=total,
        recognisers=sorted(recognisers), rules_versions=sorted(versions),
        examples=list(posts.filter(personal_data_scan__total__gt=0).order_by("pk").only("pk", "text")[:examples]))


def personal_data_overview() -> list[tuple[Batch | None, int, int, int]]:
    """(batch, posts, scanned, affected) for every batch and for posts outside any batch."""
    from django.db.models import Count, Q

    batches = Batch.objects.order_by("created_at", "pk").annotate(
        n_posts=Count("posts", distinct=True),
        n_scanned=Count("posts__personal_data_scan", distinct=True),
        n_affected=Count("posts__personal_data_scan", filter=Q(posts__personal_data_scan__total__gt=0), distinct=True))
    rows: list[tuple[Batch | None, int, int, int]] = [(b, b.n_posts, b.n_scanned, b.n_affected) for b in batches]
    loose = Post.objects.filter(batch__isnull=True)
    if loose.exists():
        rows.append((None, loose.count(), PersonalDataScan.objects.filter(post__batch__isnull=True).count(),
                     PersonalDataScan.objects.filter(post__batch__isnull=True, total__gt=0).count()))
    return rows
