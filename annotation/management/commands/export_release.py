from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.adjudication import final_labels_refresh
from annotation.exporters import release_copy, release_publish
from annotation.models import Release
from core.errors import DomainError


class Command(BaseCommand):
    help = "Publish a new release from the current final labels (or copy an existing one) into OUTDIR."

    def add_arguments(self, parser):
        parser.add_argument("outdir")
        parser.add_argument("--release", type=int, help="copy this published release instead of publishing a new one")
        parser.add_argument("--seed", type=int, default=0, help="split seed")
        parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for the alpha intervals")

    def handle(self, *args, **opts):
        try:
            if opts["release"]:
                release = Release.objects.filter(number=opts["release"]).first()
                if release is None:
                    raise CommandError(f"No release {opts['release']}.")
            else:
                final_labels_refresh()
                release = release_publish(seed=opts["seed"], bootstrap=opts["bootstrap"])
            files = release_copy(release=release, outdir=Path(opts["outdir"]))
        except DomainError as exc:
            raise CommandError(str(exc))
        self.stdout.write(self.style.SUCCESS(
            f"Release {release.number} ({release.content_hash[:16]}): {len(files)} files in {opts['outdir']}"))
