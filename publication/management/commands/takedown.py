from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from core.errors import DomainError
from publication.takedowns import post_find, takedown_record


class Command(BaseCommand):
    help = ("Take a post out of every future release on request: its predictions are dropped and the request "
            "(who, when, why) is kept. Published releases stay as they are.")

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--post", type=int, help="the post's database id")
        which.add_argument("--text-file", help="a UTF-8 file holding the post's text (as imported or as cleaned)")
        parser.add_argument("--reason", required=True, help="who asked, and why")
        parser.add_argument("--user", help="username recording the request")

    def handle(self, *args, **opts):
        user = None
        if opts["user"]:
            user = get_user_model().objects.filter(username=opts["user"]).first()
            if user is None:
                raise CommandError(f"No user named {opts['user']!r}.")
        text = None
        if opts["text_file"]:
            path = Path(opts["text_file"])
            if not path.is_file():
                raise CommandError(f"No such file: {path}")
            try:
                text = path.read_text(encoding="utf-8-sig")
            except UnicodeDecodeError:
                raise CommandError(f"{path} is not UTF-8 text.")
        try:
            post = post_find(post_id=opts["post"], text=text)
            takedown = takedown_record(post=post, reason=opts["reason"], requested_by=user)
        except DomainError as exc:
            raise CommandError(str(exc))
        self.stdout.write(self.style.SUCCESS(
            f"Post {post.pk} ({takedown.post_key}) taken down: it leaves every future release; "
            f"{takedown.predictions_dropped} predictions dropped. Published releases are unchanged."))
