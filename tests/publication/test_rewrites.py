"""Rewrites: drafts, versions, the second person's confirmation or re-score, the permission, and
`import_rewrites` (every line checked, all-or-nothing, personal data masked, searchable flagged)."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from annotation.importing.parsers import ImportFailed
from annotation.importing.services import import_posts
from annotation.models import FinalLabel, Post
from core.errors import Conflict, DomainError
from publication.rewrite_models import Rewrite, RewriteStatus
from publication.spans import normalise
from publication.rewriting.importing import rewrites_import
from publication.rewriting.selectors import confirmed_rewrites, posts_to_rewrite, rewrites_to_confirm
from publication.rewriting.services import can_rewrite, rewrite_confirm, rewrite_save_draft, rewrite_submit

pytestmark = pytest.mark.django_db

ORIGINALS = [
    ("昨天在地铁上看到两个男生牵着手，我觉得挺好的，大家都应该学会尊重别人", 1, 1, 2),
    ("这些人天天在网上宣传这种东西，真是让人看不下去，赶紧滚出去吧", 4, 3, 5),
    ("我们公司新来的同事出柜了，老板居然当众开他玩笑，太过分了", 1, 2, 4),
]


def labelled(rows=ORIGINALS) -> bytes:
    return ("Sentences,Explicit,Implicit,Emotional\r\n"
            + "".join(f"{t},{e},{i},{m}\r\n" for t, e, i, m in rows)).encode()


@pytest.fixture
def posts(db):
    import_posts(labelled(), with_labels=True)
    return list(Post.objects.order_by("pk"))


def test_the_migration_grants_the_permission_to_researchers_and_adjudicators(make_user):
    import importlib

    migration = importlib.import_module("publication.migrations.0002_rewrites_takedowns")
    state = MigrationExecutor(connection).loader.project_state(("publication", "0002_rewrites_takedowns"))
    migration.grant_rewrite_permission(state.apps, None)
    researcher, adjudicator = make_user("r", "researcher"), make_user("a", "adjudicator")
    annotator, nobody = make_user("n", "annotator"), make_user("x")
    assert can_rewrite(researcher) and can_rewrite(adjudicator)
    assert not can_rewrite(annotator) and not can_rewrite(nobody)


def test_draft_submit_confirm_by_a_second_person(posts, rewriters):
    post, res, adj = posts[0], rewriters["researcher"], rewriters["adjudicator"]
    draft = rewrite_save_draft(post_id=post.pk, author=res, text=post.raw_text[:20] + "，后面改写了")
    assert draft.version == 1 and draft.status == RewriteStatus.DRAFT \
        and draft.shared_span == len(normalise(post.raw_text[:20])) == 19  # the comma is not counted
    again = rewrite_save_draft(post_id=post.pk, author=res, text="有人在地铁里看见两位男士手拉手，我认为这没什么，应当互相尊重")
    assert again.pk == draft.pk and again.shared_span < 15  # the draft is edited in place
    with pytest.raises(Conflict, match="drafting"):
        rewrite_save_draft(post_id=post.pk, author=adj, text="别人的草稿")
    submitted = rewrite_submit(post_id=post.pk, author=res)
    assert submitted.status == RewriteStatus.SUBMITTED and submitted.labels == {"explicit": 1, "implicit": 1, "emotional": 2}
    assert list(rewrites_to_confirm(adj)) == [submitted] and list(rewrites_to_confirm(res)) == []
    with pytest.raises(DomainError, match="second person"):
        rewrite_confirm(rewrite_id=submitted.pk, confirmer=res)
    with pytest.raises(Conflict, match="waiting for confirmation"):
        rewrite_save_draft(post_id=post.pk, author=res, text="再改")
    confirmed = rewrite_confirm(rewrite_id=submitted.pk, confirmer=adj)
    assert confirmed.status == RewriteStatus.CONFIRMED and confirmed.confirmer == adj and confirmed.confirmer_scores is None
    assert confirmed_rewrites()[post.pk] == confirmed
    assert post.pk not in set(posts_to_rewrite().values_list("pk", flat=True))


def test_a_disagreeing_rescore_sends_the_post_back_with_both_scores(posts, rewriters):
    post, res, adj = posts[1], rewriters["researcher"], rewriters["adjudicator"]
    rewrite = rewrite_submit(post_id=post.pk, author=adj, text="某些人总在网上推广这类内容，看着很烦，希望他们离开")
    same = {"explicit": 4, "implicit": 3, "emotional": 5}
    back = rewrite_confirm(rewrite_id=rewrite.pk, confirmer=res, scores={**same, "emotional": 3})
    assert back.status == RewriteStatus.SENT_BACK
    assert back.labels == same and back.confirmer_scores == {**same, "emotional": 3}
    assert post.pk in set(posts_to_rewrite().values_list("pk", flat=True)) and post.pk not in confirmed_rewrites()
    # The next edit is a new version; the sent-back one is kept as it was.
    second = rewrite_submit(post_id=post.pk, author=adj, text="有些人总在网上推这类内容，真让人看不下去，快走开吧")
    assert second.version == 2 and Rewrite.objects.get(pk=back.pk).status == RewriteStatus.SENT_BACK
    agreed = rewrite_confirm(rewrite_id=second.pk, confirmer=res, scores=same)  # re-scored the same: confirmed
    assert agreed.status == RewriteStatus.CONFIRMED and agreed.confirmer_scores == same


def test_only_rewriters_and_bad_scores_refused(posts, rewriters):
    with pytest.raises(DomainError, match="permission"):
        rewrite_save_draft(post_id=posts[0].pk, author=rewriters["annotator"], text="改写")
    rewrite = rewrite_submit(post_id=posts[0].pk, author=rewriters["researcher"], text="完全不同的一句话")
    with pytest.raises(DomainError, match="1 to 5"):
        rewrite_confirm(rewrite_id=rewrite.pk, confirmer=rewriters["adjudicator"], scores={"explicit": 9})
    assert Rewrite.objects.get(pk=rewrite.pk).status == RewriteStatus.SUBMITTED


def test_the_database_refuses_a_confirmer_who_wrote_the_rewrite(posts, rewriters):
    rewrite = rewrite_submit(post_id=posts[0].pk, author=rewriters["researcher"], text="完全不同的一句话")
    with pytest.raises(IntegrityError), transaction.atomic():
        Rewrite.objects.filter(pk=rewrite.pk).update(status="confirmed", confirmer=rewriters["researcher"])


def test_personal_data_is_masked_in_a_rewrite(posts, rewriters):
    draft = rewrite_save_draft(post_id=posts[2].pk, author=rewriters["researcher"],
                               text="同事出柜后被老板嘲笑，有事打13812345678或写信给someone@example.com")
    assert "13812345678" not in draft.text and "someone@example.com" not in draft.text
    assert "[手机号]" in draft.text and "[邮箱]" in draft.text
    assert draft.personal_data == {"mobile": 1, "email": 1}


def test_the_queue_puts_the_most_searchable_first(posts, rewriters):
    rewrite_save_draft(post_id=posts[0].pk, author=rewriters["researcher"], text=posts[0].raw_text[:16] + "改")
    rewrite_submit(post_id=posts[1].pk, author=rewriters["researcher"], text="毫无关系的另一句")
    queue = list(posts_to_rewrite())
    assert [p.pk for p in queue] == [posts[2].pk, posts[0].pk]  # the untouched post shares all of itself
    assert queue[1].span == len(normalise(posts[0].raw_text[:16])) == 15 and queue[1].rewrite_status == "draft"


def csv_bytes(header: str, rows) -> bytes:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header.split(","))
    writer.writerows(rows)
    return buffer.getvalue().encode()


def test_import_by_text_and_by_id_with_confirm(posts, rewriters):
    data = csv_bytes("Sentences,Rewrite", [(ORIGINALS[0][0], "地铁里有两位男士手拉手，我认为没什么，应当互相尊重"),
                                           (ORIGINALS[1][0], ORIGINALS[1][0][:18] + "，改写过")])
    result = rewrites_import(data, confirm=True, user=rewriters["researcher"])
    assert (result.imported, result.confirmed) == (2, 2)
    assert [line for line, _span in result.searchable] == [3]
    rewrites = confirmed_rewrites()
    assert rewrites[posts[0].pk].confirmer == rewriters["researcher"] and rewrites[posts[0].pk].author is None
    assert rewrites[posts[1].pk].shared_span == len(normalise(ORIGINALS[1][0][:18])) == 17
    # By id, waiting for confirmation; a later version.
    result = rewrites_import(csv_bytes("post,Rewrite", [(str(posts[0].pk), "又一版改写，内容完全换了说法")]))
    latest = Rewrite.objects.filter(post=posts[0]).order_by("-version").first()
    assert latest.version == 2 and latest.status == RewriteStatus.SUBMITTED and result.confirmed == 0
    assert confirmed_rewrites()[posts[0].pk].version == 1  # still the confirmed one until this is confirmed


def test_import_reports_every_bad_line_and_writes_nothing(posts, rewriters):
    FinalLabel.objects.filter(post=posts[2]).delete()
    data = csv_bytes("Sentences,Rewrite", [
        ("不存在的帖子", "改写"),  # line 2: no such post
        (ORIGINALS[0][0], ""),  # line 3: empty rewrite
        (ORIGINALS[1][0], "好的改写"),  # line 4: fine
        (ORIGINALS[1][0], "又一个"),  # line 5: second rewrite of line 4's post
        (ORIGINALS[2][0], "没有标签"),  # line 6: no final label
    ])
    with pytest.raises(ImportFailed) as failed:
        rewrites_import(data)
    lines = [p.line for p in failed.value.problems]
    assert lines == [2, 3, 5, 6]
    assert "line 4" in str(failed.value.problems[2]) and "no final label" in str(failed.value.problems[3])
    assert not Rewrite.objects.exists()


def test_import_refuses_a_bad_header_and_confirm_without_a_user(posts, rewriters):
    with pytest.raises(ImportFailed, match="header"):
        rewrites_import(csv_bytes("text,Rewrite", [("a", "b")]))
    with pytest.raises(ImportFailed, match="--user"):
        rewrites_import(csv_bytes("post,Rewrite", [(str(posts[0].pk), "b")]), confirm=True)
    with pytest.raises(ImportFailed, match="--user"):
        rewrites_import(csv_bytes("post,Rewrite", [(str(posts[0].pk), "b")]), confirm=True, user=rewriters["annotator"])


def test_import_masks_personal_data_and_the_command_reports(posts, rewriters, tmp_path, capsys):
    path = tmp_path / "rewrites.csv"
    path.write_bytes(csv_bytes("post,Rewrite", [(str(posts[2].pk), "新同事出柜被嘲笑，联系QQ 12345678 或 someone@example.com")]))
    call_command("import_rewrites", str(path), "--confirm", "--user", "res")
    out = capsys.readouterr().out
    assert "Imported 1 rewrites" in out and "confirmed" in out and "email 1" in out
    text = Rewrite.objects.get(post=posts[2]).text
    assert "12345678" not in text and "someone@example.com" not in text
    path.write_bytes(csv_bytes("post,Rewrite", [("99999", "x")]))
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_rewrites", str(path))
