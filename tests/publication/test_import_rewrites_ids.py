"""import_rewrites by `post` id: a cell that is not an id (odd digits such as '²' or full-width
digits, which str.isdigit accepts and int() refuses; a number past the bigint range) is a per-line
problem with nothing imported, never a crash (issue 21, item 4; the same rule as issue 20's
finding 10 for query-string ids)."""
from __future__ import annotations

import pytest

from annotation.importing.parsers import ImportFailed
from annotation.importing.services import import_posts
from annotation.models import Post
from publication.rewrite_models import Rewrite
from publication.rewriting.importing import rewrites_import

from .test_rewrites import csv_bytes, labelled

pytestmark = pytest.mark.django_db


def test_odd_or_huge_post_ids_are_reported_per_line(rewriters):
    import_posts(labelled(), with_labels=True)
    post = Post.objects.order_by("pk").first()
    data = csv_bytes("post,Rewrite", [(str(post.pk), "一句完全不同的改写文字"), ("²", "改写"), ("１２", "改写"),
                                      ("9" * 30, "改写")])
    with pytest.raises(ImportFailed) as failed:
        rewrites_import(data)
    assert [p.line for p in failed.value.problems] == [3, 4, 5]
    assert all("no post has this id" in str(p) for p in failed.value.problems)
    assert not Rewrite.objects.exists()
