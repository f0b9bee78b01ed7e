"""A real Celery worker (the project's app, its settings, queues, pool and beat) whose jobs block in
the middle of their work, for the tests that kill the worker during each job kind. The job is really
started by core.jobs.job_run (queued -> running, its heartbeat thread beating); only the work itself
waits, after writing the pid of the process running it to $BLOCKING_PID_DIR/<kind>-<id>, so a test
knows which process to kill.

    python -m tests.blocking_worker worker -Q default,gpu ...   (the arguments of `celery -A chlgbt_site`)
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def _block(kind: str, job_id: int) -> None:
    folder = Path(os.environ["BLOCKING_PID_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{kind}-{job_id}.tmp").write_text(str(os.getpid()))
    (folder / f"{kind}-{job_id}.tmp").rename(folder / f"{kind}-{job_id}")
    time.sleep(3600)
    raise AssertionError("a blocked job was not killed")


def install_blocks() -> None:
    """Each job kind's work waits at a point inside job_run (after the job started)."""
    from annotation.agreement import services as agreement_services
    from annotation.quality import services as quality_services
    from calibration import services as calibration_services
    from modeling import services as modeling_services
    from modeling.maam import train as maam_train

    agreement_services.agreement_report = lambda bootstrap: _block("agreementreport", _current_job())
    quality_services._aggregation_work = lambda run: _block("aggregationrun", run.pk)
    calibration_services.prior_snapshot_build = lambda **kwargs: _block("rebuildrequest", _current_job())
    modeling_services.release_data = lambda release, seed=0, include_provisional=False: _block("trainingrun", _current_job())
    maam_train.MAAMModel.load = classmethod(lambda cls, path: _block("scoringjob", _current_job()))

    # Which job a patched function serves: the row job_run just started (its id is the task's argument).
    from celery.signals import task_prerun

    @task_prerun.connect(weak=False)
    def remember(task_id=None, task=None, args=None, **kwargs):
        os.environ["BLOCKING_JOB_ID"] = str(args[0]) if args else "0"


def _current_job() -> int:
    return int(os.environ.get("BLOCKING_JOB_ID", "0"))


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "chlgbt_site.settings.local")
    import django

    django.setup()
    install_blocks()
    from chlgbt_site.celery import app

    app.worker_main(sys.argv[1:])


if __name__ == "__main__":
    main()
