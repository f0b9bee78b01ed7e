"""Query counts per page and endpoint stay flat as data grows (no N+1)."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.assignment import services
from annotation.models import Judgment

pytestmark = pytest.mark.django_db


def count(client, method, url, **kwargs) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = getattr(client, method)(url, **kwargs)
    assert response.status_code < 400, (url, response.status_code)
    return len(ctx.captured_queries)


@pytest.fixture
def grow(make_annotators, make_batch, make_user):
    annotators = make_annotators(6)
    batch = make_batch(n_posts=60, annotators=annotators)

    def add(n_posts: int):
        posts = list(batch.posts.order_by("id").filter(judgments__isnull=True)[:n_posts])
        Judgment.objects.bulk_create([Judgment(post=p, annotator=a, explicit=1 + (i % 5), implicit=2, emotional=3,
                                               note="n", flagged=i % 7 == 0)
                                      for p in posts for i, a in enumerate(annotators)])
    return annotators, batch, add, make_user("res", role="researcher"), make_user("adj", role="adjudicator")


def test_pages_and_endpoints_do_not_grow_with_data(grow, client, api_for):
    annotators, batch, add, researcher, adjudicator = grow
    annotator = annotators[0]
    api = api_for(annotator)

    def measure():
        from django.core.cache import cache

        cache.clear()  # measure the agreement page's computing path, not its cache hit
        client.force_login(adjudicator)
        adj_queue = count(client, "get", reverse("review:adjudication"))
        client.force_login(researcher)
        agreement = count(client, "get", reverse("review:agreement"))
        return {"queue": count(api, "post", reverse("api:api-queue-next", args=[batch.id])),
                "judgments": count(api, "get", reverse("api:api-judgments")),
                "adjudication": adj_queue, "agreement": agreement}

    add(5)
    measure()  # first calls create sessions, settings rows and the annotator's claim
    small = measure()
    add(40)
    large = measure()
    assert large == small, (small, large)
    assert small["queue"] <= 12 and small["judgments"] <= 8


def test_submit_query_budget(grow, api_for):
    annotators, batch, add, *_ = grow
    api = api_for(annotators[0])
    # The annotator's first submit in a batch also makes their progress row (from one count): once.
    first = services.assignment_next(annotator=annotators[0], batch_id=batch.id)
    services.judgment_submit(annotator=annotators[0], post_id=first.post_id, scores={"explicit": 1, "implicit": 1,
                                                                                   "emotional": 1})
    item = services.assignment_next(annotator=annotators[0], batch_id=batch.id)
    with CaptureQueriesContext(connection) as ctx:
        response = api.post(reverse("api:api-judgments"), {"item": item.pk, "explicit": 1, "implicit": 1,
                                                            "emotional": 1}, format="json")
    assert response.status_code == 201
    # 13: the claim is re-read under the post's lock, and the annotator's progress counter is updated
    # in the same transaction (issue 13), so neither the page nor "next" ever counts judgments.
    assert len(ctx.captured_queries) <= 13, [q["sql"][:80] for q in ctx.captured_queries]


# Issue 27: the one-request scoring step, as the annotator page sends it (session, user, wellbeing
# gate, submit, next, progress), each statement once (docs/hot_path.md lists them; BEGIN/COMMIT not
# counted). A new rule must fit in these statements, not add its own: the budget is the count itself, per
# database (SQLite writes the claim as an INSERT and an UPDATE, PostgreSQL as one data-modifying CTE), so
# one statement more fails.
SCORING_STEP_STATEMENTS = {"postgresql": 14, "sqlite": 15}


def test_the_one_request_scoring_step_query_budget(grow, client):
    """POST /api/queue/<batch>/submit/ with a session (middleware included): the statements stay
    within SCORING_STEP_STATEMENTS, and the count does not grow as the batch fills."""
    import re

    annotators, batch, add, *_ = grow
    me = annotators[0]
    client.force_login(me)
    url = reverse("api:api-queue-submit", args=[batch.id])
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()["item"]

    def step() -> list[str]:
        nonlocal item
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(url, {"item": item, "explicit": 1, "implicit": 2, "emotional": 3},
                                   content_type="application/json")
        assert response.status_code == 201, response.content[:300]
        item = response.json()["next"]["item"]
        return [q["sql"] for q in ctx.captured_queries
                if not re.match(r"\s*(BEGIN|COMMIT|SAVEPOINT|RELEASE SAVEPOINT)", q["sql"])]

    step()  # the first submit in a batch also makes the progress row
    early = step()
    for _ in range(8):  # the batch fills: the others score through the same services
        for other in annotators[1:]:
            claim = services.assignment_next(annotator=other, batch_id=batch.id)
            services.judgment_submit(annotator=other, post_id=claim.post_id, scores={"explicit": 2, "implicit": 2,
                                                                                     "emotional": 2})
    late = step()
    assert len(early) <= SCORING_STEP_STATEMENTS[connection.vendor], early
    assert len(late) == len(early), (early, late)


# Issue 27 review: the same step on a batch with gold items mixed in (gold_rate > 0) runs the gold
# plan (annotation/quality/services.py gold_plan): its reads, counted, on every claim, gold or real.
GOLD_STEP_STATEMENTS = {"postgresql": 20, "sqlite": 21}


def _gold_batch(make_annotators, make_batch, n_posts: int, name: str, rate: float = 0.2):
    from annotation.quality import services as quality

    annotators = make_annotators(3, prefix=f"{name}-ann")
    batch = make_batch(n_posts=n_posts, k=3, name=name, annotators=annotators)
    lines = ["Sentences,Explicit,Implicit,Emotional"] + [f"{name} gold {i},3,2,1" for i in range(12)]
    quality.gold_upload(data="\n".join(lines).encode(), filename="gold.csv")
    quality.batch_quality_set(batch_id=batch.pk, gold_rate=rate)
    return annotators, batch


def test_the_scoring_step_on_a_gold_batch_query_budget(make_annotators, make_batch, client):
    """The one-request step on a batch with a gold rate: within GOLD_STEP_STATEMENTS, and the same
    number whether the claim it makes is gold or real, early or late in the batch."""
    import re

    annotators, batch = _gold_batch(make_annotators, make_batch, 40, "gb")
    me = annotators[0]
    client.force_login(me)
    url = reverse("api:api-queue-submit", args=[batch.id])
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()["item"]
    counts, gold = [], []
    for _ in range(14):
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(url, {"item": item, "explicit": 1, "implicit": 2, "emotional": 3},
                                   content_type="application/json")
        assert response.status_code == 201, response.content[:300]
        item = response.json()["next"]["item"]
        counts.append(len([q for q in ctx.captured_queries
                           if not re.match(r"\s*(BEGIN|COMMIT|SAVEPOINT|RELEASE SAVEPOINT)", q["sql"])]))
        gold.append(services.Assignment.objects.get(pk=item).gold_batch_id is not None)
    assert any(gold) and not all(gold), gold  # both kinds of claim were made
    assert len(set(counts[1:])) == 1, counts  # (the first submit in a batch also makes the progress row)
    assert counts[-1] <= GOLD_STEP_STATEMENTS[connection.vendor], counts


def _post_rows_read(plan: dict) -> int:
    """Rows of annotation_post a plan read (returned or filtered out, every loop)."""
    own = 0
    if plan.get("Relation Name") == "annotation_post":
        own = (plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)
               + plan.get("Rows Removed by Index Recheck", 0)) * plan.get("Actual Loops", 1)
    return own + sum(_post_rows_read(child) for child in plan.get("Plans", []))


def _sorted_rows(plan: dict) -> list[int]:
    """The rows each Sort node of a plan took in (a sort's own output is cut by the LIMIT above it)."""
    own = [sum(c.get("Actual Rows", 0) * c.get("Actual Loops", 1) for c in plan.get("Plans", []))
           ] if plan["Node Type"] == "Sort" else []
    return own + [n for child in plan.get("Plans", []) for n in _sorted_rows(child)]


@pytest.mark.postgres
def test_the_gold_plan_does_not_read_the_batch(require_postgres, make_annotators, make_batch):
    """Issue 27 review: on a gold batch every claim runs the gold plan. Its statements read the same
    posts whatever the batch's size (the batch's posts come from its counter, as the progress bar's
    do) and sort nothing (the gold pick walks the gold items' primary key from a random point).
    Measured with EXPLAIN ANALYZE of each statement it sends, on a batch of 40 posts and one of 400.
    The count of the drawable gold pool (gold_quota) is left out: it reads the pool, whose size does
    not depend on the batch (docs/hot_path.md)."""
    from django.db import transaction

    from annotation.quality.services import gold_plan

    def measure(n_posts: int, name: str) -> list[tuple[str, int, list[str]]]:
        annotators, batch = _gold_batch(make_annotators, make_batch, n_posts, name)
        me = annotators[0]
        for _ in range(3):  # a few claims made and answered
            claim = services.assignment_next(annotator=me, batch_id=batch.pk)
            services.judgment_submit(annotator=me, post_id=claim.post_id,
                                     scores={"explicit": 2, "implicit": 2, "emotional": 2})
        with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
            gold_plan(annotator=me, batch=batch)
        out = []
        for query in ctx.captured_queries:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith(("SELECT", "WITH")) or 'COUNT(*) AS "__count" FROM ' \
                    '"annotation_golditem"' in sql:
                continue
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
                plan = cursor.fetchone()[0][0]["Plan"]
            out.append((re.sub(r"\d+", "N", sql)[:120], _post_rows_read(plan), _sorted_rows(plan)))
        return out

    import re

    small, large = measure(40, "g40"), measure(400, "g400")
    assert [s for s, _, _ in small] == [s for s, _, _ in large]
    for (sql, rows_small, sorts_small), (_, rows_large, sorts_large) in zip(small, large):
        # (each annotator's own few claims are read; which of them were gold may differ by a few)
        assert rows_large <= rows_small + 5, (sql, rows_small, rows_large)
        assert all(n <= 1 for n in sorts_small + sorts_large), (sql, sorts_small, sorts_large)
