"""`manage.py seed_demo`: the embedded default's demo, a research group a few weeks in. It lives in
modeling because it seeds runs too (annotation never imports modeling)."""
import time

from django.core.management.base import BaseCommand

from annotation.demo import DEMO_PASSWORD, seed_demo
from chlgbt_site.celery import tasks_inline
from modeling.demo import seed_demo_runs


class Command(BaseCommand):
    help = ("Create the demo (idempotent): users annotator1-6, adjudicator, researcher; a locked batch with six "
            "judgments a post, some adjudicated; release 1 with its prior snapshot; a finished baseline and full run "
            "with predictions; an open batch still being scored, with a content notice; rewrites (one confirmed), a public "
            "release of it, a takedown and release 3, whose diff lists it and whose card counts the open batch's "
            "unfinished posts; next week's posts imported by the researcher. Interrupted, the next run finishes it. An account "
            "erased on request is never made again.")

    def handle(self, *args, **opts):
        started = time.monotonic()
        with tasks_inline():  # the demo is complete when the command returns
            result = seed_demo()
            runs = seed_demo_runs(release=result["release"], researcher=result["researcher"])
        self.stdout.write(self.style.SUCCESS(
            f"Demo ready in {time.monotonic() - started:.1f} s: {result['annotators']} annotators, {result['posts']} posts, "
            f"{result['judgments']} new judgments, release {result['release'].number}, {runs['runs']} finished runs, "
            f"{runs['predictions']} predictions. Log in as annotator1..annotator6, adjudicator or researcher with "
            f"password {DEMO_PASSWORD!r}."))
