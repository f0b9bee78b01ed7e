"""Batch.post_count equals the batch's posts after every kind of write (annotation/counters.py):
kept by the database's own triggers, on SQLite here and on PostgreSQL in CI."""
from __future__ import annotations

import random

import pytest
from django.db import connection
from django.db.models import Count

from annotation.counters import TRIGGERS, counters_install, triggers_present
from annotation.importing.parsers import sha256_text
from annotation.models import Batch, Post

pytestmark = pytest.mark.django_db


def counted() -> dict[int, int]:
    return {b.pk: b.n for b in Batch.objects.annotate(n=Count("posts"))}


def kept() -> dict[int, int]:
    return dict(Batch.objects.values_list("pk", "post_count"))


def post(text: str, batch=None) -> Post:
    return Post(text=text, raw_text=text, text_sha256=sha256_text(text), batch=batch)


def test_the_count_follows_every_kind_of_write(make_batch):
    assert triggers_present(connection) == set(TRIGGERS)
    a, b = make_batch(n_posts=5, name="a"), make_batch(n_posts=3, name="b")  # bulk_create
    assert kept() == counted() == {a.pk: 5, b.pk: 3}
    Post.objects.create(text="x1", raw_text="x1", text_sha256=sha256_text("x1"), batch=a)
    Post.objects.create(text="gold", raw_text="gold", text_sha256=sha256_text("gold"))  # no batch
    moved = a.posts.order_by("id").first()
    moved.batch = b
    moved.save()  # a move through the ORM
    Post.objects.filter(pk__in=list(a.posts.values_list("pk", flat=True)[:2])).update(batch=None)  # bulk move out
    unbatched = Post.objects.filter(batch__isnull=True).first()
    Post.objects.filter(pk=unbatched.pk).update(batch=a)  # and one back in
    b.posts.order_by("id").last().delete()
    with connection.cursor() as cursor:  # a writer that is not Django
        cursor.execute("INSERT INTO annotation_post (text, raw_text, text_sha256, batch_id, tone, identity, stance, "
                       "created_at, live_claims, withdrawn) VALUES (%s, %s, %s, %s, '', '', '', %s, 0, %s)",
                       ["raw", "raw", sha256_text("raw"), b.pk, "2026-01-01 00:00:00+00:00", False])
    Post.objects.filter(batch=a).update(live_claims=1)  # the scoring step's kind of update: no move
    assert kept() == counted()
    c = make_batch(n_posts=4, name="c")
    c.delete()  # its posts' batch set to NULL on the way
    assert kept() == counted() and c.pk not in kept()


def test_a_random_sequence_of_writes_keeps_the_count():
    rng = random.Random(7)
    batches = [Batch.objects.create(name=f"r{i}") for i in range(3)]
    n = 0
    for _ in range(60):
        roll = rng.random()
        if roll < 0.4:
            Post.objects.bulk_create([post(f"t{n + i}", rng.choice(batches + [None])) for i in range(rng.randint(1, 4))])
            n += 4
        elif roll < 0.7 and Post.objects.exists():
            p = Post.objects.order_by("?").first()
            Post.objects.filter(pk=p.pk).update(batch=rng.choice(batches + [None]))
        elif Post.objects.exists():
            Post.objects.filter(pk__in=list(Post.objects.order_by("?").values_list("pk", flat=True)[:2])).delete()
        assert kept() == counted()


def test_install_recounts_a_count_gone_wrong_and_is_idempotent(make_batch):
    batch = make_batch(n_posts=3)
    Batch.objects.filter(pk=batch.pk).update(post_count=99)  # as if written while the triggers were missing
    counters_install(connection)
    counters_install(connection)
    assert kept() == counted() == {batch.pk: 3}
    assert triggers_present(connection) == set(TRIGGERS)
