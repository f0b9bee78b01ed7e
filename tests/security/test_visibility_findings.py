"""Issue 20's blindness findings 1, 2 and 3, and issue 22's diff.json: a person who annotates an open
batch and also adjudicates and researches sees nothing of the post still waiting in their queue; a
plain researcher still sees what they saw (so each test can fail). Findings 6 and 12 have their own
files."""
from __future__ import annotations

import io

import pytest
from django.urls import reverse

from annotation.models import Judgment

from .conftest import HIDDEN_EXTERNAL_ID, HIDDEN_TEXT, body_of, client_for

pytestmark = pytest.mark.django_db


def test_finding_1_the_per_annotator_quality_page_lists_no_judgment_of_a_hidden_post(world, make_user):
    url = reverse("review:quality-annotator", args=[world["alice"].pk])
    researcher = client_for(make_user("plain-researcher", role="researcher"))
    assert HIDDEN_TEXT in researcher.get(url).content.decode()  # alice's judgment of it is on the page
    body = client_for(world["multi"]).get(url).content.decode()
    assert HIDDEN_TEXT not in body and f"#{world['hidden'].pk} " not in body
    # once multi has judged it, it is theirs to see
    Judgment.objects.create(post=world["hidden"], annotator=world["multi"], explicit=1, implicit=1, emotional=1)
    assert HIDDEN_TEXT in client_for(world["multi"]).get(url).content.decode()


def test_finding_2_the_aggregates_api_has_no_row_of_a_hidden_post(world, make_user, api_for):
    url = reverse("api:api-quality-aggregates")
    researcher = api_for(make_user("plain-researcher", role="researcher"))
    assert world["hidden"].pk in [row["post"] for row in researcher.get(url).json()]
    for query in ("", "?disagreeing=1", "?limit=1"):
        rows = api_for(world["multi"]).get(url + query).json()
        assert world["hidden"].pk not in [row["post"] for row in rows], query


def _parquet_ids(data: bytes) -> set[str]:
    import pyarrow.parquet as pq

    return set(pq.read_table(io.BytesIO(data)).column("id").to_pylist())


def test_finding_3_release_files_are_served_by_what_they_hold_parquet_and_diff_included(world, make_user):
    from annotation.assignment.services import batch_lock

    release = world["release"]
    multi = client_for(world["multi"])
    researcher = client_for(make_user("plain-researcher", role="researcher"))
    holding, cards = [], []
    for name in sorted(release.manifest):
        url = reverse("review:release-file", args=[release.number, name])
        full = body_of(researcher.get(url))
        mentions = HIDDEN_EXTERNAL_ID.encode() in full or HIDDEN_TEXT.encode() in full
        if name.endswith(".parquet"):
            mentions = HIDDEN_EXTERNAL_ID in _parquet_ids(full)  # compressed: read it, do not grep it
        response = multi.get(url)
        if mentions:
            holding.append(name)
            assert response.status_code == 403, name
            assert b"still waiting in your annotation queue" in body_of(response), name
        elif name in ("DATACARD.md", "README.md"):
            # issue 30: a data card goes with the diff and data it describes (its distributions count the
            # hidden post's label), so it is refused while they are
            cards.append(name)
            assert response.status_code == 403, name
        elif name != "gold.csv":
            assert response.status_code == 200, name
    # every file that names the post is refused, whatever its name or format
    assert {"release.csv", "release.jsonl", "judgments.csv", "split.csv", "diff.json"} <= set(holding)
    assert any(name.endswith(".parquet") for name in holding)
    assert "DATACARD.md" not in holding
    batch_lock(batch_id=world["batch"].pk)  # the batch locks: nothing is hidden any more
    for name in holding + cards:
        assert multi.get(reverse("review:release-file", args=[release.number, name])).status_code == 200, name


def test_issue_22_diff_json_is_refused_while_it_names_a_hidden_post(world):
    release = world["release"]
    response = client_for(world["multi"]).get(reverse("review:release-file", args=[release.number, "diff.json"]))
    assert HIDDEN_EXTERNAL_ID in release.diff["added_ids"]
    assert response.status_code == 403 and HIDDEN_EXTERNAL_ID.encode() not in body_of(response)


def test_an_unreadable_file_is_refused_to_someone_with_hidden_posts_only():
    from annotation.visibility.files import read_contents

    assert read_contents(b"PAR1 not really parquet PAR1") is None
    assert read_contents(b"\xff\xfe\x00binary") is None
    assert read_contents("id,split\r\nhp-1,train\r\n".encode()).mentions(keys={"hp-1"}, texts=())
    assert not read_contents(b"# card\n\n| explicit | 1 |\n").mentions(keys={"hp-1"}, texts={"x y"})
    assert read_contents(b"# card\n\nremoved: hp-1.\n").mentions(keys={"hp-1"}, texts=())
    assert not read_contents(b"# card\n\nremoved: hp-10, x.hp-1.\n").mentions(keys={"hp-1"}, texts=())


def test_an_unknown_file_format_is_refused_to_a_person_with_a_hidden_post(world, make_user):
    from annotation.visibility import file_refusal

    blob = b"\x89PNG\r\n\x1a\n\x00\x00binary"
    assert file_refusal(world["multi"], blob) is not None
    assert file_refusal(make_user("plain-researcher", role="researcher"), blob) is None


def test_a_log_of_actions_shows_no_entry_about_a_hidden_post_or_gold_to_someone_who_annotates(world, make_user):
    """log_entries_visible_to, on Django's admin log (an audit log has the same two fields)."""
    from django.contrib.admin.models import ADDITION, LogEntry
    from django.contrib.contenttypes.models import ContentType

    from annotation.models import FinalLabel, Judgment, Post
    from annotation.visibility import log_entries_visible_to

    def log(obj):
        return LogEntry.objects.create(user=world["adjudicator"], action_flag=ADDITION, object_repr=str(obj)[:200],
                                       content_type=ContentType.objects.get_for_model(obj), object_id=str(obj.pk))

    about_hidden = [log(world["hidden"]), log(FinalLabel.objects.get(post=world["hidden"])), log(world["judgments"][0])]
    about_gold = [log(world["gold"]), log(Judgment.objects.get(gold=True))]
    other = log(Post.objects.exclude(pk__in=[world["hidden"].pk, world["gold"].post_id]).first())
    everything = set(LogEntry.objects.all())
    assert set(log_entries_visible_to(make_user("plain-researcher", role="researcher"), LogEntry.objects.all())) == everything
    assert set(log_entries_visible_to(world["multi"], LogEntry.objects.all())) == {other}
    assert set(log_entries_visible_to(world["multi"], LogEntry.objects.all())).isdisjoint(about_hidden + about_gold)
