"""In a zh-CN browser an annotator scores a post with the keyboard and sees only Chinese UI text;
switching to English and back through the header keeps the choice across pages."""
from __future__ import annotations

import re

import pytest

from annotation.models import Judgment

from ..core.test_translations import paper_guidelines_migrated
from .conftest import login, wait_for_plots

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# Latin words that may stay in the Chinese UI: the product and dataset name, "LGBT" (the rubric's
# subject, written so in Chinese too), the English entry of the language switch (a language is
# offered in its own name), and the names printed on keys.
ALLOWED_LATIN = {"ChLGBT", "LGBT", "English", "Enter", "Esc", "Backspace"}


def visible_ui_words(page, *, username: str) -> set[str]:
    """Latin-script words in the page's visible text, leaving out the post being scored (data), the
    rubric's examples (data) and the signed-in username."""
    text = page.evaluate("""() => {
        const clone = document.body.cloneNode(true);
        clone.querySelectorAll('#post-text, .example, script, [hidden]').forEach((n) => n.remove());
        document.body.appendChild(clone); clone.style.position = 'absolute'; clone.style.left = '-10000px';
        const visible = clone.innerText; clone.remove(); return visible;
    }""")
    # The text was read (an empty read would find no English word either): the header, the form and
    # the rubric's explanations are there, in Chinese.
    assert "退出登录" in text and len(re.findall(r"[\u4e00-\u9fff]", text)) > 100, text
    words = set(re.findall(r"[A-Za-z]{2,}", text.replace(username, " ")))
    return words - ALLOWED_LATIN


def test_annotator_scores_in_chinese_then_switches_language(browser_page_zh, live_server, make_annotators, make_batch):
    paper_guidelines_migrated()
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=3, annotators=[annotator])
    page = browser_page_zh
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.inner_text("h1") == "登录"  # Accept-Language: zh-CN, no choice made yet
    login(page, live_server, annotator.username)

    page.goto(f"{live_server.url}/annotate/{batch.id}/")
    page.wait_for_selector("#post-text:not(:empty)")
    assert page.get_attribute("html", "lang") == "zh-hans"
    assert visible_ui_words(page, username=annotator.username) == set()
    assert "评分标准 v2" in page.inner_text(".rubric") and "提及 LGBT 群体，但没有敌意。" in page.inner_text(".rubric")
    assert page.inner_text("#progress-text") == "已完成 0 / 3"

    # Score with the keyboard only: 2, 3, 4 for the three dimensions, Enter to submit.
    first = page.inner_text("#post-text")
    for key in ("2", "3", "4"):
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_function("t => document.getElementById('post-text').textContent !== t", arg=first)
    page.wait_for_selector("#progress-text:has-text('已完成 1 / 3')")
    judgment = Judgment.objects.get(annotator=annotator)
    assert judgment.post.text == first and judgment.scores() == {"explicit": 2, "implicit": 3, "emotional": 4}
    # What JavaScript writes (status line, progress) is Chinese too.
    assert visible_ui_words(page, username=annotator.username) == set()

    # An incomplete submission: the message comes from the JavaScript catalogue.
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#status:has-text('请先为三个维度都打分。')")

    # Switch to English in the header: this page, then every other page, in English.
    page.click("#language-switch button[value=en]")
    page.wait_for_selector("html[lang=en]")
    page.wait_for_selector("#post-text:not(:empty)")
    assert "Rubric v2" in page.inner_text(".rubric") and "Mentions LGBT without hostility." in page.inner_text(".rubric")
    page.goto(f"{live_server.url}/annotate/")
    assert page.inner_text("h1") == "My queue" and page.get_attribute("html", "lang") == "en"

    # And back to Chinese: remembered on the next pages although the browser asks for zh-CN anyway,
    # so check the cookie that carries it too.
    page.click("#language-switch button[value=zh-hans]")
    page.wait_for_selector("html[lang=zh-hans]")
    assert page.inner_text("h1") == "我的队列"
    page.goto(f"{live_server.url}/annotate/{batch.id}/")
    page.wait_for_selector("#post-text:not(:empty)")
    assert "评分标准 v2" in page.inner_text(".rubric")
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert cookies.get("django_language") == "zh-hans"
    assert page.console_errors == []


def test_english_choice_outlasts_a_chinese_browser(browser_page_zh, live_server, make_annotators, make_batch):
    """The switch beats Accept-Language: chosen once, English stays on every page of a zh-CN browser."""
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[annotator])
    page = browser_page_zh
    login(page, live_server, annotator.username)
    page.goto(f"{live_server.url}/annotate/")
    assert page.inner_text("h1") == "我的队列"
    page.click("#language-switch button[value=en]")
    page.wait_for_selector("html[lang=en]")
    for url in (f"/annotate/{batch.id}/", "/annotate/", f"/annotate/{batch.id}/"):
        page.goto(live_server.url + url)
        assert page.get_attribute("html", "lang") == "en"
    page.wait_for_selector("#post-text:not(:empty)")
    page.wait_for_selector("#progress-text:has-text('0 of 2 done')")
    assert page.console_errors == []


def test_plots_speak_chinese(browser_page_zh, live_server, make_user):
    """A researcher's figures in a zh-CN browser: titles from the server, Plotly's own tool tips from
    the JavaScript catalogue, and the plots still draw."""
    make_user("res", role="researcher")
    page = browser_page_zh
    login(page, live_server, "res")
    page.goto(f"{live_server.url}/calibration/weights/")
    wait_for_plots(page)
    assert page.locator(".js-plotly-plot").count() == 3
    assert "Myopia 词元权重 — 显性偏见" in page.inner_text(".js-plotly-plot >> nth=0")
    titles = page.eval_on_selector_all(".modebar-btn", "bs => bs.map((b) => b.getAttribute('data-title'))")
    assert "下载为 PNG 图片" in titles and "Download plot as a PNG" not in titles
    assert page.console_errors == []
