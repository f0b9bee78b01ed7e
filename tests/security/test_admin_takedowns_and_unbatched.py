"""Issue 30, low items in the admin: the takedown admin showed a hidden post's text (its post column) to
someone the post is hidden from, holding a claim on it; and uploaded gold items are the only posts made
without a batch, so the post admin's "no batch" filter listed exactly the gold to someone who annotates."""
from __future__ import annotations

import pytest
from django.urls import reverse

from .conftest import HIDDEN_TEXT, client_for

pytestmark = pytest.mark.django_db
UPLOADED_GOLD_TEXT = "上传的金标帖子 U5-UPLOADED-GOLD"


@pytest.fixture
def taken_down(world):
    from annotation.models import Assignment, AssignmentStatus
    from django.utils import timezone

    from publication.takedowns import takedown_record

    takedown_record(post=world["hidden"], reason="asked by the author", requested_by=world["adjudicator"])
    # the claim the issue names: multi holds one on the post (served before the takedown released it)
    Assignment.objects.create(post=world["hidden"], annotator=world["multi"], status=AssignmentStatus.ASSIGNED,
                              assigned_at=timezone.now())
    return world


@pytest.fixture
def uploaded_gold(world):
    from annotation.importing.parsers import sha256_text
    from annotation.models import GoldItem, GoldSource, Post

    post = Post.objects.create(text=UPLOADED_GOLD_TEXT, raw_text=UPLOADED_GOLD_TEXT,
                               text_sha256=sha256_text(UPLOADED_GOLD_TEXT), batch=None)
    GoldItem.objects.create(post=post, explicit=1, implicit=1, emotional=1, source=GoldSource.UPLOAD)
    return {**world, "uploaded": post}


def superuser_who_annotates(world):
    multi = world["multi"]
    multi.is_superuser = True
    multi.save(update_fields=["is_superuser"])
    return client_for(multi)


def listed(response) -> list:
    return list(response.context["cl"].result_list)


def test_the_takedown_admin_shows_no_hidden_post(taken_down, make_user):
    from publication.rewrite_models import Takedown

    takedown = Takedown.objects.get(post=taken_down["hidden"])
    root = client_for(make_user("root", is_staff=True, is_superuser=True))
    assert takedown in listed(root.get(reverse("admin:publication_takedown_changelist")))  # the control
    client = superuser_who_annotates(taken_down)
    assert takedown not in listed(client.get(reverse("admin:publication_takedown_changelist")))
    page = client.get(reverse("admin:publication_takedown_change", args=[takedown.pk]))
    assert page.status_code in (302, 404) and HIDDEN_TEXT not in page.content.decode()


def test_the_no_batch_filter_is_not_the_gold_list_for_someone_who_annotates(uploaded_gold, make_user):
    url = reverse("admin:annotation_post_changelist") + "?batch__isnull=True"
    root = client_for(make_user("root", is_staff=True, is_superuser=True))
    assert [p.pk for p in listed(root.get(url))] == [uploaded_gold["uploaded"].pk]  # the control: exactly the gold
    client = superuser_who_annotates(uploaded_gold)
    assert listed(client.get(url)) == []
    everything = listed(client.get(reverse("admin:annotation_post_changelist")))
    assert everything and all(post.batch_id is not None for post in everything)
    page = client.get(reverse("admin:annotation_post_change", args=[uploaded_gold["uploaded"].pk]))
    assert page.status_code in (302, 404) and UPLOADED_GOLD_TEXT not in page.content.decode()
