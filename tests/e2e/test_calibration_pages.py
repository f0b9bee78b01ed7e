"""Every calibration page loads in Chromium with its plotly figures drawn and no console errors."""
from __future__ import annotations

import pytest

from annotation.agreement.services import agreement_report_request
from annotation.releases.services import release_publish
from annotation.importing.services import import_posts
from annotation.models import Post
from calibration.models import PriorSnapshot
from modeling import services
from tests.modeling.conftest import synthetic_csv

from .conftest import wait_for_plots

from .conftest import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_calibration_pages_render(browser_page, live_server, make_user, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    import_posts(synthetic_csv(80), with_labels=True)
    release = release_publish(bootstrap=0)  # the priors rebuild follows on commit (eager here)
    agreement_report_request(bootstrap=20)  # the agreement page shows the latest computed report
    assert PriorSnapshot.objects.filter(release=release).exists()
    (run,) = services.training_run_launch(created_by=None, release_id=release.pk, dimensions=["explicit", "implicit",
                                          "emotional"], variants=["full"], seeds=[0])
    services.scoring_job_launch(created_by=None, run_id=run.pk)
    post = Post.objects.first()
    make_user("res", role="researcher")
    page = browser_page
    login(page, live_server, "res")
    for path, plots in [("/calibration/priors/", 1), ("/calibration/weights/", 3),
                        (f"/calibration/weights/?post={post.pk}", 3), (f"/calibration/runs/{run.pk}/fusion/", 3),
                        (f"/calibration/runs/{run.pk}/reliability/", 3), ("/calibration/overview/", 1),
                        (f"/calibration/case/{post.pk}/", 3), ("/agreement/", 1), (f"/runs/compare/?ids={run.pk}", 0)]:
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        # every figure is drawn without scrolling (those below the fold once the browser is idle)
        wait_for_plots(page, plots)
        assert page.locator(".js-plotly-plot").count() >= plots, path
    assert page.console_errors == []
