"""Issue 30 (low): the audit log missed batch locks, and a takedown recorded on the command line without
--user was logged as "system". A lock is recorded with who locked it; the command line is a named actor
(the inactive `command-line` account) and the entry keeps the operating-system user who ran it."""
from __future__ import annotations

import getpass

import pytest
from auditlog.models import LogEntry
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Batch

pytestmark = pytest.mark.django_db


def test_a_batch_lock_is_in_the_audit_log_with_who_locked_it(make_batch, make_user, client):
    batch = make_batch(n_posts=1, name="to-lock")
    root = make_user("root", is_staff=True, is_superuser=True)
    client.force_login(root)
    client.post(reverse("admin:annotation_batch_changelist"), {"action": "lock", "_selected_action": [batch.pk]})
    assert Batch.objects.get(pk=batch.pk).locked_at is not None
    entry = LogEntry.objects.get(additional_data__event="batch", object_pk=str(batch.pk))
    assert entry.actor == root and "locked_at" in entry.changes
    page = client.get(reverse("audit:log"))
    (row,) = [r for r in page.context["rows"] if r["entry"].pk == entry.pk]
    assert str(row["kind"]) == "Batch lock"


def test_a_command_line_takedown_names_the_command_line_and_the_os_user(make_batch):
    from publication.rewrite_models import Takedown

    post = make_batch(n_posts=1, name="td").posts.get()
    call_command("takedown", "--post", str(post.pk), "--reason", "the author asked", stdout=open("/dev/null", "w"))
    takedown = Takedown.objects.get(post=post)
    entry = LogEntry.objects.get(content_type__model="takedown", object_pk=str(takedown.pk))
    assert entry.actor is not None and entry.actor.username == "command-line"
    assert entry.additional_data["via"] == "command line" and entry.additional_data["os_user"] == getpass.getuser()
    actor = takedown.requested_by
    assert actor == entry.actor and not actor.is_active and not actor.has_usable_password()
    assert not actor.groups.exists() and not actor.is_staff
