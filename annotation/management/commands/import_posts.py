from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importing.services import ImportFailed, import_posts


class Command(BaseCommand):
    help = "Import posts from a ChLGBT-format CSV or a JSONL file. All-or-nothing."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--with-labels", action="store_true",
                            help="the file's labels become final labels with provenance 'imported'; the posts are "
                                 "reference data: a new --batch is created locked, in no annotator's queue, and a "
                                 "later labelled import adds to it (posts already in the database are skipped)")
        parser.add_argument("--as-work", action="store_true",
                            help="with --with-labels: put the labelled posts in the batch as annotation work all the "
                                 "same (annotators score them; the imported labels stay final)")
        parser.add_argument("--batch", default=None, help="batch name (created if it does not exist)")

    def handle(self, *args, **opts):
        path = Path(opts["file"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            if opts["as_work"] and not (opts["with_labels"] and opts["batch"]):
                raise CommandError("--as-work is for labelled posts put in a batch: give --with-labels and --batch NAME.")
            result = import_posts(path.read_bytes(), filename=path.name, with_labels=opts["with_labels"],
                                  batch_name=opts["batch"], as_work=opts["as_work"])
        except ImportFailed as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{len(exc.problems)} problem(s) found; nothing was imported.")
        for row in result.skipped:
            self.stdout.write(self.style.WARNING(str(row)))
        self.stdout.write(self.style.SUCCESS(
            f"Imported {result.created} posts from {path.name} ({result.encoding}); {result.labelled} with final labels."
            + (" Skipped " + " and ".join(part for part in (
                f"{len(result.skipped) - result.already_there} exact duplicate row(s)"
                if len(result.skipped) > result.already_there else "",
                f"{result.already_there} post(s) already in the database" if result.already_there else "") if part)
               + " (listed above)." if result.skipped else "")
        ))
        if result.labelled and result.batch and not result.as_work:
            self.stdout.write(f"Batch {result.batch!r} holds reference data: locked, in no annotator's queue "
                              "(--as-work makes labelled posts annotation work).")
        self.stdout.write(result.personal_data_line())
