from celery import shared_task

from . import services


@shared_task(acks_late=True, soft_time_limit=1800, time_limit=1900)
def rebuild_priors(request_id: int) -> int | None:
    req = services.rebuild_execute(request_id=request_id)
    return req.snapshot_id
