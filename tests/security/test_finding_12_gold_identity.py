"""Issue 20, finding 12: gold identity is shown to nobody who annotates - not on the per-annotator
quality page, not through the batch quality API's errors, not in the admin (superusers included)."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from annotation.models import Judgment

from .conftest import GOLD_TEXT, HIDDEN_TEXT, client_for

pytestmark = pytest.mark.django_db


def test_finding_12_gold_identity_is_not_on_the_per_annotator_page_for_someone_who_annotates(world, make_user):
    url = reverse("review:quality-annotator", args=[world["alice"].pk])
    researcher = client_for(make_user("plain-researcher", role="researcher")).get(url).content.decode()
    assert GOLD_TEXT in researcher and 'class="gold"' in researcher
    Judgment.objects.create(post=world["hidden"], annotator=world["multi"], explicit=1, implicit=1, emotional=1)
    body = client_for(world["multi"]).get(url).content.decode()
    assert HIDDEN_TEXT in body  # the page works for them...
    assert GOLD_TEXT not in body and 'class="gold"' not in body and "✓" not in body  # ...without gold


def test_finding_12_the_batch_quality_api_names_no_gold_posts_to_someone_who_annotates(world, make_user, api_for):
    url = reverse("api:api-quality-batch", args=[world["batch"].pk])
    not_gold = world["hidden"].pk
    researcher = api_for(make_user("plain-researcher", role="researcher"))
    answer = researcher.patch(url, {"qualification_posts": [not_gold]}, format="json")
    assert answer.status_code == 400 and f"#{not_gold}" in answer.content.decode()  # the oracle, for researchers
    multi = api_for(world["multi"])
    for response in (multi.patch(url, {"qualification_posts": [not_gold, world["gold"].post_id]}, format="json"),
                     multi.get(url)):
        assert response.status_code == 403
        assert list(response.json()) == ["detail"]  # the refusal, and nothing else
        detail = response.json()["detail"]  # read as a field: a bare id such as "3" may sit in any number
        assert f"#{not_gold}" not in detail and not re.search(rf"(?<!\d){world['gold'].post_id}(?!\d)", detail)


@pytest.mark.parametrize("superuser", [False, True])
def test_finding_12_the_admin_shows_no_gold_to_someone_who_annotates(world, superuser):
    multi = world["multi"]
    if superuser:
        multi.is_superuser = True
        multi.save(update_fields=["is_superuser"])
    else:
        multi.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    client = client_for(multi)
    for name in ("annotation_golditem", "annotation_batchquality", "annotation_qualificationattempt"):
        assert client.get(reverse(f"admin:{name}_changelist")).status_code == 403, name
    gold_judgment = Judgment.objects.get(gold=True)
    judgments = client.get(reverse("admin:annotation_judgment_changelist"))
    assert gold_judgment not in judgments.context["cl"].result_list
    assert client.get(reverse("admin:annotation_judgment_change", args=[gold_judgment.pk])).status_code in (302, 404)
    other = Judgment.objects.filter(gold=False).exclude(post=world["hidden"]).first()
    page = client.get(reverse("admin:annotation_judgment_change", args=[other.pk]))
    assert page.status_code == 200 and 'name="gold"' not in page.content.decode()
    assignments = client.get(reverse("admin:annotation_assignment_changelist"))
    assert all(a.gold_batch_id is None for a in assignments.context["cl"].result_list)
    assert client.get(reverse("admin:index")).status_code == 200


def test_finding_12_no_admin_deletion_page_names_a_gold_item_to_someone_who_annotates(world, make_user):
    """A deletion page lists what the deletion takes with it: a post's, its gold item. Nobody who
    annotates opens one for a model whose deletion can reach gold - for every row alike."""
    gold_post, other = world["gold"].post_id, world["hidden"].pk
    admin_user = client_for(make_user("root", is_staff=True, is_superuser=True))
    page = admin_user.get(reverse("admin:annotation_post_delete", args=[gold_post])).content.decode()
    assert "Gold item: " in page or "gold item" in page  # what the page would tell
    multi = world["multi"]
    multi.is_superuser = True
    multi.save(update_fields=["is_superuser"])
    client = client_for(multi)
    Judgment.objects.create(post=world["hidden"], annotator=multi, explicit=1, implicit=1, emotional=1)
    for post_id in (gold_post, other):
        response = client.get(reverse("admin:annotation_post_delete", args=[post_id]))
        assert response.status_code == 403 and "gold" not in response.content.decode().lower(), post_id
    assert client.get(reverse("admin:annotation_batch_delete", args=[world["old"].pk])).status_code == 403
    assert client.get(reverse("admin:modeling_lexiconterm_changelist")).status_code == 200
