from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.importing.parsers import ImportFailed
from publication.rewriting.importing import rewrites_import


class Command(BaseCommand):
    help = ("Import rewrites made elsewhere from a CSV with columns Sentences,Rewrite (the original text as "
            "imported) or post,Rewrite (the post's id). Personal data in the rewrites is masked, searchable "
            "rewrites are flagged; every problem is listed with its line and nothing is imported if there is one.")

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--confirm", action="store_true",
                            help="record the importing researcher (--user) as the confirmer of every rewrite")
        parser.add_argument("--user", help="username of the importing researcher (needed with --confirm)")

    def handle(self, *args, **opts):
        path = Path(opts["file"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        user = None
        if opts["user"]:
            user = get_user_model().objects.filter(username=opts["user"]).first()
            if user is None:
                raise CommandError(f"No user named {opts['user']!r}.")
        try:
            result = rewrites_import(path.read_bytes(), confirm=opts["confirm"], user=user)
        except ImportFailed as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{len(exc.problems)} problem(s) found; nothing was imported.")
        for line, span in result.searchable:
            self.stdout.write(self.style.WARNING(
                f"line {line}: searchable - shares a span of {span} characters with the original post "
                f"(threshold {result.threshold}); a public release leaves it out until it is rewritten"))
        masked = ", ".join(f"{kind} {count}" for kind, count in result.personal_data.items()) or "none"
        state = "confirmed" if result.confirmed else "waiting for confirmation"
        self.stdout.write(self.style.SUCCESS(
            f"Imported {result.imported} rewrites from {path.name} ({result.encoding}), {state}; "
            f"{len(result.searchable)} searchable; personal data masked: {masked}."))
