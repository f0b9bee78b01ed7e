"""Issue 30, hole 1: gold identity and gold labels through the quality report's time series. Someone who
annotates and also researches answered gold items; the gold-error series (`series.gold_error` of
/api/quality/annotators/<id>/, the "gold" figure of /quality/ and /quality/annotators/<id>/) carried
the exact time of each gold answer and the running error, which matched against their own
/api/judgments/ tells which items were gold and how far their answer was from the gold label. The
report goes through the visibility policy (annotation/visibility/quality.py): no gold figure for
anyone, and none of their own figures, while gold is hidden from them."""
from __future__ import annotations

import json
from datetime import datetime

import pytest
from django.urls import reverse
from django.utils import timezone as dj_timezone

from .conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(world):
    """multi (annotator, adjudicator, researcher, staff) answered the gold item in the open batch, and
    judged the open batch's other post; a quality run stored its report."""
    from annotation.models import Assignment, AssignmentStatus, Judgment
    from annotation.quality import services

    multi, batch, gold = world["multi"], world["batch"], world["gold"]
    now = dj_timezone.now()
    Assignment.objects.create(post_id=gold.post_id, annotator=multi, gold_batch=batch,
                              status=AssignmentStatus.SUBMITTED, assigned_at=now, completed_at=now)
    gold_answer = Judgment.objects.create(post_id=gold.post_id, annotator=multi, explicit=1, implicit=1, emotional=1,
                                          gold=True)
    other = batch.posts.exclude(pk=world["hidden"].pk).first()
    Judgment.objects.create(post=other, annotator=multi, explicit=2, implicit=2, emotional=2)
    services.aggregation_run_now()
    return {**world, "gold_answer": gold_answer}


def epoch(judgment) -> float:
    """A judgment's time as the quality report reads it (the database's epoch seconds: SQLite's julianday
    keeps milliseconds), so a series point and the judgment it stands for compare exactly."""
    from annotation.models import Judgment
    from annotation.quality.selectors import EpochSeconds

    return Judgment.objects.filter(pk=judgment.pk).annotate(t=EpochSeconds("created_at")).values_list("t", flat=True)[0]


def gold_times(answered) -> list[float]:
    """The gold answers' times (epoch seconds) - what must not reach the viewer."""
    from annotation.models import Judgment

    return [epoch(j) for j in Judgment.objects.filter(gold=True)]


def figure_data(response) -> dict:
    """The figures the page draws (what its json_script element holds), as JSON data."""
    return json.loads(json.dumps(response.context["figures"]))


def figure_times(figures: dict) -> list[float]:
    """Every time point the figures plot (their x values are ISO times), as epoch seconds."""
    return [datetime.fromisoformat(x).timestamp() for fig in figures.values() for trace in fig.get("data", [])
            for x in trace.get("x") or []]


def any_near(times: list[float], targets: list[float]) -> bool:
    """Whether one of `times` is one of `targets`, to the database's precision of a judgment's time."""
    return any(abs(t - u) < 1e-5 for t in times for u in targets)  # (ISO times in the figures: microseconds)


def test_the_gold_series_reaches_a_plain_researcher(answered, make_user, api_for):
    """The control: a researcher who does not annotate gets the gold-error series and the gold figure,
    so the checks below can fail."""
    researcher = make_user("plain-researcher", role="researcher")
    detail = api_for(researcher).get(reverse("api:api-quality-annotator", args=[answered["multi"].pk])).json()
    (time,) = detail["series"]["gold_error"]["explicit"][0]  # the gold answer's time, to the database's precision
    assert time == pytest.approx(epoch(answered["gold_answer"]), abs=1e-5)
    page = client_for(researcher).get(reverse("review:quality"))
    assert "gold" in figure_data(page) and any_near(figure_times(figure_data(page)), gold_times(answered))


def test_hole_1_no_gold_series_time_or_count_reaches_someone_who_annotates(answered, api_for):
    multi, alice = answered["multi"], answered["alice"]
    api = api_for(multi)
    near_gold = pytest.approx(epoch(answered["gold_answer"]), abs=1e-5)
    for who in (multi, alice):
        detail = api.get(reverse("api:api-quality-annotator", args=[who.pk])).json()
        assert detail["series"].get("gold_error", {}) == {}, who.username
        assert detail["withheld"]
        if detail["annotator"] is not None:
            assert detail["annotator"]["n_gold"] is None and detail["annotator"]["rank"] is None
            assert {g["n"] for g in detail["annotator"]["gold"].values()} == {None}
    own = api.get(reverse("api:api-quality-annotator", args=[multi.pk])).json()
    assert own["annotator"] is None and own["series"] == {}  # their own figures: none at all
    listing = api.get(reverse("api:api-quality-annotators")).json()
    assert multi.pk not in {row["id"] for row in listing["annotators"]} and listing["n_gold_judgments"] is None
    assert listing["n_judgments"] == sum(row["n_judgments"] for row in listing["annotators"])
    alerts = api.get(reverse("api:api-quality-alerts")).json()
    assert not {a["kind"] for a in alerts} & {"gold_error_rising", "gold_error_high"}
    assert not any(a["since"] == near_gold or a["until"] == near_gold for a in alerts)


@pytest.mark.parametrize("page", ["panel", "alice", "self"])
def test_hole_1_no_gold_figure_reaches_someone_who_annotates(answered, page):
    multi = answered["multi"]
    url = {"panel": reverse("review:quality"),
           "alice": reverse("review:quality-annotator", args=[answered["alice"].pk]),
           "self": reverse("review:quality-annotator", args=[multi.pk])}[page]
    response = client_for(multi).get(url)
    assert response.status_code == 200
    figures = figure_data(response)
    assert "gold" not in figures and not any_near(figure_times(figures), gold_times(answered))
    report = response.context.get("report") or {}
    assert report.get("withheld") or response.context.get("withheld")  # the page says why


def test_hole_1_their_own_list_of_judgments_is_the_one_the_judgments_api_gives(answered, api_for):
    """On their own quality page, the judgments listed are the same set /api/judgments/ lists them,
    gold answer included and unmarked: a list less the gold answers would mark them by subtraction."""
    multi = answered["multi"]
    response = client_for(multi).get(reverse("review:quality-annotator", args=[multi.pk]))
    listed = {r["judgment"].pk for r in response.context["judgments"]}
    api = {row["id"] for row in api_for(multi).get(reverse("api:api-judgments")).json()}
    assert listed == api and answered["gold_answer"].pk in listed
    assert all(r["gold"] is None for r in response.context["judgments"])  # no gold class, no ✓ in the rows
