"""The researchers' quality API on a simulated crowd: per-annotator figures (ranked), one annotator's
series, alerts, aggregates beside the rounded mean (and only the disagreeing ones when asked), the
aggregation runs, gold items and each batch's gold rate and qualification settings. The panel's
numbers and the API's are the same stored report."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.adjudication.rounding import round_half_up
from annotation.models import DIMENSIONS, AggregateLabel, AggregationRun, GoldItem, Judgment
from annotation.quality import services
from annotation.quality.simulated import crowd_load
from annotation.quality.simulation import CROWD, simulate_crowd

pytestmark = pytest.mark.django_db
DESIGNED_ORDER = [f"sim-{a.name}" for a in CROWD]


@pytest.fixture
def world(roles, make_user, api_for):
    loaded = crowd_load(simulate_crowd(300, gold_fraction=0.1, seed=3))
    return loaded, api_for(make_user("res", role="researcher"))


def test_before_the_first_run_the_report_is_empty_and_says_so(world):
    _, api = world
    body = api.get(reverse("api:api-quality-annotators")).json()
    assert body["annotators"] == [] and body["computed_at"] is None and body["current"] is False
    assert body["thresholds"]["seconds_floor"] == 5.0
    assert api.get(reverse("api:api-quality-alerts")).json() == []
    assert api.get(reverse("api:api-quality-aggregation")).json()["latest"] is None


def test_annotator_figures_alerts_and_series(world):
    loaded, api = world
    services.aggregation_run_now()
    body = api.get(reverse("api:api-quality-annotators")).json()
    assert body["current"] is True and body["computed_at"]
    assert [a["username"] for a in body["annotators"]] == DESIGNED_ORDER
    assert body["n_gold_items"] == len(loaded.gold_posts)
    assert body["n_gold_judgments"] == len(loaded.gold_posts) * len(CROWD)
    assert body["n_judgments"] == Judgment.objects.counted().count()
    careful, random = body["annotators"][0], body["annotators"][-1]
    for d in DIMENSIONS:
        assert careful["gold"][d]["n"] == len(loaded.gold_posts) and careful["gold"][d]["within_one"] == 1.0
        assert careful["reliability"][d]["expected_abs_error"] < random["reliability"][d]["expected_abs_error"]
        assert random["reliability"][d]["spam_rate"] > 0.5

    alerts = api.get(reverse("api:api-quality-alerts")).json()
    speeding = [a for a in alerts if a["kind"] == "speeding"]
    assert [a["username"] for a in speeding] == ["sim-speeder"]
    assert speeding[0]["value"] < speeding[0]["threshold"] and speeding[0]["since"] < speeding[0]["until"]
    assert not {a["username"] for a in alerts} & {"sim-careful", "sim-competent"}

    speeder = next(u for u in loaded.users if u.username == "sim-speeder")
    detail = api.get(reverse("api:api-quality-annotator", args=[speeder.pk])).json()
    assert detail["annotator"]["username"] == "sim-speeder" and detail["annotator"]["rank"] == 5
    times, values = detail["series"]["seconds"]
    assert len(times) == len(values) > 0 and values[-1] < 5.0
    assert set(detail["series"]["alpha"]) == set(DIMENSIONS)
    assert api.get(reverse("api:api-quality-annotator", args=[10**6])).status_code == 404


def test_aggregates_beside_the_rounded_mean_and_the_disagreeing_ones(world):
    loaded, api = world
    run = services.aggregation_run_now()
    rows = api.get(reverse("api:api-quality-aggregates")).json()
    assert len(rows) == AggregateLabel.objects.count() == len(loaded.posts) - len(loaded.gold_posts)
    assert not {r["post"] for r in rows} & set(loaded.gold_posts)
    row = rows[0]
    judged = list(Judgment.objects.counted().filter(post_id=row["post"]).values_list(*DIMENSIONS))
    for k, d in enumerate(DIMENSIONS):
        assert row["rounded_mean"][d] == round_half_up(sum(j[k] for j in judged) / len(judged))
        assert 0 < row["confidence"][d] <= 1
    for r in rows:
        assert r["disagrees"] == any(r["aggregate"][d] != r["rounded_mean"][d] for d in DIMENSIONS)
    disagreeing = api.get(reverse("api:api-quality-aggregates"), {"disagreeing": "1"}).json()
    assert [r["post"] for r in disagreeing] == [r["post"] for r in rows if r["disagrees"]]
    assert 0 < len(disagreeing) < len(rows)
    page = api.get(reverse("api:api-quality-aggregates"), {"limit": 10, "offset": 5}).json()
    assert [r["post"] for r in page] == [r["post"] for r in rows[5:15]]

    state = api.get(reverse("api:api-quality-aggregation")).json()
    assert state["latest"]["id"] == run.pk and state["current"] is True and state["pending"] is None


def test_requesting_a_run_answers_202_and_queues_it(world, django_capture_on_commit_callbacks):
    _, api = world
    with django_capture_on_commit_callbacks(execute=True):  # the task is sent on commit; tests run it eagerly
        response = api.post(reverse("api:api-quality-aggregation"))
    assert response.status_code == 202
    run = AggregationRun.objects.get(pk=response.json()["id"])
    assert run.status == "succeeded" and AggregateLabel.objects.filter(run=run).exists()


def test_gold_items_and_batch_settings_through_the_api(world):
    loaded, api = world
    rows = [{"text": f"接口上传的金标准帖子 {i}", "explicit": 1 + i, "implicit": 2, "emotional": 3} for i in range(3)]
    response = api.post(reverse("api:api-quality-gold"), {"source": "upload", "rows": rows}, format="json")
    assert response.status_code == 201
    made = response.json()
    assert [(g["text"], g["explicit"], g["source"]) for g in made] == [(r["text"], r["explicit"], "upload") for r in rows]
    listed = api.get(reverse("api:api-quality-gold"), {"limit": 500}).json()
    assert len(listed) == GoldItem.objects.count() == len(loaded.gold_posts) + 3
    again = api.post(reverse("api:api-quality-gold"), {"source": "upload", "rows": rows[:1]}, format="json")
    assert again.status_code == 409  # already gold
    missing = api.post(reverse("api:api-quality-gold"), {"source": "adjudicated"}, format="json")
    assert missing.status_code == 400 and "posts" in missing.json()

    url = reverse("api:api-quality-batch", args=[loaded.batch.pk])
    assert api.get(url).json() == {"gold_rate": 0.0, "qualification_required": False, "qualification_posts": [],
                                   "pass_max_mae": {d: 0.75 for d in DIMENSIONS}}
    chosen = sorted(g["post"] for g in made)
    response = api.patch(url, {"gold_rate": 0.2, "qualification_required": True, "qualification_posts": chosen,
                               "pass_max_mae": {"explicit": 0.5, "implicit": None, "emotional": None}}, format="json")
    assert response.status_code == 200
    assert api.get(url).json() == {"gold_rate": 0.2, "qualification_required": True, "qualification_posts": chosen,
                                   "pass_max_mae": {"explicit": 0.5, "implicit": 0.75, "emotional": 0.75}}
    assert api.patch(url, {"gold_rate": 0.9}, format="json").status_code == 400
    assert api.patch(url, {"qualification_posts": [loaded.posts[0] if loaded.posts[0] not in loaded.gold_posts
                                                   else loaded.posts[1]]}, format="json").status_code == 400
    assert api.get(url).json()["gold_rate"] == 0.2  # refused changes left it as it was
    assert api.get(reverse("api:api-quality-batch", args=[10**6])).status_code == 404
