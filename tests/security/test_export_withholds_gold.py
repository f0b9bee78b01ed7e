"""Issue 30, hole 3: `export_annotator` handed an annotator their gold list while the batch was open -
judgments.json marked gold answers (with post ids and texts) and claims.json the gold batch, while
those items could still be served. An access export withholds what the visibility policy withholds
until the batch is locked (the gold mark; the post id, by which a gold post stands out - the queue
names items by claim), and says so in its manifest."""
from __future__ import annotations

import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def export(username: str, folder) -> dict:
    call_command("export_annotator", username, str(folder), stdout=open("/dev/null", "w"))
    return {p.name: json.loads(p.read_text("utf-8")) for p in folder.iterdir()}


def test_hole_3_an_export_marks_no_gold_of_an_open_batch_and_says_so(world, tmp_path):
    alice, gold_post = world["alice"], world["gold"].post_id
    files = export(alice.username, tmp_path / "open")
    judgments, claims = files["judgments.json"], files["claims.json"]
    assert not any(j["gold"] for j in judgments)
    assert gold_post not in {j["post_id"] for j in judgments} | {c["post"] for c in claims}
    assert all(c["gold_batch"] is None for c in claims)
    # the gold answer is still there - their data - named by its item (claim), as the queue names it
    answer = next(j for j in judgments if j["gold"] is None and j["post_id"] is None and j["explicit"] == 4)
    assert answer["item"] in {c["id"] for c in claims}
    withheld = files["MANIFEST.json"]["withheld"]
    assert withheld["judgments"] >= 2 and withheld["claims"] >= 1 and "locked" in withheld["why"]


def test_hole_3_once_the_batch_is_locked_the_export_is_complete(world, tmp_path):
    from annotation.assignment import services

    services.batch_lock(batch_id=world["batch"].pk)
    files = export(world["alice"].username, tmp_path / "locked")
    gold = [j for j in files["judgments.json"] if j["gold"]]
    assert [j["post_id"] for j in gold] == [world["gold"].post_id]
    assert any(c["gold_batch"] == world["batch"].pk for c in files["claims.json"])
    assert files["MANIFEST.json"]["withheld"] is None
