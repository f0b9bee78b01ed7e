"""Post imports in the background: an upload large enough that masking its personal data (the
name recogniser above all) takes more than a few seconds (IMPORT_BACKGROUND_BYTES) becomes a
PostImport row and a task; its page shows a progress bar and then what the import reported. The
import itself is the same `import_posts`, all-or-nothing; the uploaded bytes are dropped when it ends."""
from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_noop

from core.jobs import job_progress, job_run

from .models import PostImport
from .parsers import ImportFailed

PROBLEMS_KEPT = 500
STAGE_READING = gettext_noop("reading the file")
STAGE_MASKING = gettext_noop("masking personal data")
STAGE_WRITING = gettext_noop("writing the posts")


def runs_in_background(size: int) -> bool:
    return size >= settings.IMPORT_BACKGROUND_BYTES


def post_import_queue(*, data: bytes, filename: str, with_labels: bool, batch_name: str | None, as_work: bool,
                      user=None) -> PostImport:
    """Write the upload as a queued import and send its task once the row is committed."""
    job = PostImport.objects.create(data=data, filename=filename[:255], size=len(data), with_labels=with_labels,
                                    batch_name=batch_name or "", as_work=as_work, created_by=user)

    def enqueue(job_id: int = job.pk) -> None:
        from annotation.tasks import post_import_task

        post_import_task.delay(job_id)

    transaction.on_commit(enqueue)
    return job


def post_import_run(job_id: int) -> PostImport:
    """Run a queued import: progress per chunk of masked posts; succeeded with what it reported, or
    failed with the problems that stopped it (nothing written then). The file is dropped either way."""
    from .services import import_posts

    def work(row: PostImport) -> dict:
        job_progress(PostImport, job_id, stage=STAGE_READING, current=0, total=1)

        def progress(done: int, total: int) -> None:
            job_progress(PostImport, job_id, stage=STAGE_MASKING if done < total else STAGE_WRITING,
                         current=done, total=total)

        try:
            result = import_posts(bytes(row.data), filename=row.filename, with_labels=row.with_labels,
                                  batch_name=row.batch_name or None, as_work=row.as_work, progress=progress,
                                  actor=row.created_by)  # the task runs outside the upload's request
        except ImportFailed as exc:
            PostImport.objects.filter(pk=job_id).update(data=b"", result={
                "problems": [str(p) for p in exc.problems[:PROBLEMS_KEPT]], "problem_count": len(exc.problems)})
            raise
        return {"data": b"", "stage": "done", "result": {
            "created": result.created, "labelled": result.labelled, "encoding": result.encoding,
            "batch": result.batch, "personal_data": result.personal_data, "as_work": result.as_work,
            "posts_with_personal_data": result.posts_with_personal_data,
            "skipped": [str(p) for p in result.skipped[:PROBLEMS_KEPT]]}}

    return job_run(PostImport, job_id, work)
