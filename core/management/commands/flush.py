"""Django's flush, allowed to empty immutable tables: wiping the whole database is the one time
their rows may go (tests flush between transactional cases this way)."""
from django.core.management.commands import flush

from core.immutable import immutable_guard_lifted


class Command(flush.Command):
    def handle(self, **options):
        with immutable_guard_lifted():
            return super().handle(**options)
