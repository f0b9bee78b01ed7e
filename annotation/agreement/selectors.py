"""Agreement read from the database: the ratings, the full report, the dashboard's cached copy,
and the bootstrap-interval reports."""
from __future__ import annotations

from django.db.models import Count, Max

from core.jobs import JobStatus

from django.utils.translation import gettext_noop

from ..models import DIMENSIONS, AgreementReport, AnnotatorProfile, Batch, Judgment
from ..selectors import pseudonym_fallback
from .mathematics import LEVELS, Ratings, alpha, dimension_entry, ratings_from_rows

# Stored in reports as these English keys; pages translate them (gettext_noop marks them for the catalogue).
COMMUNITY_GROUPS = {True: gettext_noop("community member"), False: gettext_noop("not a member"), None: gettext_noop("unknown")}


def load_ratings(*, batch_ids: list[int] | None = None, extra_rows: list[tuple] | None = None) -> Ratings:
    """The crowd's counted judgments as rating matrices. `extra_rows`: (rater id, post, scores...) of
    pseudo-raters (an LLM run a researcher let into the model-based aggregation), kept only on posts
    the crowd judged; agreement figures never pass any."""
    qs = Judgment.objects.counted()  # answers to gold items never count toward agreement
    if batch_ids is not None:
        qs = qs.filter(post__batch_id__in=batch_ids)
    rows = list(qs.values_list("annotator_id", "post_id", *DIMENSIONS))
    if extra_rows:
        judged = {post for _rater, post, *_scores in rows}
        rows += [row for row in extra_rows if row[1] in judged]
    return ratings_from_rows(rows, DIMENSIONS)


def judgments_fingerprint() -> str:
    """Changes whenever a judgment is added, removed or revised."""
    agg = Judgment.objects.counted().aggregate(n=Count("id"), last=Max("updated_at"), top=Max("id"))
    return f"{agg['n']}:{agg['top']}:{agg['last'].isoformat() if agg['last'] else ''}"


def agreement_report(*, bootstrap: int = 0, batch_ids: list[int] | None = None, seed: int = 0,
                     with_trend: bool = True, interval_levels: tuple[str, ...] = LEVELS) -> dict:
    """Everything the dashboard, the data card and `manage.py agreement` show. `bootstrap` > 0
    adds intervals."""
    ratings = load_ratings(batch_ids=batch_ids)
    profiles = {p.user_id: p for p in AnnotatorProfile.objects.filter(user_id__in=ratings.rater_ids)}
    names = [profiles[r].pseudonym if r in profiles else pseudonym_fallback(r) for r in ratings.rater_ids]
    groups: dict[str, list[int]] = {}
    for idx, r in enumerate(ratings.rater_ids):
        member = profiles[r].community_member if r in profiles else None
        groups.setdefault(COMMUNITY_GROUPS[member], []).append(idx)
    report: dict = {"n_units": len(ratings.unit_ids), "n_raters": len(ratings.rater_ids), "raters": names,
                    "n_judgments": ratings.n_judgments,
                    "dimensions": {dim: dimension_entry(m, names, groups, bootstrap=bootstrap, seed=seed,
                                                        interval_levels=interval_levels)
                                   for dim, m in ratings.matrices.items()}}
    if with_trend and batch_ids is None:
        trend = []
        done: list[int] = []
        for batch in Batch.objects.order_by("created_at", "id"):
            done.append(batch.id)
            sub = load_ratings(batch_ids=list(done))
            if sub.unit_ids:
                trend.append({"batch": batch.name, "posts": len(sub.unit_ids),
                              **{d: alpha(sub.matrices[d]) for d in DIMENSIONS}})
        report["trend"] = trend
    return report


def interval_report_latest() -> AgreementReport | None:
    """The newest finished bootstrap-interval report."""
    return AgreementReport.objects.filter(status=JobStatus.SUCCEEDED).first()


def interval_report_pending() -> AgreementReport | None:
    return AgreementReport.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).first()


def dashboard_report() -> AgreementReport | None:
    """What the dashboard shows: the newest report a background job finished computing (α, pairs,
    severity, subgroups, trend and bootstrap intervals), or None before the first one. The page
    never computes α itself; researchers ask for a fresh report with a button."""
    return AgreementReport.objects.filter(status=JobStatus.SUCCEEDED, payload__isnull=False).first()
