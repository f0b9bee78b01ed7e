"""Personal data in the database: masking at import, the per-post scan rows, re-scans of posts
already imported, and the per-batch report. The detector itself is publication/personal_data/detector.py.

A post's `text` is `mask_post(raw_text)`: what annotators, adjudicators and models see. Its
`text_sha256` stays the hash of the cleaned text *before* masking, so a post keeps its identity
(duplicate refusal, judgments files keyed by text, releases' post keys) when the rules change and
a re-scan masks more of it."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import Batch, Post

from .detector import KINDS, PLACEHOLDERS, MaskResult, mask_post, mask_posts, rules_version
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
    """The name recogniser PERSONAL_DATA_NER names, loaded once per process (None: the offline
    default, which finds no personal names). RecogniserUnavailable when it is named but absent."""
    return _recogniser_for(getattr(settings, "PERSONAL_DATA_NER", "") or "")


def recogniser_name() -> str:
    setting = (getattr(settings, "PERSONAL_DATA_NER", "") or "").strip()
    return "" if setting.lower() in ("", "none", "off") else setting


def mask_for_import(raw: str) -> MaskResult:
    return mask_post(raw, ner=personal_data_recogniser())


def mask_many_for_import(raws: list[str]) -> list[MaskResult]:
    """`mask_for_import` of each text; the name recogniser reads them in batches."""
    return mask_posts(raws, ner=personal_data_recogniser())


def personal_data_record(*, scans: list[tuple[int, dict[str, int], int]]) -> None:
    """Write (or replace) the scan rows (post id, kind -> count, findings) of imported or re-scanned posts."""
    now, name = timezone.now(), recogniser_name()
    rows = [PersonalDataScan(post_id=pk, counts=counts, total=total, rules_version=rules_version(), recogniser=name,
                             scanned_at=now) for pk, counts, total in scans]
    PersonalDataScan.objects.bulk_create(rows, batch_size=2000, update_conflicts=True, unique_fields=["post"],
                                         update_fields=["counts", "total", "rules_version", "recogniser", "scanned_at"])


class RescanFailed(Exception):
    """Nothing was changed; the message says why."""


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

    def kind_changes(self) -> list[tuple[str, int, int]]:
        """(kind, before, after) for every kind whose count changed."""
        kinds = [k for k in KINDS if self.before[k] != self.after[k]]
        return [(k, self.before[k], self.after[k]) for k in kinds]


def personal_data_rescan(*, batch_name: str | None = None, dry_run: bool = False) -> RescanReport:
    """Apply the current rules (and name recogniser) to posts already imported: each post's text
    becomes mask_post(raw_text) and its scan row is rewritten. All-or-nothing: one transaction,
    with the posts locked; `dry_run` reports what would change and writes nothing."""
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
    report = RescanReport(dry_run=dry_run)
    with transaction.atomic():
        rows = list(posts.select_for_update().values_list("pk", "text", "raw_text"))
        old = {s.post_id: s for s in PersonalDataScan.objects.filter(post_id__in=[pk for pk, _t, _r in rows])}
        results, changed = [], []
        version = report.version = rules_version()
        masked = mask_posts([raw for _pk, _text, raw in rows], ner=recogniser)
        for (pk, text, _raw), result in zip(rows, masked):
            report.scanned += 1
            report.after.update(result.counts)
            if pk in old:
                report.before.update(old[pk].counts)
                report.versions_before[old[pk].rules_version] += 1
            else:
                report.first_scans += 1
            if result.text != text:
                changed.append(Post(pk=pk, text=result.text))
            if pk not in old or old[pk].counts != result.counts or old[pk].rules_version != version \
                    or old[pk].recogniser != recogniser_name():
                results.append((pk, result.counts, len(result.findings)))
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
