"""Issue 31, item 4: the audit log is complete (rewrites submitted and confirmed, runs launched and
cancelled, imports, exports, backups, takedowns) and readable (names and values a researcher reads,
never None, user ids, `app.Model.None` or absolute paths; in Chinese too); the releases page and
the log agree on who published a release. The page is read as parsed HTML."""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from auditlog.models import LogEntry
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from annotation.adjudication.services import post_adjudicate
from annotation.importing.services import import_posts
from annotation.models import Judgment, Post
from annotation.quality import services as quality_services
from annotation.releases.services import release_publish
from audit import selectors
from audit.services import audit_event

pytestmark = pytest.mark.django_db

LABELLED = ("Sentences,Explicit,Implicit,Emotional\r\n昨天在地铁上看到两个男生牵着手，我觉得挺好的，大家都应该学会尊重别人,1,1,2\r\n"
            "这些人天天在网上宣传这种东西，真是让人看不下去，赶紧滚出去吧,4,3,5\r\n")


class AuditTable(HTMLParser):
    """The rows of #audit-entries: kind, who, what and the (field, before, after) changes of each."""

    def __init__(self):
        super().__init__()
        self.rows: list[dict] = []
        self._in_table = False
        self._depth = 0  # 1: an entry row's cells, 2: the nested changes table
        self._cell: list[str] | None = None
        self._cells: list[str] = []
        self._change: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == "audit-entries":
            self._in_table = True
        elif not self._in_table:
            return
        elif tag == "table" and attrs.get("class") == "changes":
            self._depth = 2
        elif tag == "tr" and self._depth == 0 and "data-kind" in attrs:
            self.rows.append({"kind": attrs["data-kind"], "cells": [], "changes": []})
            self._depth = 1
        elif tag == "tr" and self._depth == 2:
            self._change = []
        elif tag == "td" and self._depth in (1, 2):
            self._cell = []

    def handle_endtag(self, tag):
        if not self._in_table:
            return
        if tag == "td" and self._cell is not None:
            text = " ".join("".join(self._cell).split())
            if self._depth == 2:
                self._change.append(text)
            else:
                self.rows[-1]["cells"].append(text)
            self._cell = None
        elif tag == "tr" and self._depth == 2 and self._change:
            self.rows[-1]["changes"].append(tuple(self._change))
            self._change = []
        elif tag == "table" and self._depth == 2:
            self._depth = 1
        elif tag == "tr" and self._depth == 1:
            self._depth = 0
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def audit_rows(client, query: str = "", language: str = "en") -> list[dict]:
    with translation.override(translation.get_language()):
        page = client.get(f"/audit/{query}", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    parser = AuditTable()
    parser.feed(page.content.decode())
    return [{"kind": r["kind"], "who": r["cells"][1], "what": r["cells"][3], "changes": r["changes"]}
            for r in parser.rows]


def _zh(text: str) -> str:
    with translation.override("zh-hans"):
        return translation.gettext(text)


def every_value(rows) -> list[str]:
    return [v for r in rows for change in r["changes"] for v in change[1:]]


@pytest.fixture
def researcher(make_user):
    return make_user("res", role="researcher")


@pytest.fixture
def reader(researcher):
    client = Client()
    client.force_login(researcher)
    return client


@pytest.fixture(autouse=True)
def media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")


def test_rewrites_submitted_and_confirmed_are_recorded_readably(make_user, reader):
    from publication.rewriting.services import rewrite_confirm, rewrite_permission_grant, rewrite_save_draft, rewrite_submit

    rewrite_permission_grant()
    author, confirmer = make_user("writer", "researcher"), make_user("checker", "adjudicator")
    import_posts(LABELLED.encode(), with_labels=True)
    post = Post.objects.order_by("pk").first()
    rewrite_save_draft(post_id=post.pk, author=author, text="有人看见两位男士手拉手，我认为这没什么，应当互相尊重")
    rewrite = rewrite_submit(post_id=post.pk, author=author)
    rewrite_confirm(rewrite_id=rewrite.pk, confirmer=confirmer)
    rows = audit_rows(reader, "?kind=rewrite")
    assert [r["who"] for r in rows] == ["checker", "writer"]
    assert rows[1]["changes"] == [("Status", "Draft", "Waiting for confirmation")]
    assert rows[0]["changes"][0] == ("Status", "Waiting for confirmation", "Confirmed")
    assert ("–", "checker") in [c[1:] for c in rows[0]["changes"]]  # the confirmer by name, not by id
    assert f"#{post.pk}" in rows[0]["what"] and "version 1" in rows[0]["what"]
    chinese = audit_rows(reader, "?kind=rewrite", language="zh-CN")
    assert chinese[0]["changes"][0] == (str(_zh("Status")), _zh("Waiting for confirmation"), _zh("Confirmed"))
    assert chinese[0]["changes"][0][2] != "Confirmed"  # translated
    assert str(confirmer.pk) not in every_value(rows)


def test_run_launch_and_cancel_are_recorded(researcher, reader, make_user):
    from modeling.services import training_run_cancel, training_run_launch

    import_posts(("Sentences,Explicit,Implicit,Emotional\n"
                  + "".join(f"帖子{i},{1 + i % 5},{1 + i % 3},{1 + i % 4}\n" for i in range(40))).encode(),
                 with_labels=True)
    release = release_publish(created_by=researcher, bootstrap=0)
    runs = training_run_launch(created_by=researcher, release_id=release.pk, dimensions=["explicit"],
                               variants=["baseline"], seeds=[0, 1], backbone="char-ngram")
    training_run_cancel(run_id=runs[0].pk, by=researcher)
    rows = audit_rows(reader, "?kind=run")
    assert [r["who"] for r in rows] == ["res", "res"]
    cancel, launch = rows
    assert cancel["changes"][0][0] == "Status" and cancel["changes"][0][2] == "Cancelled"
    assert launch["what"].startswith("Launched 2 training runs (Baseline; seeds 0, 1; char-ngram) on release 1")
    chinese = audit_rows(reader, "?kind=run", language="zh-CN")
    assert "已启动 2 个训练运行" in chinese[1]["what"]


def test_imports_exports_and_backups_are_recorded_without_paths(reader, researcher, tmp_path, settings):
    path = tmp_path / "labelled posts.csv"
    path.write_text(LABELLED + "打我电话13800138000,2,2,2\r\n", encoding="utf-8")
    call_command("import_posts", str(path), "--with-labels", "--batch", "ref")
    call_command("import_judgments", str(_judgments(tmp_path)), "--create-missing-posts")
    release_publish(created_by=researcher, bootstrap=0)
    call_command("export_release", str(tmp_path / "out" / "release-copy"), "--release", "1")
    audit_event(actor=None, event="backup", what="Backup to a folder %(folder)s", params={"folder": "2026-11-28"},
                changes={"files": (None, 12)})
    rows = audit_rows(reader)
    by_kind = {}
    for r in rows:
        by_kind.setdefault(r["kind"], []).append(r)
    posts, judgments = by_kind["import"][1], by_kind["import"][0]
    assert posts["what"] == "Imported 3 posts from labelled posts.csv" and posts["who"] == "system"
    assert ("Posts", "–", "3") in posts["changes"] and ("Personal data masked", "–", "1") in posts["changes"]
    assert ("Batch", "–", "ref") in posts["changes"]
    assert judgments["what"] == "Imported 2 judgments by 2 annotators"
    assert by_kind["export"][0]["what"] == "Exported release 1 to a folder release-copy"
    assert by_kind["backup"][0]["what"] == "Backup to a folder 2026-11-28"
    values = every_value(rows) + [r["what"] for r in rows]
    assert not any(str(tmp_path) in v or settings.MEDIA_ROOT in v for v in values)
    assert "None" not in values and not any(v.endswith(".None") for v in values)
    chinese = audit_rows(reader, "?kind=import", language="zh-CN")
    assert chinese[1]["what"] == "已从 labelled posts.csv 导入 3 条帖子" and chinese[1]["who"] == "系统"


def _judgments(tmp_path: Path) -> Path:
    path = tmp_path / "judgments.csv"
    path.write_text("post,annotator,explicit,implicit,emotional\nu1,imp1,2,2,3\nu1,imp2,3,2,3\n", encoding="utf-8")
    return path


def test_automatic_entries_show_names_not_ids_none_or_paths(make_annotators, make_batch, make_user, researcher,
                                                            reader):
    adjudicator = make_user("judge", role="adjudicator")
    annotators = make_annotators(2)
    post = make_batch(n_posts=1, annotators=annotators).posts.get()
    for who, score in zip(annotators, (1, 4)):
        Judgment.objects.create(post=post, annotator=who, explicit=score, implicit=score, emotional=score)
    post_adjudicate(adjudicator=adjudicator, post_id=post.pk, rationale="clear",
                    scores={"explicit": 4, "implicit": 3, "emotional": 4}, expected_version=0)
    quality_services.batch_quality_set(batch_id=post.batch_id, qualification_required=False)
    release_publish(created_by=researcher, bootstrap=0)
    rows = audit_rows(reader)
    adjudication = next(r for r in rows if r["kind"] == "adjudication")
    changes = {field: (before, after) for field, before, after in adjudication["changes"]}
    assert changes["Adjudicator"] == ("–", "judge") and changes["Provenance"] == ("–", "Adjudicated")
    assert changes["Explicit"] == ("–", "4")
    release = next(r for r in rows if r["kind"] == "release")
    assert release["who"] == "res"  # published outside a request: the publisher still, as the releases page says
    assert "Directory" not in dict((c[0], c) for c in release["changes"])
    values = every_value(rows)
    assert "None" not in values and not any(v.endswith(".None") for v in values), values
    assert str(adjudicator.pk) not in [changes["Adjudicator"][1]]
    chinese = audit_rows(reader, "?kind=adjudication", language="zh-CN")
    assert ("–", _zh("Adjudicated")) in [c[1:] for c in chinese[0]["changes"]] and _zh("Adjudicated") != "Adjudicated"


def test_the_releases_page_and_the_log_name_the_same_publisher(researcher, reader):
    import_posts(LABELLED.encode(), with_labels=True)
    release = release_publish(created_by=researcher, bootstrap=0)  # as seed_demo does: no request
    (entry,) = [e for e in LogEntry.objects.get_for_object(release)]
    assert entry.actor == release.created_by == researcher
    (row,) = audit_rows(reader, "?kind=release")
    assert row["who"] == researcher.username


def test_a_takedown_is_recorded(researcher, reader):
    from publication.takedowns import takedown_record

    import_posts(LABELLED.encode(), with_labels=True)
    post = Post.objects.order_by("pk").first()
    takedown_record(post=post, reason="the author asked", requested_by=researcher)
    (row,) = audit_rows(reader, "?kind=takedown")
    assert row["what"] == f"Takedown: Takedown of {post.external_id or 'h' + post.text_sha256[:16]}"


def test_the_kinds_filter_lists_every_kind(reader):
    assert {key for key in selectors.KINDS} >= {"rewrite", "run", "llm_run", "import", "export", "backup",
                                               "takedown", "erasure"}
