"""Issue 22, data rights: erase_annotator leaves no trace of the person's username or e-mail in any
table (every table read raw, sessions decoded), while their judgments, agreement and the release
content stay exactly as they were; export_annotator writes everything held about one annotator."""
from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.authtoken.models import Token

from annotation.agreement.selectors import agreement_report
from annotation.assignment import services as assignment_services
from annotation.models import AnnotatorProfile, Judgment
from annotation.quality import services as quality_services
from annotation.releases import services as release_services
from annotation.services import annotator_ensure
from audit import selectors as audit_selectors
from wellbeing import services as wellbeing_services
from wellbeing.models import BatchWellbeing

pytestmark = pytest.mark.django_db
USERNAME, EMAIL = "zhang-erase-me", "zhang.erase.me@example.org"


def traces(*needles: str) -> list[str]:
    """Every (table, column) of the database whose value contains one of `needles`: all tables,
    read raw; session data decoded; JSON escapes undone."""
    found = []
    forms = {n for needle in needles for n in (needle, json.dumps(needle)[1:-1])}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            columns = [c[0] for c in cursor.description]
            for row in cursor.fetchall():
                for column, value in zip(columns, row):
                    text = bytes(value).decode("utf-8", "replace") if isinstance(value, (bytes, memoryview)) \
                        else str(value)
                    if table == Session._meta.db_table and column == "session_data":
                        text = json.dumps(SessionStore().decode(text))
                    if any(form in text for form in forms):
                        found.append(f"{table}.{column}")
    return found


@pytest.fixture
def campaign(make_annotators, make_batch, make_user, roles, client, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    person = annotator_ensure(username=USERNAME, password="pw-for-tests-1", community_member=True)
    person.first_name, person.last_name, person.email = "明", "张", EMAIL
    person.save()
    others = make_annotators(3)
    batch = make_batch(n_posts=4, k=4, annotators=[person, *others])
    BatchWellbeing.objects.create(batch=batch)
    wellbeing_services.notice_accept(annotator=person, batch_id=batch.pk)
    for offset, who in enumerate([person, *others]):
        for _ in range(4):
            claim = assignment_services.assignment_next(annotator=who, batch_id=batch.pk)
            assignment_services.judgment_submit(annotator=who, claim_id=claim.pk, seconds_spent=12.0,
                                                scores={"explicit": 1 + (claim.post_id + offset) % 5,
                                                        "implicit": 1 + claim.post_id % 5, "emotional": 3})
    judgment = Judgment.objects.filter(annotator=person).first()
    assignment_services.judgment_revise(annotator=person, judgment_id=judgment.pk, scores={"emotional": 4},
                                        note="我改了主意")
    # Their own session and API token; a role change by a researcher in the admin (audited: the
    # entry names the account); the quality report, which lists annotators by username.
    client.force_login(person)
    Token.objects.create(user=person)
    researcher = make_user("res", role="researcher", is_staff=True, is_superuser=True)
    admin = type(client)()
    admin.force_login(researcher)
    answer = admin.post(f"/admin/auth/user/{person.pk}/change/", {
        "username": USERNAME, "email": EMAIL, "first_name": "明", "last_name": "张", "is_active": "on",
        "groups": [roles["annotator"].pk, roles["adjudicator"].pk], "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00", "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"})
    assert answer.status_code == 302, answer.content[:600]
    quality_services.aggregation_run_now()
    release = release_services.release_publish(created_by=researcher, bootstrap=0)
    return person, researcher, release


def test_erase_leaves_no_trace_and_changes_no_figure(campaign, tmp_path):
    person, researcher, release = campaign
    assert {"auditlog_logentry.object_repr", "auth_user.username", "auth_user.email"} <= set(traces(USERNAME, EMAIL))
    judgments = Judgment.objects.count()
    alpha = {d: e["alpha"] for d, e in agreement_report(with_trend=False)["dimensions"].items()}
    pseudonym = AnnotatorProfile.objects.get(user=person).pseudonym

    call_command("erase_annotator", USERNAME, "--reason", "request #7")

    assert traces(USERNAME, EMAIL) == []
    person.refresh_from_db()
    assert person.username == f"erased-{pseudonym}" and not person.is_active and not person.has_usable_password()
    assert (person.first_name, person.last_name, person.email) == ("", "", "")
    profile = AnnotatorProfile.objects.get(user=person)
    assert profile.community_member is None and profile.pseudonym == pseudonym
    signed_in = [s.get_decoded().get("_auth_user_id") for s in Session.objects.all()]
    assert str(researcher.pk) in signed_in and str(person.pk) not in signed_in  # only their sessions went
    assert not Token.objects.filter(user=person).exists()
    assert Judgment.objects.count() == judgments and Judgment.objects.filter(annotator=person).count() == 4
    assert {d: e["alpha"] for d, e in agreement_report(with_trend=False)["dimensions"].items()} == alpha
    with pytest.raises(release_services.ReleaseUnchanged):  # the same data: the same content hash
        release_services.release_publish(created_by=researcher, bootstrap=0)
    again = release_services.release_publish(created_by=researcher, bootstrap=0, force=True)
    assert again.content_hash == release.content_hash
    # The request is logged (who, when, the pseudonym, the reason; never the old name).
    (entry,) = audit_selectors.entries(audit_selectors.AuditFilter(kind="erasure"))
    assert entry.additional_data["note"] == "request #7" and entry.object_repr == person.username
    with pytest.raises(CommandError, match="already erased"):
        call_command("erase_annotator", person.username)
    with pytest.raises(CommandError, match="No user"):
        call_command("erase_annotator", "nobody-here")


def test_the_admin_action_erases(campaign, client):
    person, researcher, _release = campaign
    client.force_login(researcher)
    answer = client.post("/admin/auth/user/", {"action": "erase_annotators", "_selected_action": [person.pk]})
    assert answer.status_code == 302
    person.refresh_from_db()
    assert person.username.startswith("erased-") and traces(USERNAME, EMAIL) == []
    (entry,) = audit_selectors.entries(audit_selectors.AuditFilter(kind="erasure"))
    assert entry.actor_id == researcher.pk


def test_export_holds_everything_about_the_annotator(campaign, tmp_path):
    person, _researcher, _release = campaign
    out = tmp_path / "export"
    call_command("export_annotator", USERNAME, str(out))
    files = {p.name: json.loads(p.read_text("utf-8")) for p in out.iterdir()}
    assert set(files) == {"profile.json", "judgments.json", "revisions.json", "claims.json", "qualification.json",
                          "wellbeing.json", "audit.json", "adjudications.json", "rewrites.json", "MANIFEST.json"}
    account = files["profile.json"]["account"]
    assert (account["username"], account["email"], account["last_name"]) == (USERNAME, EMAIL, "张")
    assert "pbkdf2" not in json.dumps(files) and "md5$" not in json.dumps(files)  # never the password hash
    assert files["profile.json"]["annotator_profile"]["community_member"] is True
    assert len(files["judgments.json"]) == 4 and len(files["claims.json"]) == 4
    assert files["revisions.json"][0]["new"]["note"] == "我改了主意"
    assert files["wellbeing.json"]["notice_acceptances"][0]["batch"] and files["wellbeing.json"]["exposure_per_day"]
    assert any(e["changes"].get("groups") for e in files["audit.json"])  # the role change about them
    with pytest.raises(CommandError, match="not an empty folder"):
        call_command("export_annotator", USERNAME, str(out))
    assert get_user_model().objects.filter(username=USERNAME).exists()  # exporting changes nothing
