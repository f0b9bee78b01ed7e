"""The live-claim counter behind "next" (Post.live_claims) and the progress counters: kept in the
transaction of every claim, submit, skip and expiry, equal to a recount of the claims, and never
letting a post go past k - also while expiry and claims run at the same time on PostgreSQL."""
from __future__ import annotations

import random
import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.db.models import Count, Q
from django.utils import timezone

from annotation.assignment import selectors, services
from annotation.models import Assignment, AssignmentStatus, BatchProgress, Judgment, Post

SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


def recount() -> dict[int, int]:
    """Per post, the claims that hold a slot, counted from the rows."""
    holds = Q(assignments__gold_batch__isnull=True) & (
        Q(assignments__status=AssignmentStatus.SUBMITTED)
        | Q(assignments__status=AssignmentStatus.ASSIGNED, assignments__lapsed=False))
    return dict(Post.objects.annotate(n=Count("assignments", filter=holds)).values_list("pk", "n"))


def stored() -> dict[int, int]:
    return dict(Post.objects.values_list("pk", "live_claims"))


def age(assignment_ids, minutes: int = 45) -> None:
    Assignment.objects.filter(pk__in=list(assignment_ids)).update(assigned_at=timezone.now() - timedelta(minutes=minutes))


@pytest.mark.django_db
def test_counter_follows_claim_submit_skip_and_expiry(make_annotators, make_batch):
    a, b, c = make_annotators(3)
    batch = make_batch(n_posts=3, k=2, annotators=[a, b, c])
    first = services.assignment_next(annotator=a, batch_id=batch.id)
    assert stored()[first.post_id] == 1 and stored() == recount()
    services.judgment_submit(annotator=a, post_id=first.post_id, scores=SCORES)
    assert stored()[first.post_id] == 1 and stored() == recount()
    second = services.assignment_next(annotator=a, batch_id=batch.id)
    services.assignment_skip(annotator=a, post_id=second.post_id)
    assert stored()[second.post_id] == 0 and stored() == recount()
    third = services.assignment_next(annotator=b, batch_id=batch.id)
    age([third.pk])
    assert stored()[third.post_id] == 1  # expired, not released yet: still counted (never too few)
    released = services.claims_release_expired(batch=batch)
    assert released == 1 and stored()[third.post_id] == 0 and stored() == recount()
    assert Assignment.objects.get(pk=third.pk).lapsed
    # The owner comes back while the post still has room: the slot is taken again.
    services.judgment_submit(annotator=b, post_id=third.post_id, scores=SCORES)
    assert stored()[third.post_id] == 1 and stored() == recount()


@pytest.mark.django_db
def test_least_claimed_first_from_the_counter(make_annotators, make_batch):
    annotators = make_annotators(4)
    batch = make_batch(n_posts=3, k=4, annotators=annotators)
    posts = list(batch.posts.order_by("id"))
    for who in annotators[:2]:  # post 0 has two claims, post 1 one, post 2 none
        Assignment.objects.create(post=posts[0], annotator=who, assigned_at=timezone.now())
    Assignment.objects.create(post=posts[1], annotator=annotators[0], assigned_at=timezone.now())
    services.claims_recount()
    assert stored() == recount() == {posts[0].pk: 2, posts[1].pk: 1, posts[2].pk: 0}
    assert services.assignment_next(annotator=annotators[3], batch_id=batch.id).post_id == posts[2].pk
    assert services.assignment_next(annotator=annotators[2], batch_id=batch.id).post_id == posts[1].pk


@pytest.mark.django_db
def test_rows_written_outside_the_services_cannot_push_a_post_past_k(make_annotators, make_batch):
    """A counter left behind by a bulk write only changes the order: whether a post has room is
    decided on a recount under its lock, which also corrects the counter."""
    annotators = make_annotators(3)
    batch = make_batch(n_posts=1, k=2, annotators=annotators)
    post = batch.posts.get()
    Assignment.objects.bulk_create([Assignment(post=post, annotator=who, assigned_at=timezone.now(),
                                               status=AssignmentStatus.SUBMITTED) for who in annotators[:2]])
    assert stored()[post.pk] == 0  # the bulk write did not count
    assert services.assignment_next(annotator=annotators[2], batch_id=batch.id) is None
    assert stored()[post.pk] == 2 == recount()[post.pk]


