"""An adjudicator resolves a disagreement with the keyboard in Chromium."""
from __future__ import annotations

import pytest

from annotation.models import FinalLabel, Judgment, Provenance

from .conftest import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_adjudicator_resolves_with_keyboard(browser_page, live_server, make_annotators, make_batch, make_user):
    annotators = make_annotators(6)
    batch = make_batch(n_posts=2, annotators=annotators)
    post = batch.posts.order_by("id").first()
    for a, score in zip(annotators, [1, 5, 1, 5, 2, 4]):
        Judgment.objects.create(post=post, annotator=a, explicit=score, implicit=2, emotional=3,
                                note="<script>window.xss=1</script>" if score == 5 else "")
    make_user("adj", role="adjudicator")
    page = browser_page
    login(page, live_server, "adj")
    page.goto(f"{live_server.url}/adjudicate/")
    page.click(f"#queue a[href='/adjudicate/{post.id}/']")
    page.wait_for_selector("#adjudicate-form")
    assert page.evaluate("window.xss") is None  # notes are rendered as text
    assert "&lt;script&gt;" in page.content() or "<script>window.xss" in page.inner_text("#judgments")
    for key in ("4", "2", "3"):
        page.keyboard.press(key)
    page.keyboard.press("r")
    page.keyboard.type("Hostile framing outweighs the mild readings.")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=adjudicated")
    label = FinalLabel.objects.get(post=post)
    assert label.scores() == {"explicit": 4, "implicit": 2, "emotional": 3}
    assert label.provenance == Provenance.ADJUDICATED and label.adjudicator.username == "adj"
    assert label.rationale == "Hostile framing outweighs the mild readings."
    assert page.console_errors == []
