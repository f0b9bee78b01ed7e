"""The modeling part of the demo (annotation/demo.py seeds the rest): a finished baseline and MAAM
full run on release 1 with the fast offline `char-ngram` backbone, and the full run's predictions
for every post, which adjudicators see beside the judgments. Idempotent."""
from __future__ import annotations

from annotation.models import DIMENSIONS, Release
from core.jobs import JobStatus

from .models import Prediction, TrainingRun
from .services import scoring_job_launch, training_run_launch

DEMO_VARIANTS = ["baseline", "full"]
DEMO_BACKBONE = "char-ngram"


def seed_demo_runs(*, release: Release, researcher) -> dict:
    existing = TrainingRun.objects.filter(release=release, backbone=DEMO_BACKBONE, variant__in=DEMO_VARIANTS).exclude(
        status__in=[JobStatus.FAILED, JobStatus.CANCELLED])
    runs = list(existing)
    if not runs:
        runs = training_run_launch(created_by=researcher, release_id=release.pk, dimensions=list(DIMENSIONS),
                                   variants=DEMO_VARIANTS, seeds=[0], backbone=DEMO_BACKBONE)
    full = next((r for r in runs if r.variant == "full"), None)
    scored = 0
    if full is not None:
        full.refresh_from_db()
        if full.status == JobStatus.SUCCEEDED and not Prediction.objects.filter(run=full).exists():
            scoring_job_launch(created_by=researcher, run_id=full.pk)
        scored = Prediction.objects.filter(run=full).count()
    return {"runs": TrainingRun.objects.filter(pk__in=[r.pk for r in runs], status=JobStatus.SUCCEEDED).count(),
            "predictions": scored}