@pytest.mark.django_db
def test_claims_recount_repairs_counters_and_progress(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=4, k=2, annotators=[a, b])
    posts = list(batch.posts.order_by("id"))
    Assignment.objects.bulk_create([
        Assignment(post=posts[0], annotator=a, assigned_at=timezone.now(), status=AssignmentStatus.SUBMITTED),
        Assignment(post=posts[1], annotator=a, assigned_at=timezone.now(), status=AssignmentStatus.SKIPPED),
        Assignment(post=posts[0], annotator=b, assigned_at=timezone.now()),
        Assignment(post=posts[2], annotator=b, assigned_at=timezone.now(), lapsed=True),
    ])
    assert services.claims_recount(batch_id=batch.id) == 1
    assert stored() == recount() == {posts[0].pk: 2, posts[1].pk: 0, posts[2].pk: 0, posts[3].pk: 0}
    row = BatchProgress.objects.get(batch=batch, annotator=a)
    assert (row.submitted, row.skipped) == (1, 1)


@pytest.mark.django_db
def test_progress_counters_match_a_count(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=5, k=2, annotators=[a, b])
    # Claims written before the row exists (a demo seed, an import): the first read counts them.
    Assignment.objects.create(post=batch.posts.order_by("id").last(), annotator=a, assigned_at=timezone.now(),
                              status=AssignmentStatus.SUBMITTED)
    assert selectors.batch_progress(annotator=a, batch=batch) == {"done": 1, "skipped": 0, "total": 5, "posts": 5}
    assert not BatchProgress.objects.exists()  # reading wrote nothing
    for _ in range(2):
        item = services.assignment_next(annotator=a, batch_id=batch.id)
        services.judgment_submit(annotator=a, post_id=item.post_id, scores=SCORES)
    item = services.assignment_next(annotator=a, batch_id=batch.id)
    services.assignment_skip(annotator=a, post_id=item.post_id)
    progress = selectors.batch_progress(annotator=a, batch=batch)
    assert progress == {"done": 3, "skipped": 1, "total": 4, "posts": 5}
    assert selectors.progress_counted(batch_id=batch.id, annotator_id=a.pk) == {"submitted": 3, "skipped": 1}
    # Changing one's mind after skipping moves the post from skipped to done.
    services.judgment_submit(annotator=a, post_id=item.post_id, scores=SCORES)
    assert selectors.batch_progress(annotator=a, batch=batch) == {"done": 4, "skipped": 0, "total": 5, "posts": 5}


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_picking_the_next_post_is_an_index_range_scan(require_postgres, make_annotators, make_batch):
    """The pick-and-lock query walks the (batch, live_claims, id) index in order: no sort of the batch."""
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=50, k=3, annotators=[a])
    taken = services.assignment_next(annotator=a, batch_id=batch.id)  # the query then also leaves a tried post out
    with connection.cursor() as cursor:
        # On a 50-row table the planner may prefer to read it all and sort; forbid the whole-table
        # paths and see that an ordered index path exists (no Sort node, the index named).
        cursor.execute("SET enable_seqscan = off")
        cursor.execute("SET enable_bitmapscan = off")
        sql, params = selectors.claim_candidates_sql(annotator=a, batch=batch, exclude=(taken.post_id,))
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("RESET enable_seqscan")
        cursor.execute("RESET enable_bitmapscan")
    assert "post_next_claim" in plan, plan
    assert "Sort" not in plan, plan


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_the_claim_path_runs_prepared_statements_whose_generic_plan_still_walks_the_index(
        require_postgres, make_annotators, make_batch):
    """claim_cursor prepares the claim path's statements once per connection, and PostgreSQL settles
    on a generic plan for the context read (planned once, not on every call: its booleans are
    constants, so the plan can use the partial index of open claims). The pick-and-lock's generic
    plan (no parameter values known) must still walk the (batch, live_claims, id) index, not sort
    the batch."""
    from django.db import transaction

    annotators = make_annotators(4)
    batch = make_batch(n_posts=60, k=3, annotators=annotators)
    for _ in range(3):
        for who in annotators:
            item = services.assignment_next(annotator=who, batch_id=batch.id)
            services.judgment_submit(annotator=who, post_id=item.post_id, scores=SCORES)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        prepared = cursor.fetchall()
    context = [row for row in prepared if "EXISTS (SELECT 1 FROM annotation_batch_annotators" in row[0]]
    # A generic plan, reused. (With `a.lapsed = %s` as a parameter PostgreSQL kept making custom
    # plans here: the partial index of open claims is usable only when NOT lapsed is a constant.)
    assert len(context) == 1 and context[0][1] > 0, prepared
    assert any("ORDER BY p.live_claims, p.id" in row[0] for row in prepared), prepared
    assert any(row[0].lstrip().startswith("INSERT INTO annotation_judgment") for row in prepared), prepared

    def generic_plan(sql: str, params: list) -> str:
        numbered = sql
        for n in range(1, sql.count("%s") + 1):
            numbered = numbered.replace("%s", f"${n}", 1)
        with transaction.atomic(), connection.cursor() as cursor:  # SET LOCAL: nothing outlives the block
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            # On 60 rows reading everything is cheap; forbid it to see which index paths the plan can take.
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_bitmapscan = off")
            cursor.execute(f"PREPARE probe_generic AS {numbered}")
            cursor.execute(f"EXPLAIN EXECUTE probe_generic({', '.join(['%s'] * len(params))})", params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            cursor.execute("DEALLOCATE probe_generic")
        assert "$1" in plan, plan  # a generic plan: no parameter value was known when it was made
        return plan

    pick, params = selectors.claim_candidates_sql(annotator=annotators[0], batch=batch)
    plan = generic_plan(pick, params)
    assert "post_next_claim" in plan and "Sort" not in plan, plan


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_a_prepared_statement_broken_by_a_migration_gets_its_connection_replaced(require_postgres):
    """A migration (another connection) changes a column's type under a prepared statement: PostgreSQL
    then refuses to run it on this connection ("cached plan must not change result type"). The claim
    cursor marks the connection to be closed when the request ends, so one request fails and the next
    prepares afresh on a new connection."""
    import psycopg
    from django.db import NotSupportedError

    settings = connection.settings_dict
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE plan_probe (x integer)")
        cursor.execute("INSERT INTO plan_probe VALUES (1)")
    try:
        for _ in range(2):
            with selectors.claim_cursor() as cursor:
                cursor.execute("SELECT x FROM plan_probe WHERE 1 = %s", [1])
                assert cursor.fetchall() == [(1,)]
        with psycopg.connect(host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
                             password=settings["PASSWORD"] or None, dbname=settings["NAME"],
                             autocommit=True) as migration:
            migration.execute("ALTER TABLE plan_probe ALTER COLUMN x TYPE text")
        with pytest.raises(NotSupportedError, match="cached plan"), selectors.claim_cursor() as cursor:
            cursor.execute("SELECT x FROM plan_probe WHERE 1 = %s", [1])
        assert connection.close_at == 0  # closed when the request ends
        connection.close()
        with selectors.claim_cursor() as cursor:
            cursor.execute("SELECT x FROM plan_probe WHERE 1 = %s", [1])
            assert cursor.fetchall() == [("1",)]
    finally:
        connection.close()
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS plan_probe")


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_expiry_and_claims_at_the_same_time_lose_and_double_count_nothing(require_postgres, make_annotators,
                                                                         make_batch):
    """Annotators claim, submit, skip and abandon claims while claims expire (their clock runs out
    mid-work) and other requests release expired claims. Afterwards the counter equals a recount, no post has
    more than k judgments, and draining the queues fills every post to exactly k: no lost slot."""
    k = 3
    annotators = make_annotators(10)
    batch = make_batch(n_posts=40, k=k, annotators=annotators)
    posts = list(batch.posts.order_by("id"))
    # Claims left open long ago by the first three annotators: expired, not yet released.
    Assignment.objects.bulk_create([Assignment(post=p, annotator=annotators[i % 3],
                                               assigned_at=timezone.now() - timedelta(minutes=45))
                                    for i, p in enumerate(posts[:15])])
    services.claims_recount()
    assert stored() == recount()
    stop = threading.Event()
    errors: list[BaseException] = []
    outcomes = Counter()
    lock = threading.Lock()

    def guarded(fn):
        def run(*args):
            try:
                fn(*args)
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                errors.append(exc)
            finally:
                connections.close_all()
        return run

    @guarded
    def annotate(annotator, seed):
        rng = random.Random(seed)
        while (item := services.assignment_next(annotator=annotator, batch_id=batch.id)) is not None:
            roll = rng.random()
            if roll < 0.04:  # closes the tab and leaves: only expiry gives this slot back
                with lock:
                    outcomes["abandoned"] += 1
                return
            if roll < 0.14:
                services.assignment_skip(annotator=annotator, post_id=item.post_id)
                result = "skipped"
            else:
                try:
                    services.judgment_submit(annotator=annotator, post_id=item.post_id, scores=SCORES)
                    result = "submitted"
                except services.PostTaken:
                    result = "taken"
            with lock:
                outcomes[result] += 1

    @guarded
    def clock(seed):
        """Time running out: open claims age past the timeout while their owners work."""
        rng = random.Random(seed)
        while not stop.is_set():
            open_ids = list(Assignment.objects.filter(status=AssignmentStatus.ASSIGNED, lapsed=False)
                            .values_list("pk", flat=True))
            # One claim per statement (its own transaction): time passing takes no lock on several
            # claims at once, so the clock itself cannot deadlock with the services.
            for claim_id in rng.sample(open_ids, max(1, len(open_ids) // 4)) if open_ids else []:
                age([claim_id])
            stop.wait(0.01)

    @guarded
    def expiry():
        while not stop.is_set():
            with lock:
                outcomes["released"] += services.claims_release_expired(batch=batch)

    workers = [threading.Thread(target=annotate, args=(a, i)) for i, a in enumerate(annotators)]
    background = [threading.Thread(target=clock, args=(99,)), threading.Thread(target=expiry),
                  threading.Thread(target=expiry)]
    for t in background + workers:
        t.start()
    for t in workers:
        t.join(timeout=300)
    stop.set()
    for t in background:
        t.join(timeout=60)
    assert not errors, errors
    assert outcomes["released"] > 0 and outcomes["submitted"] > 0, outcomes

    assert stored() == recount()
    per_post = Counter(Judgment.objects.values_list("post_id", flat=True))
    assert max(per_post.values()) <= k
    # Nothing lost: whatever is still open expires, and the queues drain every post to exactly k.
    age(Assignment.objects.filter(status=AssignmentStatus.ASSIGNED).values_list("pk", flat=True))
    for annotator in annotators:
        while (item := services.assignment_next(annotator=annotator, batch_id=batch.id)) is not None:
            services.judgment_submit(annotator=annotator, post_id=item.post_id, scores=SCORES)
    per_post = Counter(Judgment.objects.values_list("post_id", flat=True))
    assert {p.pk: per_post[p.pk] for p in posts} == {p.pk: k for p in posts}
    assert stored() == recount()
    assert all(n == k for n in stored().values())


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_only_a_claim_only_transaction_commits_asynchronously(require_postgres, make_annotators, make_batch,
                                                              monkeypatch):
    """A bare "next" turns synchronous_commit off for its own transaction (a lost claim is only a
    freed slot); the one-request step, which carries a judgment, stays durable. Read back from the
    server inside each transaction, just before it commits."""
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=5, k=2, annotators=[a])
    seen = []
    real_write = services._claim_write

    def spy(**kwargs):
        assignment = real_write(**kwargs)
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            seen.append(cursor.fetchone()[0])
        return assignment

    monkeypatch.setattr(services, "_claim_write", spy)
    first = services.assignment_next(annotator=a, batch_id=batch.id)
    services.judgment_submit_and_next(annotator=a, batch_id=batch.id, post_id=first.post_id, scores=SCORES)
    assert seen == ["off", "on"]
    with connection.cursor() as cursor:  # and nothing leaks past the transaction
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"
    assert stored() == recount()


@pytest.mark.django_db
def test_next_resumes_the_annotators_own_lapsed_claim_while_the_post_has_room(make_annotators, make_batch):
    """An annotator who left a claim past its timeout, released meanwhile, gets the same claim back
    from "next" (same item, fresh clock, slot taken again) while the post has room, and a new post
    once others have filled it."""
    a, b = make_annotators(2)
    batch = make_batch(n_posts=2, k=1, annotators=[a, b])
    mine = services.assignment_next(annotator=a, batch_id=batch.id)
    age([mine.pk])
    assert services.claims_release_expired(batch=batch) == 1
    assert Assignment.objects.get(pk=mine.pk).lapsed and stored()[mine.post_id] == 0
    resumed = services.assignment_next(annotator=a, batch_id=batch.id)
    again = Assignment.objects.get(pk=mine.pk)
    assert resumed.pk == mine.pk and resumed.post_id == mine.post_id
    assert not again.lapsed and again.assigned_at > timezone.now() - timedelta(minutes=1)
    assert stored()[mine.post_id] == 1 and stored() == recount()
    # Lapsed again, and this time b takes the post's only slot first: a is given the other post.
    age([mine.pk])
    services.claims_release_expired(batch=batch)
    taken = services.assignment_next(annotator=b, batch_id=batch.id)
    assert taken.post_id == mine.post_id  # fewest claims first, lowest id
    services.judgment_submit(annotator=b, post_id=taken.post_id, scores=SCORES)
    moved_on = services.assignment_next(annotator=a, batch_id=batch.id)
    assert moved_on.post_id != mine.post_id and Assignment.objects.get(pk=mine.pk).lapsed
    assert stored() == recount() and max(stored().values()) <= 1


@pytest.mark.django_db
def test_next_looks_for_expired_claims_only_when_the_batchs_oldest_open_claim_is_past_its_timeout(
        make_annotators, make_batch, monkeypatch):
    """The expiry scan is skipped while every open claim of the batch is young (the context read tells
    the oldest one's age), and runs, releasing exactly the expired claims, once one is past it."""
    a, b, c = make_annotators(3)
    batch = make_batch(n_posts=4, k=2, annotators=[a, b, c])
    scans = []
    real_release = services.claims_release_expired
    monkeypatch.setattr(services, "claims_release_expired",
                        lambda **kwargs: scans.append(kwargs["batch"].pk) or real_release(**kwargs))
    young = services.assignment_next(annotator=a, batch_id=batch.id)
    services.assignment_next(annotator=b, batch_id=batch.id)
    assert scans == []  # open claims, all young: no scan
    age([young.pk], minutes=batch.assignment_timeout_minutes + 1)
    services.assignment_next(annotator=c, batch_id=batch.id)
    assert scans == [batch.pk]
    assert Assignment.objects.get(pk=young.pk).lapsed
    assert Assignment.objects.filter(lapsed=True).count() == 1 and stored() == recount()
    services.assignment_next(annotator=a, batch_id=batch.id)  # a claims anew; open claims all young again
    assert scans == [batch.pk]
