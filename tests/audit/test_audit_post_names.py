"""Review of issue 31, item 4: the audit page names a post by its number, never by its text. A
takedown is a request to withdraw a post; its entry (kept for good) showed the post's first 30
characters as the 'Post' value, as did an adjudication's final label (readable_value rendered the
related Post by its __str__, '#12 <text>')."""
from __future__ import annotations

import pytest
from django.test import Client

from annotation.importing.services import import_posts
from annotation.models import Post

from .test_audit_complete import LABELLED, audit_rows

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def test_a_takedown_entry_names_the_post_by_number_not_text(make_user):
    from publication.takedowns import takedown_record

    researcher = make_user("res", role="researcher")
    reader = Client()
    reader.force_login(researcher)
    import_posts(LABELLED.encode(), with_labels=True)
    post = Post.objects.order_by("pk").first()
    takedown_record(post=post, reason="the author asked", requested_by=researcher)

    (row,) = audit_rows(reader, "?kind=takedown")
    changes = {field: (before, after) for field, before, after in row["changes"]}
    assert changes["Post"] == ("–", f"Post #{post.pk}")
    values = [v for change in row["changes"] for v in change] + [row["what"]]
    assert not any(post.text[:6] in v for v in values), values
    (chinese,) = audit_rows(reader, "?kind=takedown", language="zh-CN")
    assert ("–", f"帖子 #{post.pk}") in [c[1:] for c in chinese["changes"]]


def test_a_takedown_recorded_outside_a_request_names_who_recorded_it(make_user):
    """As a release does (the releases page and the log agree): seed_demo and other callers record a
    takedown with requested_by outside any request; the log said 'system' beside 'Recorded by: res'."""
    from publication.takedowns import takedown_record

    researcher = make_user("res", role="researcher")
    reader = Client()
    reader.force_login(researcher)
    import_posts(LABELLED.encode(), with_labels=True)
    takedown_record(post=Post.objects.order_by("pk").first(), reason="the author asked", requested_by=researcher)
    (row,) = audit_rows(reader, "?kind=takedown")
    assert row["who"] == "res"
