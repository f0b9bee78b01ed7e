from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from annotation.releases.selectors import release_get
from annotation.releases.services import ReleaseUnchanged, release_copy, release_publish
from core.errors import DomainError


class Command(BaseCommand):
    help = ("Publish a new release from the current final labels (or copy an existing one) into OUTDIR. When the "
            "data equal the latest release, nothing is published and that release is copied.")

    def add_arguments(self, parser):
        parser.add_argument("outdir")
        parser.add_argument("--release", type=int, help="copy this published release instead of publishing a new one")
        parser.add_argument("--seed", type=int, default=0, help="split seed")
        parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for the alpha intervals")
        parser.add_argument("--split", default="auto", choices=["auto", "paper", "stratified", "kfold"],
                            help="auto (stratified 80/20 above 2,000 labelled posts, else the paper's 1,000 / rest), "
                                 "paper, stratified or kfold (docs/splits.md)")
        parser.add_argument("--folds", type=int, default=5, help="number of folds for --split kfold")
        parser.add_argument("--public", action="store_true",
                            help="publish a public release: confirmed, non-searchable rewrites only (docs/publication.md)")
        parser.add_argument("--include-provisional", action="store_true",
                            help="also release posts still being scored in open batches (fewer than k counted "
                                 "judgments, not adjudicated), marked provisional in every file that holds labels")
        parser.add_argument("--force", action="store_true",
                            help="publish a new number even when the data equal the latest release")

    def handle(self, *args, **opts):
        try:
            if opts["release"]:
                release = release_get(number=opts["release"])
            else:
                try:
                    release = release_publish(kind="public" if opts["public"] else "internal", seed=opts["seed"], bootstrap=opts["bootstrap"], force=opts["force"],
                                              split=opts["split"], folds=opts["folds"],
                                              include_provisional=opts["include_provisional"])
                except ReleaseUnchanged as exc:
                    self.stdout.write(self.style.WARNING(_(
                        "%(reason)s Copying release %(number)s instead; add --force to publish a new number anyway.")
                        % {"reason": exc, "number": exc.release.number}))
                    release = exc.release
            files = release_copy(release=release, outdir=Path(opts["outdir"]))
        except DomainError as exc:
            raise CommandError(str(exc))
        self.stdout.write(self.style.SUCCESS(
            f"Release {release.number} ({release.content_hash[:16]}): {len(files)} files in {opts['outdir']}"))
