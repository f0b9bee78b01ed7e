"""Issue 12's simulated crowd through the database: six annotators of known quality (careful,
competent, drifting, biased +1, speeder, random clicker) loaded as if they had worked in the app.
The panel ranks them in the designed order, alerts fire for the random clicker and the speeder
(not the careful one), each alert links to the judgments behind it, and the model-based aggregate
recovers the true labels more often than the rounded mean."""
from __future__ import annotations

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse

from annotation.adjudication import rounded_mean
from annotation.models import DIMENSIONS, AggregateLabel, Judgment
from annotation.quality import selectors, services
from annotation.quality.simulated import crowd_load
from annotation.quality.simulation import CROWD, simulate_crowd

pytestmark = pytest.mark.django_db
DESIGNED_ORDER = [a.name for a in CROWD]


@pytest.fixture
def loaded(roles):
    crowd = simulate_crowd(1200, gold_fraction=0.1, seed=0)
    return crowd, crowd_load(crowd)


def test_the_panel_ranks_the_simulated_crowd_and_alerts_on_the_random_clicker_and_the_speeder(loaded, make_user):
    crowd, world = loaded
    report = selectors.quality_report()
    names = {u.pk: u.username.removeprefix("sim-") for u in world.users}
    assert [names[a["id"]] for a in report["annotators"]] == DESIGNED_ORDER
    assert report["n_gold_items"] == len(world.gold_posts)
    assert report["n_gold_judgments"] == len(world.gold_posts) * len(CROWD)
    careful = report["annotators"][0]
    assert all(careful["gold"][d]["n"] == len(world.gold_posts) for d in DIMENSIONS)
    assert all(careful["gold"][d]["within_one"] == 1.0 for d in DIMENSIONS)

    fired = {(names[a["annotator"]], a["kind"]) for a in report["alerts"]}
    assert ("speeder", "speeding") in fired
    assert any(who == "random" and kind == "low_agreement" for who, kind in fired)
    assert not any(who in ("careful", "competent") for who, _ in fired), fired
    assert {who for who, kind in fired if kind == "speeding"} == {"speeder"}
    # Seconds come from the server's claim -> submit times, which the simulation set.
    speeder = next(a for a in report["annotators"] if names[a["id"]] == "speeder")
    assert speeder["median_seconds"] == pytest.approx(2.5, rel=0.2)

    # The panel shows what the newest quality run stored, and the speeder's alert links to exactly
    # the judgments behind it.
    services.aggregation_run_now()
    client = Client()
    client.force_login(make_user("res", role="researcher"))
    body = client.get(reverse("review:quality")).content.decode()
    assert 'data-kind="speeding" data-annotator="sim-speeder"' in body
    alert = next(a for a in report["alerts"] if a["kind"] == "speeding")
    page = client.get(reverse("review:quality-annotator", args=[alert["annotator"]]),
                      {"since": alert["since"], "until": alert["until"]})
    assert page.status_code == 200
    shown = page.context["judgments"]
    window = report["thresholds"]["seconds_window"]
    assert len(shown) == window  # the last 50 measured judgments: every one of them, nothing else
    assert {r["judgment"].annotator_id for r in shown} == {alert["annotator"]}
    assert all(r["seconds"] < 20 for r in shown)


def test_the_model_aggregate_beats_the_rounded_mean_and_skips_gold(loaded):
    crowd, world = loaded
    run = services.aggregation_run_now()
    assert run.status == "succeeded" and selectors.aggregation_is_current(run)
    labels = {a.post_id: a for a in AggregateLabel.objects.all()}
    assert set(labels) == set(world.posts.values()) - set(world.gold_posts)  # gold never gets a label
    index_of = {pk: i for i, pk in world.posts.items()}
    truth = crowd.truth
    model_right, mean_right = np.zeros(3), np.zeros(3)
    judgments = {}
    for post_id, *scores in Judgment.objects.counted().values_list("post_id", *DIMENSIONS):
        judgments.setdefault(post_id, []).append(scores)
    for post_id, label in labels.items():
        i = index_of[post_id]
        for k, d in enumerate(DIMENSIONS):
            model_right[k] += getattr(label, d) == truth[i, k]
            mean_right[k] += rounded_mean([s[k] for s in judgments[post_id]]) == truth[i, k]
    model_accuracy, mean_accuracy = model_right / len(labels), mean_right / len(labels)
    assert (model_accuracy > mean_accuracy + 0.2).all(), (model_accuracy, mean_accuracy)
    assert (model_accuracy > 0.9).all(), model_accuracy
    # Reliability: the model sees the biased annotator's +1 and the random clicker's spam.
    by_name = {u.username.removeprefix("sim-"): str(u.pk) for u in world.users}
    summary = run.summary["annotators"]
    assert all(summary[by_name["biased_up"]][d]["bias"] == pytest.approx(1.0, abs=0.25) for d in DIMENSIONS)
    assert all(summary[by_name["random"]][d]["spam_rate"] > 0.7 for d in DIMENSIONS)
    # A second request with unchanged judgments reuses the fit.
    assert services.aggregation_ensure_current().pk == run.pk


