"""Issue 22 review: the content notice comes before the first post a batch shows, and a batch that
starts with a qualification round shows its posts there: the round's page and API wait for the notice
too (they used to show the qualification posts first and ask for the notice only afterwards)."""
from __future__ import annotations

import pytest

from annotation.importing.parsers import sha256_text
from annotation.models import GoldItem, GoldSource, Post
from annotation.quality import services as quality_services
from wellbeing import services
from wellbeing.models import BatchWellbeing

pytestmark = pytest.mark.django_db
TEXT = "资格轮测试帖子：仇恨言论示例"


@pytest.fixture
def gated_batch(make_annotators, make_batch):
    (newcomer,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[newcomer])
    post = Post.objects.create(text=TEXT, raw_text=TEXT, text_sha256=sha256_text(TEXT))
    GoldItem.objects.create(post=post, source=GoldSource.UPLOAD, explicit=1, implicit=1, emotional=1)
    quality_services.batch_quality_set(batch_id=batch.pk, qualification_required=True,
                                       qualification_post_ids=[post.pk])
    BatchWellbeing.objects.create(batch=batch)
    return newcomer, batch


def test_the_pages_ask_for_the_notice_before_the_qualification_posts(gated_batch, client):
    newcomer, batch = gated_batch
    client.force_login(newcomer)
    first = client.get(f"/annotate/{batch.pk}/")
    assert first.status_code == 302 and first["Location"] == f"/annotate/{batch.pk}/notice/"
    round_page = client.get(f"/annotate/{batch.pk}/qualification/")
    assert round_page.status_code == 302 and round_page["Location"] == f"/annotate/{batch.pk}/notice/"
    assert TEXT not in round_page.content.decode()
    services.notice_accept(annotator=newcomer, batch_id=batch.pk)
    assert client.get(f"/annotate/{batch.pk}/")["Location"] == f"/annotate/{batch.pk}/qualification/"
    assert TEXT in client.get(f"/annotate/{batch.pk}/qualification/").content.decode()


def test_the_qualification_api_asks_for_the_notice_first(gated_batch, api_for):
    newcomer, batch = gated_batch
    client = api_for(newcomer)
    refused = client.get(f"/api/qualification/{batch.pk}/")
    assert refused.status_code == 403 and f"/annotate/{batch.pk}/notice/" in refused.json()["detail"]
    assert TEXT not in refused.content.decode()
    services.notice_accept(annotator=newcomer, batch_id=batch.pk)
    assert TEXT in client.get(f"/api/qualification/{batch.pk}/").content.decode()
