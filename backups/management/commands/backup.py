"""`python manage.py backup OUTDIR`: the database and the media files, with a manifest of hashes."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from backups.database import BackupError
from backups.services import backup_create


def _audit(*, folder: str, files: int, size: int) -> None:
    """The audit log's entry (the command line has no user: the system)."""
    from django.utils.translation import gettext_noop

    from audit.services import audit_event

    audit_event(actor=None, event="backup", what=gettext_noop("Backup to a folder %(folder)s"),
                params={"folder": folder}, changes={"files": (None, files), "bytes": (None, size)})


class Command(BaseCommand):
    help = ("Back up the database (PostgreSQL: pg_dump, whose major version must match the server's; SQLite: its "
            "online backup) and the media files (releases, uploads, model artefacts) into OUTDIR, a new folder, "
            "with MANIFEST.json listing every file's size and sha256. Safe while the site runs.")

    def add_arguments(self, parser):
        parser.add_argument("outdir", help="a folder that does not exist yet (or is empty)")

    def handle(self, *args, outdir: str, **options):
        try:
            summary = backup_create(outdir=Path(outdir))
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        _audit(folder=Path(outdir).name, files=summary.files, size=summary.bytes)
        self.stdout.write(self.style.SUCCESS(
            f"Backup in {summary.folder}: {summary.database['vendor']} database "
            f"({summary.database.get('server_version', '')}), {summary.files} files, "
            f"{summary.bytes / 1e6:.1f} MB in all."))