def test_alert_thresholds_are_settings(roles, settings):
    crowd_load(simulate_crowd(300, gold_fraction=0.1, seed=3))
    kinds = {a["kind"] for a in selectors.quality_report()["alerts"]}
    assert "speeding" in kinds
    settings.QUALITY_ALERT_THRESHOLDS = {"seconds_floor": 1.0, "min_alpha": -1.0}
    report = selectors.quality_report()
    assert report["thresholds"]["seconds_floor"] == 1.0
    assert not {a["kind"] for a in report["alerts"]} & {"speeding", "low_agreement"}


def test_pages_compute_nothing_and_the_periodic_run_keeps_the_report_current(roles, make_user, make_annotators,
                                                                             make_batch):
    from annotation.assignment import services as queue
    from annotation.models import AggregationRun

    annotators = make_annotators(3)
    batch = make_batch(n_posts=4, k=3, annotators=annotators)
    client = Client()
    client.force_login(make_user("res", role="researcher"))
    for annotator in annotators[:2]:
        item = queue.assignment_next(annotator=annotator, batch_id=batch.pk)
        queue.judgment_submit(annotator=annotator, post_id=item.post_id, scores={"explicit": 2, "implicit": 2,
                                                                                  "emotional": 2})
    body = client.get(reverse("review:quality")).content.decode()
    assert 'id="no-report"' in body and not AggregationRun.objects.exists()  # a page never computes

    first = services.quality_refresh()
    assert first is not None and first.status == "succeeded"
    assert services.quality_refresh() is None  # nothing changed: no new run
    body = client.get(reverse("review:quality")).content.decode()
    assert 'id="annotators"' in body and 'id="out-of-date"' not in body
    assert {a["username"] for a in first.summary["report"]["annotators"]} == {a.username for a in annotators[:2]}

    item = queue.assignment_next(annotator=annotators[2], batch_id=batch.pk)
    queue.judgment_submit(annotator=annotators[2], post_id=item.post_id, scores={"explicit": 4, "implicit": 4,
                                                                                  "emotional": 4})
    assert 'id="out-of-date"' in client.get(reverse("review:quality")).content.decode()
    second = services.quality_refresh()
    assert second is not None and second.pk != first.pk
    assert len(selectors.report_latest().report["annotators"]) == 3 and selectors.report_latest().current


def _visible_text(html: str) -> str:
    """What a reader sees: no scripts (the figures' JSON), no tags or attributes."""
    import re

    return re.sub(r"<[^>]+>", " ", re.sub(r"<script\b.*?</script>", " ", html, flags=re.S))


def test_alerts_and_dimensions_are_named_in_the_readers_language(roles, make_user):
    """The Chinese panel and annotator page name alert kinds and dimensions in Chinese: no raw
    'speeding' / 'low_agreement' / 'explicit' where a reader sees it (the data-kind attributes stay)."""
    crowd_load(simulate_crowd(300, gold_fraction=0.1, seed=3))
    run = services.aggregation_run_now()
    report = run.summary["report"]
    kinds = {a["kind"] for a in report["alerts"]}
    assert {"speeding", "low_agreement"} <= kinds
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    client.force_login(make_user("res", role="researcher"))
    raw = ("speeding", "low_agreement", "gold_error_rising", "explicit", "implicit", "emotional")

    panel = client.get(reverse("review:quality")).content.decode()
    text = _visible_text(panel)
    assert 'data-kind="speeding"' in panel  # the machine-readable kind is still there
    assert "作答过快" in text and "一致性偏低" in text and "显性偏见" in text
    assert not [word for word in raw if word in text], [word for word in raw if word in text]

    speeder = next(a for a in report["alerts"] if a["kind"] == "speeding")["annotator"]
    low = next(a for a in report["alerts"] if a["kind"] == "low_agreement")["annotator"]
    for annotator_id, expected in ((speeder, "作答过快"), (low, "一致性偏低")):
        page = client.get(reverse("review:quality-annotator", args=[annotator_id])).content.decode()
        text = _visible_text(page)
        assert expected in text and "显性偏见" in text
        assert not [word for word in raw if word in text], [word for word in raw if word in text]
    # The plots' titles are translated too.
    figures = client.get(reverse("review:quality-annotator", args=[speeder])).context["figures"]
    assert "每条帖子用时中位数" in figures["seconds"]["layout"]["title"]["text"]


def test_a_quality_run_alerts_on_the_steadily_biased_annotator_on_every_dimension(loaded, make_user):
    """Issue 20: the model's estimated bias (+1.0) and the gold error that stays high reach the
    stored report and the panel, on all three dimensions, for the biased annotator only."""
    crowd, world = loaded
    services.aggregation_run_now()
    report = selectors.report_latest().report
    names = {u.pk: u.username.removeprefix("sim-") for u in world.users}
    by_kind: dict[str, set] = {}
    for alert in report["alerts"]:
        by_kind.setdefault(alert["kind"], set()).add((names[alert["annotator"]], alert["dimension"]))
    assert by_kind["biased"] == {("biased_up", d) for d in DIMENSIONS}
    assert {("biased_up", d) for d in DIMENSIONS} <= by_kind["gold_error_high"]
    assert not any(who in ("careful", "competent") for pairs in by_kind.values() for who, _ in pairs)
    client = Client()
    client.force_login(make_user("res", role="researcher"))
    body = client.get(reverse("review:quality")).content.decode()
    assert 'data-kind="biased" data-annotator="sim-biased_up"' in body
    assert 'data-kind="gold_error_high" data-annotator="sim-biased_up"' in body
