"""Review defect 2: the rule between qualification sets, gold in queues and ordinary posts.
- An item that has been in a qualification set (where anyone in the batch could read it) is never
  served as gold in a queue, also after it leaves the set (removing it stops nothing being known).
- An item that has been gold stays out of ordinary queues and counts: no post of a gold item (or one
  that was served as gold) enters an open batch, whether through the gold admin or by moving the
  post in the admin, so it is never served as an ordinary post whose answers count."""
from __future__ import annotations

import pytest
from django.contrib import admin
from django.forms.models import model_to_dict
from django.test import RequestFactory

from annotation import visibility
from annotation.assignment import services as queue
from annotation.models import Assignment, GoldItem, GoldSource, Post
from annotation.quality import selectors, services
from core.permissions import Role

from .test_gold import upload_gold, work_through

pytestmark = pytest.mark.django_db


def test_an_item_removed_from_a_qualification_set_is_never_served_as_gold(make_annotators, make_batch, monkeypatch):
    alice, bob = make_annotators(2)
    gated = make_batch(n_posts=2, k=1, name="gated", annotators=[alice, bob])
    mixed = make_batch(n_posts=4, k=2, name="mixed", annotators=[alice, bob])
    read, kept, fresh = upload_gold(3)
    services.batch_quality_set(batch_id=gated.pk, qualification_required=True,
                               qualification_post_ids=[read.post_id, kept.post_id])
    # Anyone in `gated` could read `read` on its qualification page; then it leaves the set.
    services.batch_quality_set(batch_id=gated.pk, qualification_post_ids=[kept.post_id])
    read.refresh_from_db()
    assert read.qualification_used
    assert read.pk not in set(selectors.gold_drawable(alice).values_list("pk", flat=True))
    assert set(visibility.gold_items_servable().values_list("pk", flat=True)) == {fresh.pk}
    services.batch_quality_set(batch_id=mixed.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)
    for who in (alice, bob):
        served = {c.post_id for c in work_through(who, mixed) if c.gold_batch_id is not None}
        assert served == {fresh.post_id}


def test_an_item_emptied_out_of_a_set_by_the_admin_is_never_served_as_gold(make_annotators, make_batch):
    from annotation.quality.admin import BatchQualityForm

    (alice,) = make_annotators(1)
    gated = make_batch(n_posts=2, k=1, name="gated", annotators=[alice])
    item, other = upload_gold(2)
    quality = services.batch_quality_set(batch_id=gated.pk, qualification_post_ids=[item.post_id])
    form = BatchQualityForm(instance=quality, data={
        "batch": gated.pk, "gold_rate": 0, "qualification_items": [other.pk],
        "pass_max_mae_explicit": 0.75, "pass_max_mae_implicit": 0.75, "pass_max_mae_emotional": 0.75})
    assert form.is_valid(), form.errors
    form.save()
    assert set(quality.qualification_items.all()) == {other}
    assert {g.pk for g in selectors.gold_drawable(alice)} == set()  # neither: both were in a set


def _admin_form(model, user, obj=None, **changes):
    request = RequestFactory().post("/")
    request.user = user
    model_admin = admin.site._registry[model]
    form_class = model_admin.get_form(request, obj, change=obj is not None)
    data = {k: v for k, v in model_to_dict(obj).items() if v is not None} if obj is not None else {}
    data.update(changes)
    return form_class(data=data, instance=obj)


def test_a_gold_post_never_joins_an_open_batch(make_annotators, make_batch, make_user, monkeypatch):
    alice, bob = make_annotators(2)
    researcher = make_user("res", role=Role.RESEARCHER, is_staff=True, is_superuser=True)
    old = make_batch(n_posts=2, k=1, name="old", annotators=[bob])
    work_through(bob, old)
    queue.batch_lock(batch_id=old.pk)
    gold_post, plain_post = old.posts.order_by("id")
    GoldItem.objects.create(post=gold_post, explicit=3, implicit=3, emotional=3, source=GoldSource.UPLOAD)
    uploaded = upload_gold(1)[0]
    open_batch = make_batch(n_posts=2, k=2, name="open", annotators=[alice])
    # Moving a gold post (from a locked batch, or an upload in no batch) into the open batch: refused.
    for post in (gold_post, uploaded.post):
        form = _admin_form(Post, researcher, post, batch=open_batch.pk)
        assert not form.is_valid() and "batch" in form.errors, post
    # A post of an open batch cannot be made gold through the admin either.
    waiting = open_batch.posts.order_by("id").first()
    form = _admin_form(GoldItem, researcher, post=waiting.pk, explicit=2, implicit=2, emotional=2,
                       source=GoldSource.UPLOAD, active="on")
    assert not form.is_valid()
    assert not GoldItem.objects.filter(post=waiting).exists()
    # Ordinary moves still work.
    form = _admin_form(Post, researcher, plain_post, batch="")
    assert form.is_valid(), form.errors
    # The open batch's queue serves its own posts only, never the gold post as an ordinary one.
    claims = work_through(alice, open_batch)
    assert {c.post_id for c in claims} == set(open_batch.posts.values_list("pk", flat=True))
    assert not Assignment.objects.filter(post=gold_post, annotator=alice).exists()
