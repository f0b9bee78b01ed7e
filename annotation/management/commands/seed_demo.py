from django.core.management.base import BaseCommand

from annotation.demo import DEMO_PASSWORD, seed_demo


class Command(BaseCommand):
    help = "Create demo users (annotator1-6, adjudicator, researcher), demo posts and demo judgments. Idempotent."

    def handle(self, *args, **opts):
        result = seed_demo()
        self.stdout.write(self.style.SUCCESS(
            f"Demo ready: {result['annotators']} annotators, {result['posts']} posts, {result['judgments']} new judgments. "
            f"Log in as annotator1..annotator6, adjudicator or researcher with password {DEMO_PASSWORD!r}."
        ))
