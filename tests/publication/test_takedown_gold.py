"""A taken-down post leaves every file of every future release - gold.csv included, the one file
of an internal release that lists posts apart from the labelled data (issue 21, item 6)."""
from __future__ import annotations

import pytest

from annotation.importing.services import import_posts
from annotation.models import GoldItem, GoldSource, Post
from annotation.releases.selectors import release_file_bytes
from annotation.releases.services import release_publish
from publication.takedowns import takedown_record

from .test_public_release import labelled_csv

pytestmark = pytest.mark.django_db


def test_a_taken_down_gold_item_leaves_gold_csv_of_the_next_release(rewriters, media):
    import_posts(labelled_csv(), with_labels=True)
    victim, kept = Post.objects.order_by("pk")[:2]
    for post in (victim, kept):
        GoldItem.objects.create(post=post, explicit=1, implicit=1, emotional=1, source=GoldSource.UPLOAD)
    before = release_publish(bootstrap=0, include_gold=True)
    assert victim.text in release_file_bytes(before, "gold.csv").decode()  # the check below can fail
    takedown_record(post=victim, reason="the author asked")
    after = release_publish(bootstrap=0, include_gold=True)
    gold = release_file_bytes(after, "gold.csv").decode()
    assert kept.text in gold
    assert victim.text not in gold and victim.raw_text not in gold
    for name in after.manifest:
        assert victim.text.encode() not in release_file_bytes(after, name), name
