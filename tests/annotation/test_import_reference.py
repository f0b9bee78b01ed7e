"""Issue 31, item 3: posts imported with their labels are reference data, not annotation work,
unless asked (--as-work); an import reports the personal data it masked, per kind."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotation.assignment.services import assignment_next
from annotation.importing.services import ImportFailed, import_posts
from annotation.models import Batch, Post

pytestmark = pytest.mark.django_db

LABELLED = "Sentences,Explicit,Implicit,Emotional\n支持平等,1,1,2\n他们真恶心,4,3,5\n"


def _queue_item(annotator, batch):
    try:
        return assignment_next(annotator=annotator, batch_id=batch.pk)
    except Exception:  # a locked batch is refused outright
        return None


def test_labelled_posts_in_a_new_batch_reach_no_queue(make_annotators):
    result = import_posts(LABELLED.encode(), with_labels=True, batch_name="chlgbt")
    batch = Batch.objects.get(name="chlgbt")
    assert result.labelled == 2 and batch.is_locked and not result.as_work
    (annotator,) = make_annotators(1)
    batch.annotators.add(annotator)
    assert _queue_item(annotator, batch) is None


def test_labelled_posts_are_not_added_to_open_annotation_work(make_batch):
    make_batch(n_posts=2, name="week2")
    with pytest.raises(ImportFailed, match="open annotation work.*--as-work"):
        import_posts(LABELLED.encode(), with_labels=True, batch_name="week2")
    assert Post.objects.filter(batch__name="week2").count() == 2  # nothing was imported


def test_as_work_puts_labelled_posts_in_the_queue(make_annotators):
    result = import_posts(LABELLED.encode(), with_labels=True, batch_name="rescore", as_work=True)
    batch = Batch.objects.get(name="rescore")
    assert result.as_work and not batch.is_locked
    (annotator,) = make_annotators(1)
    batch.annotators.add(annotator)
    assert _queue_item(annotator, batch) is not None


def test_posts_without_labels_go_into_an_open_batch_as_before(make_annotators):
    import_posts("Sentences\n新帖子一\n新帖子二\n".encode(), batch_name="open")
    assert not Batch.objects.get(name="open").is_locked


def test_the_command_reports_personal_data_per_kind_and_the_reference_batch(tmp_path):
    path = tmp_path / "posts.csv"
    path.write_text(LABELLED + "打我电话13800138000,2,2,2\n邮箱 someone@example.com 手机 13912345678,1,1,1\n",
                    encoding="utf-8")
    out = io.StringIO()
    call_command("import_posts", str(path), "--with-labels", "--batch", "ref", stdout=out)
    text = out.getvalue()
    assert "Personal data masked in 2 posts: Mobile number 2, E-mail address 1" in text
    assert "reference data: locked" in text
    clean = tmp_path / "clean.csv"
    clean.write_text("Sentences\n没有个人信息的帖子\n", encoding="utf-8")
    out = io.StringIO()
    call_command("import_posts", str(clean), stdout=out)
    assert "No personal data found." in out.getvalue()
    with pytest.raises(CommandError, match="--as-work is for labelled posts"):
        call_command("import_posts", str(clean), "--as-work")


def test_the_upload_page_reports_personal_data_in_chinese(make_user):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    client.force_login(make_user("res", role="researcher"))
    upload = io.BytesIO("Sentences\n打我电话13800138000\n".encode())
    upload.name = "posts.csv"
    with translation.override(translation.get_language()):  # the request switches to Chinese; switch back after
        page = client.post(reverse("annotation:upload"), {"file": upload, "batch": "b"}, follow=True)
    messages = [str(m) for m in page.context["messages"]]
    assert "已在 1 条帖子中遮盖个人信息：手机号码 1（原文仅为研究人员保留；报告见 /personal-data/）。" in messages, messages


SECOND = ("Sentences,Explicit,Implicit,Emotional\n"
          "他们真恶心,4,3,5\n"       # already there, same labels
          "支持平等,2,1,2\n"         # already there, other labels
          "新的参考帖子,3,3,3\n")


def test_a_second_labelled_import_adds_to_the_reference_batch_and_skips_what_is_there(make_annotators):
    import_posts(LABELLED.encode(), with_labels=True, batch_name="chlgbt")
    result = import_posts(SECOND.encode(), with_labels=True, batch_name="chlgbt")
    batch = Batch.objects.get(name="chlgbt")
    assert result.created == 1 and result.labelled == 1
    assert sorted(Post.objects.filter(batch=batch).values_list("text", flat=True)) == sorted(
        ["支持平等", "他们真恶心", "新的参考帖子"])
    assert batch.is_locked
    skipped = [str(p) for p in result.skipped]
    assert len(skipped) == 2
    assert "line 2" in skipped[0] and "already in the database" in skipped[0] and "other labels" not in skipped[0]
    assert "line 3" in skipped[1] and "other labels (1/1/2 there, 2/1/2 here)" in skipped[1]
    from annotation.models import FinalLabel
    assert FinalLabel.objects.get(post__text="支持平等").explicit == 1  # the database's label kept
    (annotator,) = make_annotators(1)
    batch.annotators.add(annotator)
    assert _queue_item(annotator, batch) is None  # still reference data


def test_a_second_labelled_import_skips_a_post_whose_source_id_is_there():
    jsonl = '{"id": "w1", "text": "第一条", "explicit": 1, "implicit": 1, "emotional": 1}\n'
    import_posts(jsonl.encode(), filename="a.jsonl", with_labels=True, batch_name="ref")
    again = ('{"id": "w1", "text": "第一条（改过）", "explicit": 1, "implicit": 1, "emotional": 1}\n'
             '{"id": "w2", "text": "第二条", "explicit": 2, "implicit": 2, "emotional": 2}\n')
    result = import_posts(again.encode(), filename="b.jsonl", with_labels=True, batch_name="ref")
    assert result.created == 1 and Post.objects.filter(batch__name="ref").count() == 2
    assert len(result.skipped) == 1 and "'w1'" in str(result.skipped[0])


def test_labelled_posts_are_still_refused_by_a_locked_batch_that_was_annotation_work(make_batch, make_annotators):
    from django.utils import timezone

    from annotation.models import Judgment

    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=1, name="week1", annotators=[annotator])
    Judgment.objects.create(post=batch.posts.get(), annotator=annotator, explicit=1, implicit=1, emotional=1)
    batch.locked_at = timezone.now()
    batch.save(update_fields=["locked_at"])
    with pytest.raises(ImportFailed, match="locked"):
        import_posts(LABELLED.encode(), with_labels=True, batch_name="week1")


def test_the_command_adds_a_second_labelled_file_and_lists_the_skipped_rows(tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text(LABELLED, encoding="utf-8")
    second.write_text(SECOND, encoding="utf-8")
    call_command("import_posts", str(first), "--with-labels", "--batch", "ref", stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_posts", str(second), "--with-labels", "--batch", "ref", stdout=out)
    text = out.getvalue()
    assert "Imported 1 posts" in text and "Skipped 2 post(s) already in the database (listed above)" in text
    assert text.count("skipped, the database's post kept") == 2
