from django.core.management.base import BaseCommand, CommandError

from publication.personal_data import PLACEHOLDERS, rules_version
from publication.personal_data.services import RescanFailed, personal_data_rescan, recogniser_name


class Command(BaseCommand):
    help = ("Apply the current personal-data rules (and name recogniser, PERSONAL_DATA_NER) to posts already "
            "imported: each post's text is masked again from its raw text. All-or-nothing; reports what changed.")

    def add_arguments(self, parser):
        parser.add_argument("--batch", default=None, help="only the posts of this batch (default: every post)")
        parser.add_argument("--dry-run", action="store_true", help="report what would change and write nothing")

    def handle(self, *args, **opts):
        try:
            report = personal_data_rescan(batch_name=opts["batch"], dry_run=opts["dry_run"])
        except RescanFailed as exc:
            raise CommandError(f"{exc} Nothing was changed.")
        what = "would change" if report.dry_run else "changed"
        self.stdout.write(f"Rules version {rules_version()}; name recogniser: "
                          f"{recogniser_name() or 'none (the offline default finds no personal names)'}.")
        if report.versions_before:
            earlier = ", ".join(f"{v or '-'} ({n} posts)" for v, n in sorted(report.versions_before.items()))
            self.stdout.write(f"Last scanned with rules version {earlier}; now {report.version}.")
        self.stdout.write(f"Scanned {report.scanned} posts ({report.first_scans} for the first time); "
                          f"{report.texts_changed} texts {what}.")
        for kind, before, after in report.kind_changes():
            self.stdout.write(f"  {kind} {PLACEHOLDERS[kind]}: {before} -> {after}")
        if report.changed_post_ids:
            shown = ", ".join(map(str, report.changed_post_ids[:50]))
            more = f" and {len(report.changed_post_ids) - 50} more" if len(report.changed_post_ids) > 50 else ""
            self.stdout.write(f"Posts whose text {what}: {shown}{more}")
        self.stdout.write(self.style.SUCCESS("Dry run: nothing was written." if report.dry_run else "Done."))
