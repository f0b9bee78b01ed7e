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
