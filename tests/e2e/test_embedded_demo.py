"""The must-show walk on the embedded default, as `make run` serves it: SQLite, `seed_demo`, and
`serve_embedded` (web server + Celery worker on the filesystem broker; no Redis anywhere). The
researcher logs in and, without a shell, finds finished runs, the comparison table, prior heatmaps,
the fusion table and the reliability diagram with content; "Launch" answers while the new run is
still waiting for the worker, and its bar then moves to 100%."""
from __future__ import annotations

import re
import time

import pytest

from tests.embedded_site import EmbeddedSite

from .conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.celery_worker]
NUMBER = re.compile(r"\d\.\d{3}±\d\.\d{3}")


# Traces drawn by Plotly on the page (it keeps a figure's traces on its div, beside the SVG it drew).
TRACES = "plots => plots.filter(p => p.querySelector('.main-svg')).reduce((n, p) => n + (p.data || []).length, 0)"


def traces_drawn(page, minimum: int = 1) -> int:
    page.wait_for_function(f"n => ({TRACES})(Array.from(document.querySelectorAll('.plot'))) >= n", arg=minimum,
                           timeout=20000)
    return page.eval_on_selector_all(".plot", TRACES)


def follow(page, selector: str) -> None:
    """Click a link and wait for the page it leads to."""
    with page.expect_navigation():
        page.click(selector)


def test_researcher_walks_the_demo_and_launches_a_run_on_the_embedded_worker(browser_page, tmp_path):
    site = EmbeddedSite(tmp_path)
    site.manage("seed_demo")
    (release_id,) = site.query("SELECT id FROM annotation_release WHERE number = 1")[0]
    (full_id,) = site.query("SELECT id FROM modeling_trainingrun WHERE variant = 'full' AND status = 'succeeded'")[0]
    page = browser_page
    with site.serve():
        login(page, site, "researcher", "chlgbt-demo")

        follow(page, "header nav a[href='/runs/']")
        statuses = page.eval_on_selector_all("table#runs tr[data-run]", "rows => rows.map(r => r.dataset.status)")
        assert statuses.count("succeeded") >= 2, statuses

        follow(page, "a[href^='/runs/compare/']")
        rows = page.locator("table#compare tbody tr")
        assert rows.count() == 2
        for i in range(2):
            assert len(NUMBER.findall(rows.nth(i).inner_text())) >= 6  # accuracy and F1 for three dimensions

        follow(page, "header nav a[href='/calibration/']")  # the calibration index, then its priors page
        follow(page, "main a[href='/calibration/priors/']")
        assert traces_drawn(page, 3) >= 3  # a heatmap per dimension

        page.goto(f"{site.url}/runs/{full_id}/")
        follow(page, f"a[href='/calibration/runs/{full_id}/fusion/']")
        assert traces_drawn(page, 3) >= 3  # a figure per dimension
        assert page.locator("main table tbody tr").count() >= 3  # and the strategies as tables, one per dimension
        page.go_back()
        follow(page, f"a[href='/calibration/runs/{full_id}/reliability/']")
        assert traces_drawn(page, 3) >= 3

        page.goto(f"{site.url}/admin/modeling/trainingrun/launch/")
        page.select_option("select[name=release]", str(release_id))
        for variant in ("baseline", "astigmatism", "myopia"):
            page.uncheck(f"input[name=variants][value={variant}]")
        page.fill("input[name=seeds]", "3")
        started = time.monotonic()
        with page.expect_response(lambda r: r.request.method == "POST" and "/launch/" in r.url) as answer:
            page.click("#launch")
        answered = time.monotonic() - started
        new_run = max(pk for (pk,) in site.query("SELECT id FROM modeling_trainingrun"))
        (status_when_answered,) = site.query("SELECT status FROM modeling_trainingrun WHERE id = ?", (new_run,))[0]
        assert answer.value.status == 302
        # The request did not run the job: when Launch answered, the worker had not finished it.
        assert status_when_answered in ("queued", "running")
        print(f"Launch answered in {answered:.3f} s; the run was {status_when_answered}")

        page.wait_for_selector(f"table#runs tr[data-run='{new_run}']")
        row = f"table#runs tr[data-run='{new_run}']"
        seen = []
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            finished = page.get_attribute(row, "data-status") in ("succeeded", "failed", "cancelled")
            seen.append(int(page.get_attribute(f"{row} .progress", "aria-valuenow")))  # read after the status
            if finished:
                break
            time.sleep(0.25)
        assert page.get_attribute(row, "data-status") == "succeeded", site.worker_log[-3000:]
        assert seen[-1] == 100 and seen[0] < 100 and seen == sorted(seen), seen
    assert page.console_errors == []
