"""python manage.py export_annotator USERNAME OUTDIR: everything the workbench holds about one
annotator, as JSON files with a manifest (wellbeing/data_rights.py), for access requests."""
from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from wellbeing.data_rights import annotator_export


class Command(BaseCommand):
    help = "Export everything held about one annotator (profile, judgments, revisions, claims, qualification, " \
           "wellbeing, audit entries) into OUTDIR."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("outdir")

    def handle(self, *args, username, outdir, **options):
        try:
            target = annotator_export(username=username, outdir=outdir)
        except DomainError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Exported to {target}")
