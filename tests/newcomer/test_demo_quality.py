"""On the demo, the quality page shows what it is for: realistic reading times, a few gold items
served among the open batch's posts, and exactly two annotators flagged - the planted speeder and
the planted drifter - where every demo annotator used to be flagged as a speeder (0 s per post)."""
from __future__ import annotations

import pytest
from annotation.demo import DRIFTER, SPEEDER, seed_demo
from annotation.quality import selectors
from chlgbt_site.celery import tasks_inline

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_demo_quality_page_flags_only_the_planted_speeder_and_drifter(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    with tasks_inline():
        seed_demo()
    stored = selectors.report_latest()
    assert stored is not None and stored.current  # the page has its report at once, no wait for the beat
    report = stored.report
    flagged = {alert["username"]: set() for alert in report["alerts"]}
    for alert in report["alerts"]:
        flagged[alert["username"]].add(alert["kind"])
    assert set(flagged) == {f"annotator{SPEEDER}", f"annotator{DRIFTER}"}
    assert flagged[f"annotator{SPEEDER}"] == {"speeding"}
    assert flagged[f"annotator{DRIFTER}"] & {"low_agreement", "biased", "gold_error_rising"}

    people = {a["username"]: a for a in report["annotators"]}
    assert people[f"annotator{SPEEDER}"]["median_seconds"] < settings.QUALITY_ALERT_THRESHOLDS.get("seconds_floor", 5)
    assert all(a["median_seconds"] >= 8 for name, a in people.items() if name != f"annotator{SPEEDER}")
    assert 0 < sum(a["n_gold"] for a in people.values()) <= 5 * 6  # a few gold items were served

