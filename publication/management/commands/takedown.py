import getpass
from pathlib import Path

from auditlog.context import set_actor
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
        parser.add_argument("--user", help="username recording the request (without it: the command-line "
                                             "account, with the operating-system user in the audit entry)")

    def handle(self, *args, **opts):
        if opts["user"]:
            user = get_user_model().objects.filter(username=opts["user"]).first()
            if user is None:
                raise CommandError(f"No user named {opts['user']!r}.")
        else:
            user = command_line_actor()
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
            with set_actor(user):  # the audit entry names who recorded it, not "system" (issue 30)
                takedown = takedown_record(post=post, reason=opts["reason"], requested_by=user)
        except DomainError as exc:
            raise CommandError(str(exc))
        if not opts["user"]:
            _note_os_user(takedown)
        self.stdout.write(self.style.SUCCESS(
            f"Post {post.pk} ({takedown.post_key}) taken down: it leaves every future release; "
            f"{takedown.predictions_dropped} predictions dropped. Published releases are unchanged."))


COMMAND_LINE = "command-line"


def command_line_actor():
    """The account that stands for the command line (issue 30: a takedown recorded there without --user was
    logged as "system"): inactive, no password, no role - it never logs in; the audit log and the takedown's
    "requested by" name it, and the entry keeps the operating-system user who ran the command."""
    user, created = get_user_model().objects.get_or_create(username=COMMAND_LINE, defaults={"is_active": False})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment (a container without a passwd entry)
        return "unknown"


def _note_os_user(takedown) -> None:
    from auditlog.models import LogEntry
    from django.contrib.contenttypes.models import ContentType

    entries = LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(takedown), object_pk=str(takedown.pk))
    for entry in entries:
        LogEntry.objects.filter(pk=entry.pk).update(  # (no save(): a log entry is never re-signalled)
            additional_data={**(entry.additional_data or {}), "via": "command line", "os_user": _os_user()})
