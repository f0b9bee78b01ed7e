"""Celery application. Production: a Redis broker and `default` + `gpu` workers. The embedded
default: a filesystem broker under var/broker/ and one worker that `make run` starts (settings)."""
import os
from contextlib import contextmanager

from celery import Celery
from celery.signals import celeryd_after_setup

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "chlgbt_site.settings.local")

app = Celery("chlgbt_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@celeryd_after_setup.connect
def recover_embedded_jobs(sender=None, **kwargs) -> None:
    """The embedded default's one worker, before it takes a message: jobs the previous run of
    `make run` left running are failed with the reason, queued ones are sent again (core.jobs)."""
    from django.conf import settings

    if settings.CELERY_EMBEDDED_BROKER:
        from core.jobs import jobs_recover_after_restart

        jobs_recover_after_restart(app.send_task)


@contextmanager
def tasks_inline():
    """Run every task sent inside the block in this process, at once (as the test settings do):
    for commands that must return with their jobs done, such as `seed_demo`."""
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous
