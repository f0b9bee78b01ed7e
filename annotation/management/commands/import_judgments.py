from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importing.services import ImportFailed, import_judgments


class Command(BaseCommand):
    help = "Import judgments from a long CSV: post,annotator,explicit,implicit,emotional (empty cell = missing)."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--create-missing-posts", action="store_true",
                            help="create a post (id and text = the key) for each post key that matches no post; "
                                 "without it an unknown key is an error on its line")

    def handle(self, *args, **opts):
        path = Path(opts["file"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            result = import_judgments(path.read_bytes(), create_missing_posts=opts["create_missing_posts"])
        except ImportFailed as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{len(exc.problems)} problem(s) found; nothing was imported.")
        self.stdout.write(self.style.SUCCESS(
            f"Imported {result['judgments']} judgments by {result['annotators']} annotators "
            f"({result['posts_created']} new posts)."
        ))
