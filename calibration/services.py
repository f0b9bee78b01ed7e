"""Rebuild C-I-S prior snapshots from adjudicated/final labels."""
from __future__ import annotations


from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import DIMENSIONS, Post, Release
from annotation.releases.selectors import labelled_posts
from core.errors import DomainError
from core.jobs import JobDone, job_fail, job_run
from modeling.maam.astigmatism import AXES, STATES, CISState, build_priors, make_inferer
from modeling.services import lexicon_current

from .models import PriorSnapshot, RebuildRequest


def post_states(posts: list[Post], inferer_name: str = "cues") -> list[CISState]:
    """Manual C-I-S tags where an annotator or adjudicator set all three, inference otherwise."""
    need = [p for p in posts if not (p.tone and p.identity and p.stance)]
    inferred = iter(make_inferer(inferer_name).infer_many([p.text for p in need])) if need else iter(())
    out = []
    for p in posts:
        if p.tone and p.identity and p.stance:
            out.append(CISState(p.tone, p.identity, p.stance, source="manual"))
        else:
            out.append(next(inferred))
    return out


def compute_priors(labels: list[dict[str, int]], states: list[CISState]) -> tuple[dict, dict]:
    priors, counts = {}, {}
    for d in DIMENSIONS:
        table = build_priors([row[d] for row in labels], states)  # paper eq. (prior) with the 0.2 fill
        priors[d], counts[d] = table.table, table.counts
    return priors, counts


def prior_snapshot_rebuild(*, release_id: int | None = None, inferer: str = "cues", created_by=None,
                           states: list[CISState] | None = None) -> PriorSnapshot:
    snapshot = prior_snapshot_build(release_id=release_id, inferer=inferer, created_by=created_by, states=states)
    snapshot.save()
    return snapshot


def prior_snapshot_build(*, release_id: int | None = None, inferer: str = "cues", created_by=None,
                         states: list[CISState] | None = None) -> PriorSnapshot:
    """The snapshot, computed but not saved (a rebuild job saves it with its success)."""
    release = Release.objects.filter(pk=release_id).first() if release_id else None
    if release_id and release is None:
        raise DomainError(_("No such release."))
    pairs = labelled_posts(release=release)
    if not pairs:
        raise DomainError(_("There are no labelled posts to build priors from."))
    posts = [p for p, _labels in pairs]
    states = states if states is not None else post_states(posts, inferer)
    priors, counts = compute_priors([labels for _post, labels in pairs], states)
    sources: dict[str, int] = {}
    for s in states:
        sources[s.source] = sources.get(s.source, 0) + 1
    return PriorSnapshot(
        release=release, source=f"release {release.number}" if release else "current final labels",
        lexicon_version=lexicon_current().version, inferer=inferer, n_posts=len(pairs), priors=priors, counts=counts,
        states=[[p.pk, s.C, s.I, s.S, s.source] for p, s in zip(posts, states)], state_sources=sources,
        created_by=created_by)


def rebuild_request(*, release_id: int | None = None, inferer: str = "cues", created_by=None) -> RebuildRequest:
    from .tasks import rebuild_priors

    request = RebuildRequest.objects.create(release_id=release_id, inferer=inferer, created_by=created_by)

    def enqueue():
        try:
            rebuild_priors.apply_async(args=[request.pk])
        except Exception as exc:
            job_fail(RebuildRequest, request.pk, reason=f"The task queue is unavailable: {exc}")

    transaction.on_commit(enqueue)
    return request


def rebuild_execute(*, request_id: int) -> RebuildRequest:
    """Build the requested snapshot, once: a second delivery of the task does nothing."""

    def rebuild(req: RebuildRequest) -> JobDone:
        snapshot = prior_snapshot_build(release_id=req.release_id, inferer=req.inferer, created_by=req.created_by)

        def commit() -> None:
            # The snapshot exists only with its request's success: a request failed or cancelled meanwhile
            # leaves none behind, and a succeeded one always names its snapshot.
            snapshot.save()
            RebuildRequest.objects.filter(pk=req.pk).update(snapshot=snapshot)

        return JobDone(commit=commit)

    return job_run(RebuildRequest, request_id, rebuild)


def rebuild_after_release(sender, release: Release, **kwargs) -> None:
    """Signal receiver: a published release gets its prior snapshot in the background."""
    rebuild_request(release_id=release.pk)


STATE_ORDER = [(axis, state) for axis in AXES for state in STATES[axis]]
