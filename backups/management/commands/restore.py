"""`python manage.py restore OUTDIR`: verify a backup's manifest, then put it back."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from backups.database import BackupError
from backups.services import backup_restore, backup_verify


class Command(BaseCommand):
    help = ("Restore a backup made by `backup`: every file is checked against MANIFEST.json first and a damaged "
            "backup is refused with nothing changed; then the database is replaced in one step and the media "
            "folders swapped into place. Stop the web server and the workers first.")

    def add_arguments(self, parser):
        parser.add_argument("folder", help="the backup folder (the OUTDIR given to `backup`)")
        parser.add_argument("--check", action="store_true", help="only verify the backup against its manifest")
        parser.add_argument("--yes", action="store_true",
                            help="replace the current database and media files without asking")

    def handle(self, *args, folder: str, check: bool, yes: bool, **options):
        try:
            manifest = backup_verify(folder=Path(folder))
            if check:
                self.stdout.write(self.style.SUCCESS(
                    f"{folder}: intact (the database and {len(manifest['files']) - 1} files match the manifest of "
                    f"{manifest['created_at']})."))
                return
            if not yes and input(f"Replace the current database and media files with the backup of "
                                 f"{manifest['created_at']}? [y/N] ").strip().lower() not in ("y", "yes"):
                raise CommandError("Nothing was restored.")
            backup_restore(folder=Path(folder))
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        try:  # into the restored database: the log then says when it was put back
            from django.utils.translation import gettext_noop

            from audit.services import audit_event

            audit_event(actor=None, event="backup", what=gettext_noop("Restored the backup of %(created)s from %(folder)s"),
                        params={"created": manifest["created_at"], "folder": Path(folder).name},
                        changes={"files": (None, len(manifest["files"]) - 1)})  # as `backup` counts: the database apart
        except Exception as exc:  # the restore itself is complete
            self.stderr.write(self.style.WARNING(f"The restore is complete, but its audit entry could not be written: {exc}"))
        self.stdout.write(self.style.SUCCESS(
            f"Restored the backup of {manifest['created_at']} ({manifest['database']['vendor']}, "
            f"{len(manifest['files']) - 1} files). Run `python manage.py migrate` if this code is newer than the backup."))
