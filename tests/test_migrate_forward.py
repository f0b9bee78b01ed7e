"""An existing database migrates forward without loss: a database populated at the schema of
commit 8b1da15 (before the restructuring) is migrated to the current head, and every row of every
table - counts and a hash of every column that existed before - is unchanged."""
from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

# The last migration of each app at commit 8b1da15.
BEFORE = [("annotation", "0004_job_status_shared"), ("modeling", "0002_seed_lexicon"),
          ("calibration", "0002_job_status_shared")]
CHECKED = [("auth", "group"), ("auth", "user"), ("annotation", "annotatorprofile"), ("annotation", "guideline"),
           ("annotation", "batch"), ("annotation", "post"), ("annotation", "assignment"), ("annotation", "judgment"),
           ("annotation", "judgmentrevision"), ("annotation", "finallabel"), ("annotation", "workbenchsettings"),
           ("annotation", "agreementreport"), ("annotation", "release"), ("modeling", "lexiconterm"),
           ("modeling", "trainingrun"), ("modeling", "scoringjob"), ("modeling", "prediction"),
           ("calibration", "priorsnapshot"), ("calibration", "rebuildrequest")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def head_targets():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def fingerprint(apps) -> dict[str, tuple[int, str, list[str]]]:
    """Per table: row count, sha256 of every row's columns (by primary key), the columns hashed."""
    out = {}
    for app_label, model_name in CHECKED:
        model = apps.get_model(app_label, model_name)
        columns = sorted(f.attname for f in model._meta.concrete_fields)
        rows = list(model.objects.order_by("pk").values_list(*columns))
        digest = hashlib.sha256(json.dumps(rows, default=str, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        out[model._meta.db_table] = (len(rows), digest, columns)
    return out


def fingerprint_of_columns(apps, before: dict) -> dict[str, tuple[int, str, list[str]]]:
    """The same fingerprint after migrating, over the columns that existed before."""
    out = {}
    for app_label, model_name in CHECKED:
        model = apps.get_model(app_label, model_name)
        columns = before[model._meta.db_table][2]
        rows = list(model.objects.order_by("pk").values_list(*columns))
        digest = hashlib.sha256(json.dumps(rows, default=str, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        out[model._meta.db_table] = (len(rows), digest, columns)
    return out


def populate(apps) -> None:
    """A small but complete workbench: every table of the old schema has rows."""
    now = timezone.now()
    Group, User = apps.get_model("auth", "Group"), apps.get_model("auth", "User")
    M = {name: apps.get_model("annotation", name) for name in (
        "AnnotatorProfile", "Guideline", "Batch", "Post", "Assignment", "Judgment", "JudgmentRevision", "FinalLabel",
        "WorkbenchSettings", "AgreementReport", "Release")}
    annotators_group = Group.objects.get_or_create(name="annotator")[0]
    Group.objects.get_or_create(name="adjudicator")
    researcher = User.objects.create(username="researcher", password="!", is_staff=True)
    annotators = []
    for i in range(3):
        user = User.objects.create(username=f"ann{i}", password="!")
        user.groups.add(annotators_group)
        M["AnnotatorProfile"].objects.create(user=user, pseudonym=f"A-{i:06d}", community_member=bool(i % 2),
                                             attributes={"note": "年长"})
        annotators.append(user)
    guideline = M["Guideline"].objects.get_or_create(version=7, defaults={"title": "v7", "rubric": {"explicit": {}}})[0]
    batch = M["Batch"].objects.create(name="old batch", annotators_per_post=3, locked_at=now)
    batch.annotators.add(*annotators)
    posts = [M["Post"].objects.create(external_id=f"p{i}", text=f"帖子 {i} 同性恋", raw_text=f"@某人 帖子 {i} 同性恋",
                                      text_sha256=f"{i:064x}", batch=batch, tone="Funny" if i == 0 else "")
             for i in range(4)]
    for post in posts:
        scores = []
        for k, user in enumerate(annotators):
            M["Assignment"].objects.create(post=post, annotator=user, status="submitted", assigned_at=now,
                                           completed_at=now)
            values = {"explicit": 1 + (post.pk + k) % 5, "implicit": 1 + k, "emotional": None if k == 2 else 3}
            judgment = M["Judgment"].objects.create(post=post, annotator=user, guideline=guideline, note="备注",
                                                    seconds_spent=12.5, flagged=k == 1, **values)
            scores.append(values)
        M["JudgmentRevision"].objects.create(judgment=judgment, changed_by=annotators[-1], old={"explicit": 2},
                                             new={"explicit": 3}, guideline=guideline)
        M["FinalLabel"].objects.create(post=post, explicit=3, implicit=2, emotional=3, version=2,
                                       provenance="adjudicated" if post.pk % 2 else "auto",
                                       adjudicator=researcher if post.pk % 2 else None, rationale="理由")
    M["WorkbenchSettings"].objects.create(pk=1, show_annotator_names_to_adjudicators=True, adjudication_span=3)
    M["AgreementReport"].objects.create(status="succeeded", bootstrap=50, judgments_fingerprint="12:3:x",
                                        payload={"dimensions": {"explicit": {"alpha": {"ordinal": 0.61}}}},
                                        finished_at=now)
    M["AgreementReport"].objects.create(status="failed", bootstrap=10, error="worker lost")
    release = M["Release"].objects.create(number=1, content_hash="a" * 64, directory="/srv/releases/release-0001",
                                          manifest={"release.csv": "b" * 64}, summary={"posts": 4},
                                          diff={"previous": None}, split_seed=3, created_by=researcher)
    Lexicon = apps.get_model("modeling", "LexiconTerm")
    Lexicon.objects.create(term="南通测试", kind="coded", note="测试")
    run = apps.get_model("modeling", "TrainingRun").objects.create(
        launch_group="g-1", release=release, variant="full", dimensions=["explicit"], seed=2, status="succeeded",
        stage="done", progress_current=1, progress_total=1, metrics={"test": {"explicit": {"after": {"macro_f1": 0.4}}}},
        artifact_path="/srv/artifacts/run-000001", artifact_checksum="c" * 64, log_tail="parsing\ntraining",
        lexicon_version="db:abc", lexicon_terms=[["南通", "coded"]], versions={"maam": "1"}, device_used="cpu",
        created_by=researcher, started_at=now - timedelta(minutes=5), finished_at=now)
    apps.get_model("modeling", "ScoringJob").objects.create(run=run, scope="release", release=release,
                                                            status="succeeded", scored=4, finished_at=now)
    for post in posts:
        apps.get_model("modeling", "Prediction").objects.create(
            post=post, run=run, explicit=2, implicit=1, emotional=3,
            probabilities={"explicit": {"before": [0.2] * 5, "after": [0.1, 0.6, 0.1, 0.1, 0.1]}},
            cis_state={"C": "Funny", "I": "Outgroup", "S": "Anti"})
    snapshot = apps.get_model("calibration", "PriorSnapshot").objects.create(
        release=release, source="release 1", lexicon_version="db:abc", inferer="cues", n_posts=4,
        priors={"explicit": {"C": {"Funny": [0.2] * 5}}}, counts={"explicit": {"C": {"Funny": [1, 0, 0, 0, 0]}}},
        states=[[posts[0].pk, "Funny", "Outgroup", "Anti", "manual"]], state_sources={"manual": 1},
        created_by=researcher)
    apps.get_model("calibration", "RebuildRequest").objects.create(release=release, status="succeeded",
                                                                   snapshot=snapshot, finished_at=now)


def test_a_populated_database_migrates_forward_without_loss():
    old_apps = migrate(BEFORE)
    populate(old_apps)
    before = fingerprint(old_apps)
    assert all(count > 0 for count, _, _ in before.values()), before

    head = head_targets()
    new_apps = migrate(head)
    from annotation.counters import counters_install

    counters_install(connection)  # what `migrate` runs after the migrations (annotation/apps.py)
    after = fingerprint_of_columns(new_apps, before)
    for table, (count, digest, _) in before.items():
        assert after[table][:2] == (count, digest), f"{table} changed while migrating forward"

    # The new columns of the job rows are filled, and the release is now immutable in the database.
    for app_label, model_name in (("annotation", "agreementreport"), ("calibration", "rebuildrequest")):
        model = new_apps.get_model(app_label, model_name)
        assert not model.objects.filter(updated_at__isnull=True).exists()
        assert set(model.objects.values_list("progress_current", flat=True)) == {0}
    Release = new_apps.get_model("annotation", "Release")
    with pytest.raises(DatabaseError, match="immutable"), transaction.atomic():
        Release.objects.update(directory="/elsewhere")
    assert Release.objects.get().directory == "/srv/releases/release-0001"
