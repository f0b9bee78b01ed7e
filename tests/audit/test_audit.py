"""Issue 22, audit log: privileged actions are recorded (who, when, what, before/after) with
django-auditlog, and researchers read them on a filterable page in both languages."""
from __future__ import annotations

import pytest
from auditlog.models import LogEntry

from annotation.adjudication import services as adjudication_services
from annotation.models import Judgment, WorkbenchSettings
from annotation.quality import services as quality_services
from annotation.releases import services as release_services
from audit import selectors
from modeling.models import LexiconTerm

pytestmark = pytest.mark.django_db


def _kind(kind: str):
    return list(selectors.entries(selectors.AuditFilter(kind=kind)))


def _judged_post(make_annotators, make_batch, rows):
    annotators = make_annotators(len(rows))
    post = make_batch(n_posts=1, annotators=annotators).posts.get()
    for who, (e, i, m) in zip(annotators, rows):
        Judgment.objects.create(post=post, annotator=who, explicit=e, implicit=i, emotional=m)
    return post


def test_settings_change_in_the_admin_is_recorded_with_who_and_before_after(make_user, client):
    researcher = make_user("res", role="researcher", is_staff=True, is_superuser=True)
    client.force_login(researcher)
    WorkbenchSettings.current().save()
    answer = client.post("/admin/annotation/workbenchsettings/1/change/", {
        "adjudication_span": 3, "final_label_method": "rounded_mean", "show_annotator_names_to_adjudicators": "on"})
    assert answer.status_code == 302, answer.content[:500]
    entry = next(e for e in _kind("settings") if e.actor_id == researcher.pk)
    assert entry.changes_dict["adjudication_span"] == ["2", "3"]
    assert entry.changes_dict["show_annotator_names_to_adjudicators"] == ["False", "True"]
    assert entry.remote_addr is None  # no IP addresses kept


def test_role_changes_are_recorded_without_name_email_or_password(make_user, roles, client):
    researcher = make_user("res", role="researcher", is_staff=True, is_superuser=True)
    target = make_user("promoted", email="promoted@example.org")
    client.force_login(researcher)
    answer = client.post(f"/admin/auth/user/{target.pk}/change/", {
        "username": "promoted", "email": "promoted@example.org", "is_active": "on", "groups": [roles["adjudicator"].pk],
        "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00", "initial-date_joined_0": "2026-01-01",
        "initial-date_joined_1": "00:00:00"})
    assert answer.status_code == 302, answer.content[:800]
    role = [e for e in _kind("role") if e.object_pk == str(target.pk) and e.actor_id == researcher.pk]
    assert role and role[-1].changes_dict["groups"]["objects"] == ["adjudicator"]
    assert all("promoted@example.org" not in str(e.changes) and "pbkdf2" not in str(e.changes)
               for e in LogEntry.objects.all())


def test_adjudication_release_gold_lexicon_and_reset_are_recorded(make_annotators, make_batch, make_user, settings,
                                                                  tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    adjudicator = make_user("judge", role="adjudicator")
    post = _judged_post(make_annotators, make_batch, [(1, 1, 1), (4, 4, 4), (2, 2, 2)])
    adjudication_services.post_adjudicate(adjudicator=adjudicator, post_id=post.pk, rationale="slur",
                                          scores={"explicit": 4, "implicit": 3, "emotional": 4}, expected_version=0)
    (adjudicated,) = _kind("adjudication")
    assert adjudicated.changes_dict["explicit"] == ["None", "4"] and adjudicated.action == LogEntry.Action.CREATE

    researcher = make_user("res", role="researcher")
    release_services.release_publish(created_by=researcher, bootstrap=0)
    assert len(_kind("release")) == 1

    post.batch.locked_at = post.batch.created_at
    post.batch.save(update_fields=["locked_at"])
    quality_services.gold_mark_from_adjudicated(post_ids=[post.pk], created_by=researcher)
    quality_services.gold_set_active(post_ids=[post.pk], active=False, by=researcher)
    gold = _kind("gold")
    assert [(e.actor_id, e.action) for e in reversed(gold)] == [(researcher.pk, LogEntry.Action.CREATE),
                                                               (researcher.pk, LogEntry.Action.UPDATE)]
    assert gold[0].changes_dict == {"active": ["True", "False"]}

    term = LexiconTerm.objects.create(term="审计测试词甲")
    term.active = False
    term.save()
    assert [e.action for e in reversed(_kind("lexicon"))] == [LogEntry.Action.CREATE, LogEntry.Action.UPDATE]


def test_the_page_filters_and_speaks_both_languages(make_user, client):
    researcher = make_user("res", role="researcher")
    annotator = make_user("ann", role="annotator")
    LexiconTerm.objects.create(term="审计测试词乙")
    WorkbenchSettings.objects.create(pk=1, adjudication_span=3)
    client.force_login(annotator)
    assert client.get("/audit/").status_code == 403
    client.force_login(researcher)
    page = client.get("/audit/?kind=lexicon", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "审计日志" in page and "审计测试词乙" in page and 'data-kind="lexicon"' in page and 'data-kind="settings"' not in page
    english = client.get("/audit/?kind=settings&actor=-", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Audit log" in english and 'data-kind="settings"' in english and "审计测试词乙" not in english
    assert 'data-kind' not in client.get("/audit/?actor=res").content.decode().split("<tbody>")[1].split("</tbody>")[0]


def test_a_qualification_reset_is_recorded_and_an_attempt_is_not(make_annotators, make_batch, make_user):
    from annotation.importing.parsers import sha256_text
    from annotation.models import GoldItem, GoldSource, Post

    (newcomer,) = make_annotators(1, prefix="newcomer")
    batch = make_batch(n_posts=2, annotators=[newcomer])
    post = Post.objects.create(text="资格测试帖子", raw_text="资格测试帖子", text_sha256=sha256_text("资格测试帖子"))
    gold = GoldItem.objects.create(post=post, source=GoldSource.UPLOAD, explicit=1, implicit=1, emotional=1)
    quality_services.batch_quality_set(batch_id=batch.pk, qualification_required=True,
                                       qualification_post_ids=[gold.post_id])
    quality_services.qualification_submit(annotator=newcomer, batch_id=batch.pk,
                                          answers={post.pk: {"explicit": 5, "implicit": 5, "emotional": 5}})
    assert _kind("qualification_reset") == []  # an annotator's attempt is no privileged action
    researcher = make_user("res", role="researcher")
    other = Post.objects.create(text="资格测试帖子二", raw_text="资格测试帖子二", text_sha256=sha256_text("资格测试帖子二"))
    GoldItem.objects.create(post=other, source=GoldSource.UPLOAD, explicit=2, implicit=2, emotional=2)
    quality_services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[other.pk])  # a set not yet seen
    quality_services.qualification_reset(batch_id=batch.pk, annotator_id=newcomer.pk, reset_by=researcher)
    (entry,) = _kind("qualification_reset")
    assert entry.action == LogEntry.Action.UPDATE and entry.changes_dict["reset_by"] == ["None", "res"]
