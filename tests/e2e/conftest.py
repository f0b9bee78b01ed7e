"""Playwright driving Debian's Chromium (never a downloaded browser)."""
from __future__ import annotations

import os

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def browser_page(chromium_path):
    """A page in an English (en-US) browser: Accept-Language decides the site's language."""
    yield from _page(chromium_path, "en-US")


@pytest.fixture
def browser_page_zh(chromium_path):
    """A page in a Simplified Chinese (zh-CN) browser."""
    yield from _page(chromium_path, "zh-CN")


def _page(chromium_path, locale: str):
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900}, locale=locale)
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("response", lambda r: errors.append(f"HTTP {r.status} {r.url}") if r.status >= 400 else None)
            page.console_errors = errors
            yield page
            browser.close()
        finally:
            connections_opened_under_playwright_close()


def connections_opened_under_playwright_close() -> None:
    """While Playwright's event loop is this thread's running loop, Django keeps the thread's database
    connections apart (its connection storage is asgiref's thread-critical Local, which follows the
    running loop), so a query the test makes in the browser block opens a second connection. Nothing
    else ever closes it: pytest-django closes the thread's own connection before it drops the test
    database, and PostgreSQL then refused ("being accessed by other users"). Closed here, inside the
    block, the only place that sees it."""
    from django.db import connections

    connections.close_all()


def login(page, live_server, username: str, password: str = "pw-for-tests-1") -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")  # not the header's language switch
    page.wait_for_load_state("networkidle")


# How many of the page's figure boxes plotly has drawn into (static/js/figures.js draws those off screen later).
PLOTS_DRAWN = "() => Array.from(document.querySelectorAll('.plot')).filter(p => p.querySelector('.main-svg')).length"


def wait_for_plots(page, count: int | None = None) -> None:
    """Until `count` figures are drawn, or every figure box on the page when count is None."""
    if count is None:
        count = page.locator(".plot").count()
    page.wait_for_function(f"n => ({PLOTS_DRAWN})() >= n", arg=count)
