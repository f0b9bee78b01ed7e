"""Model-based aggregation in the workflow: adjudicators see the aggregate and its confidence beside
the rounded mean; posts where the two disagree join the adjudication queue; the documented setting
chooses the default final label (the rounded mean unless changed); releases record both labels and
which one the final label used."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from annotation.adjudication import selectors as adjudication, services as adjudication_services
from annotation.models import (
    DIMENSIONS,
    AggregateLabel,
    AggregationRun,
    FinalLabel,
    FinalLabelMethod,
    Judgment,
    Provenance,
    WorkbenchSettings,
)
from annotation.quality import services
from annotation.releases.services import release_publish
from core.jobs import JobStatus

pytestmark = pytest.mark.django_db
# Explicit 2,2,2,3,3,3: mean 2.5, rounded (halves up) 3, a 1-point span - never a disagreement by span.
SPLIT = [2, 2, 2, 3, 3, 3]


@pytest.fixture
def judged(make_annotators, make_batch):
    annotators = make_annotators(6)
    batch = make_batch(n_posts=3, annotators=annotators)
    posts = list(batch.posts.order_by("id"))
    Judgment.objects.bulk_create([Judgment(post=p, annotator=a, explicit=s, implicit=1, emotional=2)
                                  for p in posts for a, s in zip(annotators, SPLIT)])
    return annotators, batch, posts


def fake_aggregate(labels: dict) -> AggregationRun:
    """Aggregate labels chosen by the test (the model itself is tested in tests/quality)."""
    run = AggregationRun.objects.create(status=JobStatus.SUCCEEDED, summary={"annotators": {}, "dimensions": {}})
    for post, explicit in labels.items():
        AggregateLabel.objects.create(post=post, run=run, explicit=explicit, implicit=1, emotional=2,
                                      explicit_confidence=0.83, implicit_confidence=0.99, emotional_confidence=0.97)
    return run


def test_a_post_whose_aggregate_differs_from_the_rounded_mean_joins_the_adjudication_queue(judged):
    _, _, (differs, agrees, none) = judged
    assert list(adjudication.adjudication_queue()) == []  # no span, no flag: nothing to adjudicate
    fake_aggregate({differs: 2, agrees: 3})
    assert [p.pk for p in adjudication.adjudication_queue()] == [differs.pk]


def test_the_adjudicator_sees_the_aggregate_and_its_confidence_beside_the_rounded_mean(judged, make_user):
    _, _, (differs, _, _) = judged
    fake_aggregate({differs: 2})
    client = Client()
    client.force_login(make_user("adj", role="adjudicator"))
    response = client.get(reverse("review:adjudicate", args=[differs.pk]))
    body = response.content.decode()
    assert response.context["means"]["explicit"] == 3
    row = body[body.index('id="aggregate-row"'):]
    row = row[:row.index("</tr>")]
    assert '<td class="disagrees">2 <span class="muted">(0.83)</span></td>' in row
    assert "out of date" in row  # fitted on other judgments than these (a test fixture): says so


def test_the_setting_chooses_the_automatic_final_label(judged):
    _, _, (differs, agrees, none) = judged
    fake_aggregate({differs: 2, agrees: 3})
    adjudication_services.final_labels_refresh()
    labels = {fl.post_id: fl for fl in FinalLabel.objects.all()}
    assert {pk: (fl.explicit, fl.provenance) for pk, fl in labels.items()} == {
        p.pk: (3, Provenance.AUTO) for p in (differs, agrees, none)}  # the default: the rounded mean

    WorkbenchSettings.objects.create(pk=1, final_label_method=FinalLabelMethod.AGGREGATE)
    adjudication_services.final_labels_refresh()
    labels = {fl.post_id: (fl.explicit, fl.provenance, fl.version) for fl in FinalLabel.objects.all()}
    assert labels == {differs.pk: (2, Provenance.AGGREGATE, 2), agrees.pk: (3, Provenance.AGGREGATE, 2),
                      none.pk: (3, Provenance.AUTO, 1)}  # no aggregate for this post: the rounded mean


def test_an_adjudicator_replaces_an_aggregate_label_like_an_automatic_one(judged, make_user):
    _, _, (differs, _, _) = judged
    fake_aggregate({differs: 2})
    WorkbenchSettings.objects.create(pk=1, final_label_method=FinalLabelMethod.AGGREGATE)
    adjudication_services.final_labels_refresh()
    label = adjudication_services.post_adjudicate(
        adjudicator=make_user("adj", role="adjudicator"), post_id=differs.pk,
        scores={"explicit": 3, "implicit": 1, "emotional": 2}, rationale="reads as mild", expected_version=0)
    assert label.provenance == Provenance.ADJUDICATED
    assert [p.pk for p in adjudication.adjudication_queue()] == []  # settled


def test_a_release_records_both_labels_and_which_one_was_used(judged, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    _, _, posts = judged
    release = release_publish()
    run = AggregationRun.objects.get()  # fitted for the release, on its judgments
    assert run.status == JobStatus.SUCCEEDED and AggregateLabel.objects.count() == len(posts)
    rows = [json.loads(line) for line in (Path(release.directory) / "release.jsonl").read_text().splitlines()]
    assert len(rows) == len(posts)
    for row in rows:
        assert row["provenance"] == "auto" and row["explicit"] == row["rounded_mean_explicit"] == 3
        assert row["aggregate_explicit"] in (2, 3) and 0 < row["aggregate_explicit_confidence"] <= 1
        assert {f"aggregate_{d}" for d in DIMENSIONS} <= set(row)

    WorkbenchSettings.objects.create(pk=1, final_label_method=FinalLabelMethod.AGGREGATE)
    second = release_publish(force=True)
    rows = [json.loads(line) for line in (Path(second.directory) / "release.jsonl").read_text().splitlines()]
    assert AggregationRun.objects.count() == 1  # judgments unchanged: the fit is reused
    for row in rows:
        assert row["provenance"] == "aggregate"
        assert [row[d] for d in DIMENSIONS] == [row[f"aggregate_{d}"] for d in DIMENSIONS]


def test_the_aggregation_job_runs_once_and_replaces_the_labels(judged, django_capture_on_commit_callbacks):
    _, _, posts = judged
    stale = fake_aggregate({posts[0]: 5})
    with django_capture_on_commit_callbacks(execute=True):  # the task is sent on commit; tests run it eagerly
        run = services.aggregation_request()
    run.refresh_from_db()
    assert run.status == JobStatus.SUCCEEDED
    assert set(AggregateLabel.objects.values_list("run_id", flat=True)) == {run.pk} != {stale.pk}
    assert services.aggregation_compute(run_id=run.pk).pk == run.pk  # a redelivery does nothing
    assert AggregationRun.objects.filter(status=JobStatus.SUCCEEDED).count() == 2


def test_the_latest_aggregation_is_the_newest_finished_one_on_every_database(judged):
    """A succeeded run with no finish time (made by hand, as tests and fixtures do) never hides the newest
    finished run: PostgreSQL sorts NULL first in a descending order, so `-finished_at` alone picked it there
    (and the quality pages showed an empty report) while SQLite picked the finished run."""
    from annotation.quality import selectors

    finished = services.aggregation_run_now()
    AggregationRun.objects.create(status=JobStatus.SUCCEEDED)  # no finished_at, no summary
    assert selectors.aggregation_latest() == finished
    assert selectors.report_latest().run == finished
