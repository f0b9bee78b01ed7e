"""Erasing an account whose username is Chinese (小红) never edits the name out of a run of Chinese in
somebody else's text: another author's confirmed rewrite "小红和小明在一起了" (which a public release
publishes) stays as confirmed, while the person's own rewrites and jobs lose the name wherever it is."""
from __future__ import annotations

import pytest

from annotation.importing.services import import_posts
from annotation.models import Post
from annotation.services import annotator_ensure
from modeling.models import TrainingRun
from publication.rewrite_models import Rewrite, RewriteSource, RewriteStatus
from wellbeing.data_rights import annotator_erase

pytestmark = pytest.mark.django_db

OTHERS_TEXT = "小红和小明在一起了"


def test_erasing_a_chinese_username_leaves_other_peoples_chinese_text_alone(make_annotators):
    writer, checker = make_annotators(2, prefix="writer")
    person = annotator_ensure(username="小红", password="pw-for-tests-1")
    import_posts("Sentences,Explicit,Implicit,Emotional\n第一条帖子,1,2,4\n第二条帖子,1,1,1\n".encode(), with_labels=True)
    first, second = Post.objects.order_by("pk")
    others = Rewrite.objects.create(post=first, version=1, text=OTHERS_TEXT, source=RewriteSource.PAGE,
                                    author=writer, confirmer=checker, status=RewriteStatus.CONFIRMED)
    others_named = Rewrite.objects.create(post=first, version=2, text="改写（小红 提议）", source=RewriteSource.PAGE,
                                          author=writer, status=RewriteStatus.DRAFT)
    own = Rewrite.objects.create(post=second, version=1, text="小红改写了这条", source=RewriteSource.PAGE,
                                 author=person, confirmer=checker, status=RewriteStatus.CONFIRMED)
    own_job = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"],
                                         created_by=person, error="小红停止了运行")
    others_job = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"],
                                            created_by=writer, error=OTHERS_TEXT)

    erasure = annotator_erase(username="小红", reason="request")

    for row in (others, others_named, own, own_job, others_job):
        row.refresh_from_db()
    assert others.text == OTHERS_TEXT  # another person's confirmed text, unchanged
    assert others_job.error == OTHERS_TEXT
    assert others_named.text == f"改写（{erasure.username} 提议）"  # the name standing alone still goes
    assert own.text == f"{erasure.username}改写了这条"
    assert own_job.error == f"{erasure.username}停止了运行"
