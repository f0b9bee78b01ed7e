"""A researcher launches a run from the admin and watches the progress bar reach 100%."""
from __future__ import annotations

import time

import pytest

from annotation.importing.services import import_posts
from modeling.models import TrainingRun
from tests.modeling.conftest import synthetic_csv
from tests.modeling.test_celery_worker import worker  # noqa: F401  (fixture)

from .conftest import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.celery_worker]


def test_launch_from_admin_and_watch_progress(browser_page, live_server, make_user, settings, tmp_path, worker):  # noqa: F811
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    import_posts(synthetic_csv(1500), with_labels=True)
    make_user("res", role="researcher", is_staff=True, is_superuser=True)
    page = browser_page
    login(page, live_server, "res")
    page.goto(f"{live_server.url}/admin/modeling/trainingrun/launch/")
    page.uncheck("input[name=variants][value=baseline]")
    page.uncheck("input[name=variants][value=astigmatism]")
    page.uncheck("input[name=variants][value=myopia]")
    page.fill("input[name=seeds]", "0")
    page.click("#launch")
    page.wait_for_selector("table#runs")
    seen = []
    deadline = time.time() + 180
    while time.time() < deadline:
        value = page.get_attribute("table#runs .progress", "aria-valuenow")
        seen.append(int(value))
        if page.inner_text("table#runs td.status") == "succeeded":
            break
        time.sleep(0.2)
    assert TrainingRun.objects.get().status == "succeeded"
    assert seen[-1] == 100 and any(0 <= v < 100 for v in seen), seen
    assert seen == sorted(seen)  # it only moves forward
    assert page.console_errors == []
