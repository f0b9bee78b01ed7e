"""Issue 12 in the browser: a new annotator fails the qualification round, sees their scores beside
gold and the rubric, is reset by a researcher (once the items they saw are replaced: issue 31) and
passes on the new set; a researcher sees a speeder's alert on the quality panel and follows it to
the judgments behind it."""
from __future__ import annotations

import pytest

from annotation.importing.parsers import sha256_text
from annotation.models import DIMENSIONS, GoldItem, GoldSource, Post, QualificationAttempt
from annotation.quality import services
from annotation.quality.simulated import crowd_load
from annotation.quality.simulation import simulate_crowd

from .conftest import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
GOLD = [{"explicit": 1, "implicit": 1, "emotional": 2}, {"explicit": 5, "implicit": 3, "emotional": 5}]


def answer_all(page, items, scores_for) -> None:
    for item in items:
        for d in DIMENSIONS:
            page.check(f"input[name=score_{item.post_id}_{d}][value='{scores_for(item)[d]}']")
    page.click("#submit-qualification")
    page.wait_for_load_state("networkidle")


def test_a_new_annotator_fails_then_passes_the_qualification(browser_page, live_server, make_annotators, make_batch,
                                                             make_user):
    (newcomer,) = make_annotators(1, prefix="newcomer")
    batch = make_batch(n_posts=3, annotators=[newcomer])
    items = []
    for i, labels in enumerate(GOLD):
        text = f"资格测试：这是一条用于资格测试的帖子 {i}"
        post = Post.objects.create(text=text, raw_text=text, text_sha256=sha256_text(text))
        items.append(GoldItem.objects.create(post=post, source=GoldSource.UPLOAD, **labels))
    services.batch_quality_set(batch_id=batch.pk, qualification_required=True,
                               qualification_post_ids=[g.post_id for g in items],
                               pass_max_mae={d: 0.5 for d in DIMENSIONS})
    make_user("res", role="researcher")
    page = browser_page

    login(page, live_server, newcomer.username)
    page.goto(f"{live_server.url}/annotate/{batch.pk}/")
    page.wait_for_selector("#qualification-form")  # sent to the qualification round first
    assert page.url.endswith(f"/annotate/{batch.pk}/qualification/")
    answer_all(page, items, lambda item: {"explicit": 3, "implicit": 5, "emotional": 3})
    page.wait_for_selector("#review-items")
    review = page.inner_text("#review-items")
    for item in items:  # their scores beside gold, per post
        assert item.post.text in review and f"3 / {item.explicit}" in review
    assert page.is_visible("#awaiting-reset") and page.locator("#qualification-form").count() == 0
    assert page.inner_text(".rubric h2").startswith("Rubric")

    page.context.clear_cookies()
    login(page, live_server, "res")
    page.goto(f"{live_server.url}/quality/annotators/{newcomer.pk}/")
    page.wait_for_selector("#qualification tr[data-attempt='1']")
    assert "failed" in page.inner_text("#qualification tr[data-attempt='1']")
    # The set whose gold they were shown cannot be retried (issue 31 item 9): the reset is refused, saying so
    page.click("#qualification button.reset")
    page.wait_for_selector(".msg:has-text('were shown to this annotator')")
    assert QualificationAttempt.objects.get(annotator=newcomer).reset_at is None
    # ... so the researcher replaces those items with gold the newcomer has not seen (Batch quality settings), then resets
    fresh = []
    for i, labels in enumerate(GOLD):
        text = f"资格测试：换上的新资格帖子 {i}"
        post = Post.objects.create(text=text, raw_text=text, text_sha256=sha256_text(text))
        fresh.append(GoldItem.objects.create(post=post, source=GoldSource.UPLOAD, **labels))
    services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[g.post_id for g in fresh])
    page.goto(f"{live_server.url}/quality/annotators/{newcomer.pk}/")
    page.click("#qualification button.reset")
    page.wait_for_selector("#qualification tr[data-attempt='1']:has-text('reset by res')")

    page.context.clear_cookies()
    login(page, live_server, newcomer.username)
    page.goto(f"{live_server.url}/annotate/{batch.pk}/qualification/")
    answer_all(page, fresh, lambda item: item.scores())
    page.wait_for_selector("#post-text:not(:empty)")  # passed: the real queue is open
    assert page.url.endswith(f"/annotate/{batch.pk}/")
    assert page.inner_text("#post-text") in set(batch.posts.values_list("text", flat=True))
    attempts = list(QualificationAttempt.objects.filter(annotator=newcomer).order_by("number"))
    assert [(a.number, a.passed, a.reset_at is not None) for a in attempts] == [(1, False, True), (2, True, False)]
    assert page.console_errors == []


def test_a_researcher_sees_the_speeder_alert_on_the_quality_panel(browser_page, live_server, make_user, roles):
    crowd = simulate_crowd(300, gold_fraction=0.1, seed=3)
    loaded = crowd_load(crowd)
    services.quality_refresh()  # what the periodic task does: the panel shows the run's report
    speeder = next(u for u in loaded.users if u.username == "sim-speeder")
    make_user("res", role="researcher")
    page = browser_page
    login(page, live_server, "res")
    page.goto(f"{live_server.url}/quality/")
    alert = page.wait_for_selector("#alerts li.alert[data-kind=speeding][data-annotator=sim-speeder]")
    assert "speeding" in alert.inner_text() and page.locator("#alerts li[data-kind=speeding]").count() == 1
    page.wait_for_selector("#fig-seconds .main-svg")  # the plots are drawn
    row = page.inner_text("#annotators tr[data-annotator=sim-speeder]")
    assert "Speeding" in row and page.locator("#annotators tr[data-annotator=sim-speeder] .badge.speeding").count() == 1

    alert.query_selector("a").click()  # to the judgments behind the alert
    page.wait_for_selector("#judgments tbody tr")
    assert page.url.split("?")[0].endswith(f"/quality/annotators/{speeder.pk}/")
    assert "behind the alert" in page.inner_text("#judgments h2")
    assert page.locator("#judgments tbody tr").count() == 50  # the window the rule looked at
    page.wait_for_selector("#fig-alpha .main-svg")
    assert page.console_errors == []
