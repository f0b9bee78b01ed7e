"""An annotator scores three posts with the keyboard only, revises one; another annotator sees nothing."""
from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Judgment, JudgmentRevision

from .conftest import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_keyboard_scoring_and_revision(browser_page, live_server, make_annotators, make_batch):
    alice, bob = make_annotators(2)
    batch = make_batch(n_posts=5, k=6, annotators=[alice, bob])
    page = browser_page
    login(page, live_server, alice.username)
    page.goto(f"{live_server.url}/annotate/{batch.id}/")
    page.wait_for_selector("#post-text:not(:empty)")

    typed = [("1", "2", "3"), ("4", "4", "5"), ("2", "1", "1")]
    shown = []
    api_calls = []  # each scoring step is one request: submit, and the next item comes back with it
    page.on("request", lambda r: api_calls.append((r.method, r.url)) if "/api/" in r.url else None)
    for keys in typed:
        text = page.inner_text("#post-text")
        shown.append(text)
        for key in keys:
            page.keyboard.press(key)
        page.keyboard.press("Enter")
        page.wait_for_function("t => document.getElementById('post-text').textContent !== t", arg=text)
    assert page.get_attribute("#progress", "aria-valuenow") == "3"
    assert api_calls == [("POST", f"{live_server.url}/api/queue/{batch.id}/submit/")] * 3, api_calls

    # Back (Backspace) to the last judgment, change emotional to 5 (focus: explicit -> 3 keys), submit.
    page.keyboard.press("Backspace")
    page.wait_for_function("t => document.getElementById('post-text').textContent === t", arg=shown[-1])
    for key in ("2", "1", "5"):
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#status:has-text('Revision saved')")

    judgments = {j.post.text: j.scores() for j in Judgment.objects.select_related("post").filter(annotator=alice)}
    assert judgments == {
        shown[0]: {"explicit": 1, "implicit": 2, "emotional": 3},
        shown[1]: {"explicit": 4, "implicit": 4, "emotional": 5},
        shown[2]: {"explicit": 2, "implicit": 1, "emotional": 5},
    }
    revision = JudgmentRevision.objects.get()
    assert revision.old["emotional"] == 1 and revision.new["emotional"] == 5 and revision.judgment.post.text == shown[2]
    assert all(j.seconds_spent > 0 for j in Judgment.objects.all())
    assert page.console_errors == []

    # Bob can see none of it: not in the page, not through the API.
    page.context.clear_cookies()
    login(page, live_server, bob.username)
    page.goto(f"{live_server.url}/annotate/{batch.id}/")
    page.wait_for_selector("#post-text:not(:empty)")
    assert page.get_attribute("#progress", "aria-valuenow") == "0"
    api = APIClient()
    api.force_authenticate(bob)
    for judgment in Judgment.objects.filter(annotator=alice):
        assert api.get(reverse("api:api-judgment", args=[judgment.pk])).status_code == 404
    assert api.get(reverse("api:api-judgments")).json() == []


def test_annotator_page_is_usable_on_a_phone(browser_page, live_server, make_annotators, make_batch):
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[annotator])
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    login(page, live_server, annotator.username)
    page.goto(f"{live_server.url}/annotate/{batch.id}/")
    page.wait_for_selector("#post-text:not(:empty)")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # no sideways scrolling
    text = page.inner_text("#post-text")
    for dim, score in (("explicit", "2"), ("implicit", "3"), ("emotional", "4")):  # tapping works like the keys
        box = page.locator(f"fieldset[data-dim={dim}] button[data-score='{score}']").bounding_box()
        assert box["width"] >= 40 and box["height"] >= 40 and box["x"] + box["width"] <= 390
        page.click(f"fieldset[data-dim={dim}] button[data-score='{score}']")
    page.click("#submit")
    page.wait_for_function("t => document.getElementById('post-text').textContent !== t", arg=text)
    assert Judgment.objects.get(annotator=annotator).scores() == {"explicit": 2, "implicit": 3, "emotional": 4}
    font = page.evaluate("getComputedStyle(document.getElementById('post-text')).fontFamily")
    assert "Noto Sans CJK SC" in font


def test_a_late_submission_is_refused_and_shown_back(browser_page, live_server, make_annotators, make_batch):
    """Alice leaves her tab open past the timeout; Bob takes the post's only slot and submits. Alice's
    Enter is refused: the page says the post went to someone else and shows her scores and note."""
    from datetime import timedelta

    from django.utils import timezone

    from annotation.assignment import services
    from annotation.models import Assignment

    alice, bob = make_annotators(2)
    batch = make_batch(n_posts=2, k=1, annotators=[alice, bob])
    page = browser_page
    login(page, live_server, alice.username)
    page.goto(f"{live_server.url}/annotate/{batch.id}/")
    page.wait_for_selector("#post-text:not(:empty)")
    mine = Assignment.objects.get(annotator=alice)
    Assignment.objects.filter(pk=mine.pk).update(assigned_at=timezone.now() - timedelta(minutes=31))
    taken = services.assignment_next(annotator=bob, batch_id=batch.id)
    assert taken.post_id == mine.post_id
    services.judgment_submit(annotator=bob, post_id=taken.post_id, scores={"explicit": 1, "implicit": 1, "emotional": 1})

    page.keyboard.press("n")
    page.keyboard.type("隐含的刻板印象")
    page.keyboard.press("Escape")
    for key in ("4", "5", "3", "Enter"):
        page.keyboard.press(key)
    page.wait_for_selector("#taken:not([hidden])")
    assert "went to another annotator" in page.inner_text("#taken-message")
    entered = page.inner_text("#taken-entered")
    for shown in ("Explicit bias\n4", "Implicit bias\n5", "Emotional intensity\n3", "隐含的刻板印象"):
        assert shown in entered, entered
    assert not Judgment.objects.filter(annotator=alice).exists()
    assert Judgment.objects.filter(post_id=mine.post_id).count() == 1

    page.keyboard.press("Enter")  # on to the next post
    page.wait_for_selector("#taken", state="hidden")
    page.wait_for_function("t => document.getElementById('post-text').textContent !== t", arg=taken.post.text)
    assert page.inner_text("#post-text") == batch.posts.exclude(pk=taken.post_id).get().text
    assert [e for e in page.console_errors if "409" not in e] == []
