"""The live-claim counter behind "next" (Post.live_claims) and the progress counters: kept in the
transaction of every claim, submit, skip and expiry, equal to a recount of the claims, and never
letting a post go past k - also while expiry and claims run at the same time on PostgreSQL."""
from __future__ import annotations

import json
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


def pick_plans(run) -> list[str]:
    """The plans PostgreSQL ran the pick with while `run()` ran: auto_explain logs every statement's
    plan, nested ones too (the statement inside the pick function), and the LOG lines reach this
    connection as notices. Nothing about the planner is set here: these are the plans it chose."""
    raw = connection.connection
    notices: list[str] = []
    handler = notices.append
    with connection.cursor() as cursor:
        cursor.execute("LOAD 'auto_explain'")
        for name, value in (("auto_explain.log_min_duration", "0"), ("auto_explain.log_nested_statements", "on"),
                            ("client_min_messages", "log")):
            cursor.execute("SELECT set_config(%s, %s, false)", [name, value])
    raw.add_notice_handler(lambda diagnostic: handler(diagnostic.message_primary or ""))
    try:
        run()
    finally:
        connection.close()  # the settings and the handler go with the connection
    return [n for n in notices if "ORDER BY p.live_claims, p.id" in n]


def assert_walks_the_index(plan: str) -> None:
    """A range scan of the pick's index that stops at the first row: Limit over LockRows over an
    index scan of post_next_claim, each check an index probe; never a sort, a whole-table read, a
    hash or a materialised list of the annotator's claims."""
    assert "Limit" in plan and "Index Scan using post_next_claim on annotation_post" in plan, plan
    for node in ("Sort", "Seq Scan", "Bitmap", "Hash", "Materialize", "Merge"):
        assert node not in plan, (node, plan)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_picking_the_next_post_is_an_index_range_scan_on_a_database_never_analysed(
        require_postgres, make_annotators, make_batch):
    """Issue 27: the pick walks the (batch, live_claims, id) index to its first row whatever the
    statistics say. The tables here were never analysed (a fresh import, autovacuum off or not yet
    run) - where the statement alone, planned freely, read and sorted the whole batch with a probe
    of the takedowns and of the annotator's claims per post. Run as the claim path runs it
    (prepared, past PostgreSQL's five custom plans, so the generic plan is in use too)."""
    tables = ("annotation_post", "annotation_assignment", "publication_takedown")
    with connection.cursor() as cursor:
        # As never analysed: an earlier test's import may have analysed these tables (imports do,
        # core/db_statistics.py); their column statistics are dropped (the test database is ours).
        cursor.execute("DELETE FROM pg_statistic WHERE starelid = ANY (%s::regclass[])", [list(tables)])
        cursor.execute("SELECT COUNT(*) FROM pg_stats WHERE tablename = ANY (%s)", [list(tables)])
        assert cursor.fetchone()[0] == 0
    annotators = make_annotators(3)
    batch = make_batch(n_posts=300, k=3, annotators=annotators)

    def run():
        for _ in range(4):
            for who in annotators:
                item = services.assignment_next(annotator=who, batch_id=batch.id)
                services.judgment_submit(annotator=who, post_id=item.post_id, scores=SCORES)

    plans = pick_plans(run)
    assert len(plans) >= 12, plans
    for plan in plans:
        assert_walks_the_index(plan)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_the_pick_reads_a_few_pages_however_large_the_batch_and_the_annotators_history(
        require_postgres, make_annotators, make_batch):
    """The pages one pick reads do not grow with the batch, nor with how many posts the annotator
    has already answered (the bad plans grew with batch size x the annotator's claims)."""
    (a, b) = make_annotators(2)

    def buffers(n_posts: int, answered: int, name: str) -> int:
        batch = make_batch(n_posts=n_posts, k=6, annotators=[a, b], name=name)
        posts = list(batch.posts.order_by("id").values_list("pk", flat=True))
        now = timezone.now()
        # `a` answered the batch's last posts; every post has one claim (b's), so the walk starts at
        # the posts `a` has not seen.
        Assignment.objects.bulk_create([Assignment(post_id=p, annotator=b, assigned_at=now,
                                                   status=AssignmentStatus.SUBMITTED) for p in posts]
                                       + [Assignment(post_id=p, annotator=a, assigned_at=now,
                                                     status=AssignmentStatus.SUBMITTED) for p in posts[-answered:]])
        services.claims_recount(batch_id=batch.id)
        with connection.cursor() as cursor:
            # The recount's updates leave dead index entries; whether a scan skips them cheaply
            # depends on other sessions' open transactions, not on the plan: clear them first.
            cursor.execute("VACUUM annotation_post")
        sql, params = selectors.claim_candidates_sql(annotator=a, batch=batch)
        with connection.cursor() as cursor:
            for _ in range(7):  # past the five custom plans: the plan in use from then on, planning done
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params)
                (doc,) = cursor.fetchone()
        plan = (doc if isinstance(doc, list) else json.loads(doc))[0]["Plan"]
        return plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)

    small = buffers(100, 50, "small")
    large = buffers(3000, 2500, "large")
    # A plan that reads the batch touches two pages per post it checks (thousands here); the walk
    # reads the first post's few pages, whatever the batch's size.
    assert small < 15 and large < 25, (small, large)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_the_installed_pick_function_is_the_one_this_code_calls(require_postgres):
    """`migrate` (re)installs the pick function from selectors.pick_function_sql: the database's
    copy has this code's body and its planner settings."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc, proconfig FROM pg_proc WHERE proname = %s", [selectors.PICK_FUNCTION])
        ((source, config),) = cursor.fetchall()
    expected = selectors.pick_function_sql()
    assert source.strip() in expected
    assert sorted(config) == sorted(f"{k}={v}" for k, v in selectors.PICK_PLANNER_SETTINGS.items())


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_the_claim_path_runs_prepared_statements_whose_generic_plan_still_walks_the_index(
        require_postgres, make_annotators, make_batch):
    """claim_cursor prepares the claim path's statements once per connection, and PostgreSQL settles
    on a generic plan for the context read (planned once, not on every call: its booleans are
    constants, so the plan can use the partial index of open claims). The pick is prepared too (a
    call of the pick function), and the plan inside it walks the index (see above)."""
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
    assert any(selectors.PICK_FUNCTION in row[0] for row in prepared), prepared
    assert any(row[0].lstrip().startswith("INSERT INTO annotation_judgment") for row in prepared), prepared


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
