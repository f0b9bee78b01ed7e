"""python manage.py erase_annotator USERNAME [--reason TEXT]: erase an annotator's personal data
(wellbeing/data_rights.py); their judgments stay, as a pseudonymous annotator's."""
from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from wellbeing.data_rights import annotator_erase


class Command(BaseCommand):
    help = "Erase an annotator's name, username, e-mail, password and community-member flag; keep their judgments."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--reason", default="", help="Why (kept in the audit log), e.g. the request's reference.")

    def handle(self, *args, username, reason, **options):
        try:
            erased = annotator_erase(username=username, reason=reason)
        except DomainError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Erased: now {erased.username} (pseudonym {erased.pseudonym}); "
                          f"{erased.judgments} judgments kept. The request is in the audit log.")
