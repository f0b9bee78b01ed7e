"""A run whose worker died is failed by the periodic lost-job check (celery beat on the default
worker), not by whoever happens to open the runs page: GET requests write nothing."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from core.jobs import WORKER_LOST
from core.tasks import fail_lost_jobs
from modeling.models import TrainingRun

pytestmark = pytest.mark.django_db


def silent_run() -> TrainingRun:
    run = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"], status="running")
    TrainingRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1),
                                                 started_at=timezone.now() - timedelta(hours=1))
    return run


def test_reading_the_runs_pages_and_api_changes_no_run(client, make_user):
    run = silent_run()
    client.force_login(make_user("res", role="researcher"))
    for url in (reverse("modeling:runs"), reverse("modeling:run", args=[run.pk]),
                reverse("api:api-runs"), reverse("api:api-run", args=[run.pk])):
        assert client.get(url).status_code == 200, url
    run.refresh_from_db()
    assert run.status == "running"


def test_the_periodic_check_fails_silent_runs_on_the_default_queue():
    run = silent_run()
    assert fail_lost_jobs.delay().get()["modeling.TrainingRun"] == 1
    run.refresh_from_db()
    assert run.status == "failed" and run.error == WORKER_LOST
    schedule = settings.CELERY_BEAT_SCHEDULE["fail-lost-jobs"]
    assert schedule["task"] == fail_lost_jobs.name and schedule["schedule"] <= 60
    from chlgbt_site.celery import app

    assert app.amqp.router.route({}, fail_lost_jobs.name)["queue"].name == "default"
