"""Django's compilemessages without GNU gettext: locale/*/LC_MESSAGES/*.po -> .mo in pure Python
(Babel), so a fresh machine needs no msgfmt. `make install` and the test run call it."""
from django.core.management.base import BaseCommand

from core.translations import compile_catalogues


class Command(BaseCommand):
    help = "Compile the project's .po catalogues (locale/) to .mo files, without GNU gettext."

    def handle(self, **options):
        for path in compile_catalogues():
            self.stdout.write(f"compiled {path}")
