"""The embedded default runs background jobs on a real Celery worker with the filesystem broker (no
Redis): `serve_embedded` (what `make run` starts) runs a launched training run to the end, a cancel
stops one, and a restart fails the job it interrupted and runs the jobs still queued."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.utils import translation

from tests.embedded_site import ROOT, EmbeddedSite
from tests.modeling.conftest import synthetic_csv

pytestmark = pytest.mark.celery_worker

LAUNCH = """
from modeling.services import training_run_launch
runs = training_run_launch(created_by=None, release_id=None, dimensions=["explicit", "implicit", "emotional"],
                           variants={variants!r}, seeds=[0], hyperparameters={{"C": 2.0}})
from modeling.models import TrainingRun
print(",".join(str(r.pk) for r in runs), TrainingRun.objects.get(pk=runs[0].pk).status)
"""


@pytest.fixture(scope="module")
def migrated_db(tmp_path_factory):
    """One migrated SQLite file, copied for each test (migrating takes seconds)."""
    site = EmbeddedSite(tmp_path_factory.mktemp("embedded-template"))
    return site.db_path


@pytest.fixture
def site(tmp_path, migrated_db):
    return EmbeddedSite(tmp_path, template_db=migrated_db)


def run_status(site, pk: int) -> tuple:
    return site.query("SELECT status, progress_current, progress_total, error, artifact_path FROM modeling_trainingrun "
                      "WHERE id = ?", (pk,))[0]


def test_a_launched_run_finishes_on_the_embedded_worker_and_a_cancel_stops_another(site, tmp_path):
    (tmp_path / "posts.csv").write_bytes(synthetic_csv(1500))
    site.manage("import_posts", str(tmp_path / "posts.csv"), "--with-labels")
    with site.serve():
        pks, status = site.shell(LAUNCH.format(variants=["baseline", "full"])).split()
        baseline, full = (int(pk) for pk in pks.split(","))
        # The launch returned before the job ran (nothing runs in the request); the worker may have
        # taken it in the instant between the launch and this read, never finished it.
        assert status in ("queued", "running")
        site.wait_for(lambda: run_status(site, full)[0] == "running" and run_status(site, full)[1] > 0,
                      what="the full run to report progress")
        site.shell(f"from modeling.services import training_run_cancel; training_run_cancel(run_id={full})")
        site.wait_for(lambda: run_status(site, baseline)[0] == "succeeded", what="the baseline run")
    status, current, total, error, artifact = run_status(site, baseline)
    assert (current, total) == (1, 1) and artifact and error == ""
    status, *_, artifact = run_status(site, full)
    assert status == "cancelled" and not artifact  # the cancelled run stopped and stored nothing
    metrics = site.query("SELECT metrics FROM modeling_trainingrun WHERE id = ?", (baseline,))[0][0]
    assert '"macro_f1"' in metrics
    assert "received" in site.worker_log and "succeeded" in site.worker_log


def test_a_restart_fails_the_interrupted_job_and_runs_the_queued_ones(site, tmp_path):
    (tmp_path / "posts.csv").write_bytes(synthetic_csv(60))
    site.manage("import_posts", str(tmp_path / "posts.csv"), "--with-labels")
    # What a stopped `make run` leaves: a run marked running whose process is gone, and an agreement
    # report still queued whose message the stopped worker had already taken off the broker.
    site.shell("""
from modeling.models import TrainingRun
from annotation.models import AgreementReport
from django.utils import timezone
TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"], status="running",
                           started_at=timezone.now())
AgreementReport.objects.create(bootstrap=50)
""")
    with site.serve():
        site.wait_for(lambda: site.query("SELECT status FROM annotation_agreementreport")[0][0] == "succeeded",
                      what="the queued report to be sent again and computed")
        (status, error), = site.query("SELECT status, error FROM modeling_trainingrun")
    assert status == "failed" and "stopped while this job ran" in error


@pytest.mark.parametrize("broker, refused", [("", True), ("redis://127.0.0.1:6379/0", False)])
def test_production_settings_refuse_the_filesystem_broker(broker, refused):
    env = {**os.environ, "DJANGO_SECRET_KEY": "production-grade-test-key-0123456789-abcdefghijklmnopqrstuvwxyz",
           "DJANGO_ALLOWED_HOSTS": "chlgbt.example.org", "CELERY_BROKER_URL": broker, "DATABASE_URL": "postgres://chlgbt:pw@db.example.org:5432/chlgbt"}
    out = subprocess.run([sys.executable, "-c", "import chlgbt_site.settings.production"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert (out.returncode != 0) == refused, out.stderr[-2000:]
    if refused:
        assert "Set CELERY_BROKER_URL to the Redis broker in production" in out.stderr


def _alive(pid: int) -> bool:
    """A process that runs (a zombie left to an init that does not reap counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _get(url: str, language: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Accept-Language": language})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_the_served_site_shows_its_own_error_pages_and_closing_the_terminal_stops_everything(site):
    """`make run` serves without Django's debug pages (DEBUG off unless DJANGO_DEBUG says so), in the
    reader's language; a SIGHUP (its terminal closed) stops the worker and the web server with it,
    so the next `make run` finds neither the port nor the worker's pidfile taken."""
    from core.management.commands.serve_embedded import worker_running

    with site.serve() as proc:
        for language, lang in (("zh-CN,zh;q=0.9", "zh-hans"), ("en-US", "en")):
            with translation.override(lang):
                heading = translation.gettext("There is no such page")
            status, html = _get(f"{site.url}/no/such/page/", language)
            assert status == 404 and f'<html lang="{lang}">' in html and 'class="topbar"' in html
            assert f"<h1>{heading}</h1>" in html
            assert "Page not found at" not in html and "Using the URLconf" not in html
        status, css = _get(f"{site.url}/static/css/app.css", "en")
        assert status == 200 and css.strip()  # static files are still served
        children = _children(proc.pid)
        assert len(children) == 2  # the worker and the web server
        proc.send_signal(signal.SIGHUP)
        proc.wait(timeout=60)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [pid for pid in children if _alive(pid)] == []
    assert worker_running(site.folder / "var" / "broker") is None
