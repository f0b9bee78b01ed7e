"""How a page draws its figures (static/js/figures.js; issue 31: every page <= 1 s): the figures on
screen are drawn by the load event; those below the fold follow while the browser is idle, without any
scrolling; nothing moves when they are drawn; a download draws a figure that is not drawn yet."""
from __future__ import annotations

import pytest

from .conftest import login, wait_for_plots

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# The figure boxes: id, whether plotly drew it, and where it sits.
BOXES = """() => Array.from(document.querySelectorAll(".plot")).map(p => ({
    id: p.id, drawn: p.querySelector(".main-svg") !== null, top: Math.round(p.getBoundingClientRect().top + scrollY),
    height: Math.round(p.getBoundingClientRect().height)}))"""


def _window_for_the_first_figure(page, live_server) -> int:
    """A window height that shows the top of the weights page's first figure and ends well above the second."""
    page.goto(f"{live_server.url}/calibration/weights/")
    first, second, third = page.evaluate(BOXES)  # where they sit before any is drawn: their heights are kept
    height = first["top"] + 50
    assert second["top"] >= height + 300  # beyond the 300 px the page looks ahead when scrolling
    return height


def test_figures_on_screen_are_drawn_by_the_load_event_and_no_others(browser_page, live_server, make_user):
    make_user("res", role="researcher")
    page = browser_page
    login(page, live_server, "res")
    # no idle time for this page: what is drawn by the load event is what the page drew first
    page.add_init_script("window.requestIdleCallback = () => 0;")
    page.set_viewport_size({"width": 1280, "height": _window_for_the_first_figure(page, live_server)})
    page.goto(f"{live_server.url}/calibration/weights/")  # returns at the load event
    at_load = page.evaluate(BOXES)
    assert [box["drawn"] for box in at_load] == [True, False, False], at_load
    assert page.console_errors == []


def test_figures_below_the_fold_are_drawn_without_scrolling_and_nothing_moves(browser_page, live_server, make_user):
    make_user("res", role="researcher")
    page = browser_page
    login(page, live_server, "res")
    page.set_viewport_size({"width": 1280, "height": _window_for_the_first_figure(page, live_server)})
    page.goto(f"{live_server.url}/calibration/weights/")
    before = page.evaluate(BOXES)
    wait_for_plots(page)
    after = page.evaluate(BOXES)
    assert page.evaluate("scrollY") == 0
    assert [(b["id"], b["top"], b["height"]) for b in before] == [(a["id"], a["top"], a["height"]) for a in after]
    assert all(box["drawn"] for box in after)
    assert page.console_errors == []


def test_a_download_draws_the_figure_it_asks_for(browser_page, live_server, make_user):
    make_user("res", role="researcher")
    page = browser_page
    login(page, live_server, "res")
    page.add_init_script("window.requestIdleCallback = () => 0; window.IntersectionObserver = undefined;")
    page.goto(f"{live_server.url}/calibration/weights/")
    last = page.evaluate(BOXES)[-1]
    assert not last["drawn"]  # below the fold, and nothing draws it on its own here
    key = last["id"].removeprefix("fig-")
    with page.expect_download() as download:
        page.click(f"button[data-download='{key}'][data-format=svg]")
    assert download.value.suggested_filename == f"{key}.svg"
    assert page.evaluate(f"document.querySelector('#{last['id']} .main-svg') !== null")
    assert page.console_errors == []
