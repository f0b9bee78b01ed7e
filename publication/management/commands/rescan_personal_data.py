from django.core.management.base import BaseCommand, CommandError

from publication.personal_data import PLACEHOLDERS, rules_version
from publication.personal_data.services import RescanFailed, personal_data_rescan, recogniser_name


class Command(BaseCommand):
    help = ("Apply the current personal-data rules (and name recogniser, PERSONAL_DATA_NER) to posts already "
            "imported: each post's text is masked again from its raw text, never unmasking what an earlier scan "
            "masked unless --allow-unmask. All-or-nothing; reports what changed.")

    def add_arguments(self, parser):
        parser.add_argument("--batch", default=None, help="only the posts of this batch (default: every post)")
        parser.add_argument("--dry-run", action="store_true", help="report what would change and write nothing")
        parser.add_argument("--allow-unmask", action="store_true",
                            help="let the re-scan show what an earlier scan masked (a mask that was a false alarm); "
                                 "without it a re-scan never unmasks and refuses to run without a name recogniser "
                                 "when posts were last scanned with one")

    def handle(self, *args, **opts):
        try:
            report = personal_data_rescan(batch_name=opts["batch"], dry_run=opts["dry_run"],
                                          allow_unmask=opts["allow_unmask"])
        except RescanFailed as exc:
            raise CommandError(f"{exc} Nothing was changed.")
        what = "would change" if report.dry_run else "changed"
        self.stdout.write(f"Rules version {rules_version()}; name recogniser: "
                          f"{recogniser_name() or 'none (PERSONAL_DATA_NER=none: personal names are not found; the default, lac, finds them)'}.")
        if report.versions_before:
            earlier = ", ".join(f"{v or '-'} ({n} posts)" for v, n in sorted(report.versions_before.items()))
            self.stdout.write(f"Last scanned with rules version {earlier}; now {report.version}.")
        self.stdout.write(f"Scanned {report.scanned} posts ({report.first_scans} for the first time); "
                          f"{report.texts_changed} texts {what}.")
        for kind, before, after in report.kind_changes():
            self.stdout.write(f"  {kind} {PLACEHOLDERS[kind]}: {before} -> {after}")
        if report.unmasking_post_ids:
            shown = ", ".join(map(str, report.unmasking_post_ids[:50]))
            more = f" and {len(report.unmasking_post_ids) - 50} more" if len(report.unmasking_post_ids) > 50 else ""
            n = len(report.unmasking_post_ids)
            if report.allow_unmask:
                lose = "would lose" if report.dry_run else "lost"
                self.stdout.write(self.style.WARNING(
                    f"{n} posts {lose} a mask an earlier scan made (--allow-unmask): {shown}{more}"))
            else:
                self.stdout.write(self.style.WARNING(
                    f"{n} posts keep the masks an earlier scan made, which the current rules or name recogniser "
                    f"would take off (pass --allow-unmask to take them off): {shown}{more}"))
        if report.changed_post_ids:
            shown = ", ".join(map(str, report.changed_post_ids[:50]))
            more = f" and {len(report.changed_post_ids) - 50} more" if len(report.changed_post_ids) > 50 else ""
            self.stdout.write(f"Posts whose text {what}: {shown}{more}")
        self.stdout.write(self.style.SUCCESS("Dry run: nothing was written." if report.dry_run else "Done."))
