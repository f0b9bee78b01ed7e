"""Write a simulated crowd (simulation.py) into the database, as if it had worked through the app:
annotator accounts, a batch of posts, claims and judgments at the simulated times (so seconds per
post are measured on the server, as for real work), and the gold posts as uploaded gold items whose
answers are gold judgments. For the tests, the benchmark and demonstrations; never real data."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import numpy as np
from django.db import transaction
from django.utils import timezone

from ..importing.parsers import sha256_text
from ..models import DIMENSIONS, Assignment, AssignmentStatus, Batch, GoldItem, GoldSource, Judgment, Post
from ..services import annotator_ensure
from .simulation import SimulatedCrowd


@dataclass(frozen=True)
class LoadedCrowd:
    batch: Batch
    users: list  # in the crowd's annotator order
    posts: dict[int, int]  # simulated post index -> Post id
    gold_posts: list[int]


@transaction.atomic
def crowd_load(crowd: SimulatedCrowd, *, batch_name: str = "simulated", username_prefix: str = "sim-",
               password: str | None = None) -> LoadedCrowd:
    users = [annotator_ensure(username=f"{username_prefix}{a.name}", password=password) for a in crowd.annotators]
    n_posts = crowd.truth.shape[0]
    gold_index = set(int(i) for i in crowd.gold.item)
    batch = Batch.objects.create(name=batch_name, annotators_per_post=len(users))
    batch.annotators.add(*users)
    texts = [f"{batch_name} 模拟帖子 {i}" for i in range(n_posts)]
    posts = Post.objects.bulk_create([
        Post(text=t, raw_text=t, text_sha256=sha256_text(t), batch=None if i in gold_index else batch)
        for i, t in enumerate(texts)], batch_size=2000)
    post_ids = {i: p.pk for i, p in enumerate(posts)}
    GoldItem.objects.bulk_create([
        GoldItem(post_id=post_ids[i], source=GoldSource.UPLOAD,
                 **{d: int(crowd.truth[i, k]) for k, d in enumerate(DIMENSIONS)}) for i in sorted(gold_index)])

    log = crowd.log
    start = timezone.now() - timedelta(seconds=float(log.time.max()) + 60)
    judgments, assignments, times = [], [], []
    for row in range(len(log.item)):
        index = int(log.item[row])
        is_gold = index in gold_index
        done = start + timedelta(seconds=float(log.time[row]))
        user = users[int(log.annotator[row])]
        scores = {d: None if np.isnan(v) else int(v) for d, v in zip(DIMENSIONS, log.scores[row])}
        judgments.append(Judgment(post_id=post_ids[index], annotator=user, gold=is_gold,
                                  seconds_spent=float(log.seconds[row]), **scores))
        assignments.append(Assignment(post_id=post_ids[index], annotator=user, status=AssignmentStatus.SUBMITTED,
                                      assigned_at=done - timedelta(seconds=float(log.seconds[row])),
                                      completed_at=done, gold_batch=batch if is_gold else None))
        times.append(done)
    Assignment.objects.bulk_create(assignments, batch_size=5000)
    made = Judgment.objects.bulk_create(judgments, batch_size=5000)
    for judgment, when in zip(made, times):
        judgment.created_at = when
    Judgment.objects.bulk_update(made, ["created_at"], batch_size=5000)
    return LoadedCrowd(batch, users, post_ids, [post_ids[i] for i in sorted(gold_index)])
