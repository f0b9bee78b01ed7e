"""Issue 22 in the browser, in Chinese: an annotator accepts the batch's content notice, is offered a
break after N posts, and sets a post aside as too distressing to score (keyboard only); the quality
panel and alerts for them are unchanged by it, and another annotator is served the post."""
from __future__ import annotations

import pytest

from annotation.assignment import services as assignment_services
from annotation.models import Assignment, AssignmentStatus, Post
from annotation.quality import selectors as quality_selectors
from annotation.quality import services as quality_services
from wellbeing.models import BatchWellbeing

from .conftest import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
NOTICE = "内容提示：本批次的帖子含有针对 LGBT 群体的歧视性语言。"


def _alice_quality(annotator_id: int) -> tuple:
    report = quality_selectors.quality_report()
    alerts = [a for a in report["alerts"] if a.get("annotator_id") == annotator_id or a.get("annotator") == annotator_id]
    return quality_selectors.annotator_row(report, annotator_id), alerts


def test_notice_break_and_set_aside_in_chinese(browser_page_zh, live_server, make_annotators, make_batch, make_user):
    alice, bob, carol = make_annotators(3)
    # Some history, so the quality panel has figures and alerts to compare: a batch all three scored,
    # alice (through the services, in no time) a speeder.
    history = make_batch(n_posts=20, k=3, name="history", annotators=[alice, bob, carol])
    for who, scores in ((alice, (1, 2, 1)), (bob, (2, 2, 1)), (carol, (5, 5, 5))):
        for _ in range(20):
            claim = assignment_services.assignment_next(annotator=who, batch_id=history.pk)
            assignment_services.judgment_submit(annotator=who, claim_id=claim.pk, seconds_spent=2.0,
                                                scores=dict(zip(("explicit", "implicit", "emotional"), scores)))
    assignment_services.batch_lock(batch_id=history.pk)
    batch = make_batch(n_posts=4, k=1, name="wb", annotators=[alice, bob])
    BatchWellbeing.objects.create(batch=batch, notice_zh=NOTICE, notice_en="Content notice.", break_after_posts=2,
                                  resources_url="https://example.org/support")
    make_user("res", role="researcher")
    page = browser_page_zh

    login(page, live_server, alice.username)
    page.goto(f"{live_server.url}/annotate/{batch.pk}/")
    page.wait_for_selector("#content-notice")  # sent to the notice first
    assert NOTICE in page.inner_text("#notice-text") and "内容提示" in page.inner_text("h1")
    page.keyboard.press("Enter")  # the accept button has the focus
    page.wait_for_selector("#post-text:not(:empty)")
    assert page.url.endswith(f"/annotate/{batch.pk}/")
    assert "太令人不适" in page.inner_text("#wellbeing-keys")  # D is in the page's key help, in Chinese

    for keys in (("1", "2", "1"), ("2", "2", "2")):  # N = 2 posts in a row
        text = page.inner_text("#post-text")
        for key in (*keys, "Enter"):
            page.keyboard.press(key)
        page.wait_for_function("t => document.getElementById('post-text').textContent !== t", arg=text)
    page.wait_for_selector("#break:not([hidden])")  # the break is offered
    assert "休息" in page.inner_text("#break") and page.get_attribute("#break-resources", "href").endswith("/support")
    assert page.is_hidden("#scores")
    page.keyboard.press("b")  # take it
    page.wait_for_selector("#on-break:not([hidden])")
    page.keyboard.press("Enter")  # and come back
    page.wait_for_selector("#scores:not([hidden])")

    # The quality panel for alice, as the periodic task leaves it, before she sets a post aside.
    quality_services.quality_refresh()
    before = _alice_quality(alice.pk)
    researcher = page.context.browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    panel = researcher.new_page()
    login(panel, live_server, "res")
    panel.goto(f"{live_server.url}/quality/")
    row_selector = f"#annotators tr[data-annotator={alice.username}]"
    row_before = panel.inner_text(row_selector)
    alerts_before = panel.locator(f"#alerts li[data-annotator={alice.username}]").all_inner_texts()
    assert any(a["kind"] == "speeding" for a in before[1])  # something to stay unchanged
    assert len(alerts_before) == len(before[1]) and row_before.startswith(tuple("0123456789"))

    distressing = page.inner_text("#post-text")
    page.keyboard.press("d")  # too distressing to score
    page.wait_for_function("t => document.getElementById('post-text').textContent !== t", arg=distressing)
    assert "不会" in page.inner_text("#status")  # "...does not count against you", in Chinese
    post = Post.objects.get(text=distressing)
    claim = Assignment.objects.get(post=post, annotator=alice)
    assert claim.status == AssignmentStatus.SET_ASIDE
    assert page.get_attribute("#progress", "aria-valuenow") == "2"
    assert "跳过" not in page.inner_text("#progress-text")  # not a skip

    # Unchanged for alice: the panel (after the periodic refresh), her alerts, her figures.
    quality_services.quality_refresh()
    assert _alice_quality(alice.pk) == before
    panel.reload()
    panel.wait_for_selector(row_selector)
    assert panel.inner_text(row_selector) == row_before
    assert panel.locator(f"#alerts li[data-annotator={alice.username}]").all_inner_texts() == alerts_before

    # Researchers see it on the exposure page: two posts scored, one set aside.
    panel.goto(f"{live_server.url}/wellbeing/exposure/")
    exposure = panel.inner_text(f"#exposure-totals tr[data-annotator={alice.username}]")
    assert exposure.split("\t")[1:4] == ["22", "0", "1"], exposure  # 20 history posts + 2; none high; 1 set aside
    panel.wait_for_selector("#fig-posts .main-svg")
    researcher.close()

    # Another annotator is served the post (k = 1: it was the only one with room).
    page.context.clear_cookies()
    login(page, live_server, bob.username)
    page.goto(f"{live_server.url}/annotate/{batch.pk}/")
    page.click("#accept-notice")
    page.wait_for_selector("#post-text:not(:empty)")
    assert page.inner_text("#post-text") == distressing
    assert page.console_errors == []
