"""Django's makemessages without GNU gettext: extract the strings marked for translation (Python,
templates, static/js) and merge them into locale/<lang>/LC_MESSAGES/{django,djangojs}.po.
`--check` lists strings that still lack a translation and fails (what the CI test asserts)."""
from django.core.management.base import BaseCommand, CommandError

from core.translations import missing_translations, update_catalogues


class Command(BaseCommand):
    help = "Update locale/*/LC_MESSAGES/*.po from the source (pure Python); --check lists missing translations."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="Change nothing; fail when a translation is missing.")

    def handle(self, **options):
        if not options["check"]:
            for catalogue, added in update_catalogues().items():
                self.stdout.write(f"{catalogue}: {added} new string(s)")
        missing = missing_translations()
        for entry in missing:
            self.stdout.write(f"missing: {entry}")
        if options["check"] and missing:
            raise CommandError(f"{len(missing)} string(s) lack a translation.")
