"""Issue 30 (low): an erasure's audit entry kept the username in its reason ("asked by ann7 by e-mail"),
and the person's real name stayed in their own judgment notes. Both go; the notes and the reason stay."""
from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from django.core.management import call_command

from annotation.models import Judgment, JudgmentRevision

pytestmark = pytest.mark.django_db


def test_erasure_scrubs_the_reason_and_the_real_name_in_own_notes(make_annotators, make_batch):
    (person, other) = make_annotators(2, prefix="linx")
    person.first_name, person.last_name = "小明", "林"
    person.save(update_fields=["first_name", "last_name"])
    batch = make_batch(n_posts=2, annotators=[person, other])
    first, second = batch.posts.order_by("id")
    mine = Judgment.objects.create(post=first, annotator=person, explicit=2, implicit=2, emotional=2,
                                   note="我是林小明，这条很难判断；小明 again")
    JudgmentRevision.objects.create(judgment=mine, changed_by=person, old={"note": "林小明的旧备注"},
                                    new={"note": mine.note})
    theirs = Judgment.objects.create(post=second, annotator=other, explicit=2, implicit=2, emotional=2,
                                     note="同意 林小明")  # someone else's words about them: not their note
    call_command("erase_annotator", person.username, "--reason", f"asked by {person.username} by e-mail",
                 stdout=open("/dev/null", "w"))
    person.refresh_from_db()
    mine.refresh_from_db()
    assert "小明" not in mine.note and "这条很难判断" in mine.note and person.username in mine.note
    revision = JudgmentRevision.objects.get(judgment=mine)
    assert "小明" not in str(revision.old) + str(revision.new)
    entry = LogEntry.objects.filter(additional_data__event="erasure").get()
    note = entry.additional_data["note"]
    assert "linx1" not in note and note == f"asked by {person.username} by e-mail"  # the pseudonymous username
    theirs.refresh_from_db()
    assert theirs.note == "同意 林小明"
