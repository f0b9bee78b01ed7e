"""Annotator data rights (issue 22): erasure and access.

`annotator_erase`: the person's name, username, e-mail, password and community-member flag are
removed or replaced; the account becomes a pseudonymous, inactive row (`erased-<pseudonym>`) that
keeps their judgments, so agreement, final labels and releases (which name annotators by pseudonym
only) do not change. Everything that repeats the username or e-mail elsewhere is rewritten or
dropped in the same transaction: the audit log (object names, actor e-mail, change values), stored
quality reports, free text (notes, rationales, takedown reasons), login-throttle records (any case),
sessions and API tokens; their real name in their own judgment notes. The request itself is logged in the
audit log (who asked, when, the pseudonym, the reason; never the old name, in the reason neither).

`annotator_export`: everything the workbench holds about one annotator, as JSON files in a new folder
(for access requests). Through the visibility policy (issue 30): while gold is hidden from the person
(they annotate), what it withholds from them stays withheld until the batch is locked - for their
judgments and claims in an open batch, the post id (a gold post stands out by its id: the queue names
items by claim instead) and the gold mark; for a qualification round they may still take, its gold
labels. MANIFEST.json says what was withheld and why."""
from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Q
from django.forms.models import model_to_dict
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import (
    AnnotatorProfile,
    Assignment,
    Batch,
    FinalLabel,
    Judgment,
    JudgmentRevision,
    QualificationAnswer,
    QualificationAttempt,
)
from core.errors import DomainError, NotFound
from publication.rewrite_models import Rewrite

from .models import NoticeAcceptance
from .selectors import exposure

ERASED_PREFIX = "erased-"
# Models whose JSON columns may hold stored reports naming annotators (the quality panel's report).
_REPORT_FIELDS = (("annotation", "aggregationrun", "summary"), ("annotation", "agreementreport", "payload"))
# django-axes (the login throttle) keeps usernames of attempts; these rows go.
_THROTTLE_MODELS = (("axes", "accessattempt"), ("axes", "accesslog"), ("axes", "accessfailurelog"))


@dataclass(frozen=True)
class Erasure:
    user_id: int
    pseudonym: str
    username: str  # the new, pseudonymous username
    judgments: int


def _user(username: str):
    user = get_user_model().objects.select_for_update().filter(username=username).first()
    if user is None:
        raise NotFound(_("No user named %(username)s.") % {"username": username})
    return user


# A name's edge: no ASCII letter, digit or _ beside it, nor `.`, `@` or `-` with one of those beyond
# (ann1 is not in ann10, ann1x, ann1.smith, x@ann1.org); `+`, a `.` ending a sentence, a trailing `-`
# or `@` and Chinese text around it are edges (ann1+ann2, 问过ann1., ann1-, 同意ann1的).
_NAME_CHAR = "A-Za-z0-9_"
_BEFORE = rf"(?<![{_NAME_CHAR}])(?<![{_NAME_CHAR}][.@-])"
_AFTER = rf"(?![{_NAME_CHAR}])(?![.@-][{_NAME_CHAR}])"


# The same edges for a name with a non-ASCII character (小红, josé) in other people's text: no letter
# or digit of any script beside it, so it is never taken out of a run of Chinese (小红和小明).
_BEFORE_ANY_SCRIPT = r"(?<!\w)(?<!\w[.@-])"
_AFTER_ANY_SCRIPT = r"(?!\w)(?![.@-]\w)"


def _whole(word: str, *, any_script: bool = False) -> re.Pattern:
    """`word` as a whole name, in any case: not part of a longer username or address (ann1 is not in
    ann10 nor in ann1.smith; it is in "ann1." at the end of a sentence and in "ann1+ann2").
    With `any_script`, a non-ASCII name also needs non-letters of every script on both sides."""
    if any_script and not word.isascii():
        return re.compile(_BEFORE_ANY_SCRIPT + re.escape(word) + _AFTER_ANY_SCRIPT, re.IGNORECASE)
    return re.compile(_BEFORE + re.escape(word) + _AFTER, re.IGNORECASE)


def _replace(value: Any, old: set[str], new: str, *, any_script: bool = False) -> Any:
    """`value` (JSON) with every occurrence of one of the names in `old` rewritten to `new`."""
    if isinstance(value, str):
        for word in old:
            if word:
                value = _whole(word, any_script=any_script).sub(new, value)
        return value
    if isinstance(value, list):
        return [_replace(v, old, new, any_script=any_script) for v in value]
    if isinstance(value, dict):
        return {_replace(k, old, new, any_script=any_script): _replace(v, old, new, any_script=any_script)
                for k, v in value.items()}
    return value


def _mentions(value: Any, old: set[str]) -> bool:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, cls=DjangoJSONEncoder)
    return any(word and word.lower() in text.lower() for word in old)


def _job_text_fields() -> list[tuple[Any, tuple[str, ...]]]:
    """Every background job's text and JSON columns (core.jobs.Job rows: errors, parameters, results,
    prompts and answers), which may carry a name someone typed or a job copied."""
    from core.jobs import Job

    out = []
    for model in apps.get_models():
        if not issubclass(model, Job) or model._meta.abstract:
            continue
        fields = tuple(f.name for f in model._meta.concrete_fields
                       if f.get_internal_type() in ("TextField", "CharField", "JSONField") and not f.choices
                       and not f.primary_key and not f.is_relation)
        if fields:
            out.append((model, fields))
    return out


def _own_rows(model, user) -> Q | None:
    """The rows of `model` the person wrote, confirmed, requested or otherwise stands behind: any
    foreign key of the row to the account (Rewrite.author, .created_by, .confirmer; Judgment.annotator;
    a job's created_by ...). None when the model has no such key."""
    user_model = get_user_model()
    own = None
    for field in model._meta.concrete_fields:
        if field.is_relation and field.related_model is user_model:
            own = Q(**{field.name: user}) if own is None else own | Q(**{field.name: user})
    return own


def _rewrite_free_text(old: set[str], new: str, user) -> None:
    """Free text people typed that may name the account: judgment notes and their revisions,
    adjudication rationales, takedown reasons, rewrites of posts, and background jobs' payloads
    (update(): no signal, no new audit entry).

    In the person's own rows (see _own_rows) the name goes wherever it stands. In everybody else's, a
    name with a non-ASCII character (小红) goes only where no letter of any script touches it, never
    out of a run of Chinese: erasing 小红 leaves another author's confirmed "小红和小明在一起了" (which a
    release publishes) as it was. An ASCII name (ann1) is matched as everywhere else (同意ann1的)."""
    from publication.models import Rewrite, Takedown

    for model, fields in ((Judgment, ("note",)), (JudgmentRevision, ("old", "new")), (FinalLabel, ("rationale",)),
                          (Takedown, ("reason",)), (Rewrite, ("text",)), *_job_text_fields()):
        own = _own_rows(model, user)
        own_pks = set(model.objects.filter(own).values_list("pk", flat=True)) if own is not None else set()
        for field in fields:
            lookup = Q()
            for word in old:  # (JSON columns may hold the name \u-escaped)
                for form in {word, json.dumps(word)[1:-1]}:
                    lookup |= Q(**{f"{field}__icontains": form})
            for pk, value in model.objects.filter(lookup).values_list("pk", field).iterator():
                rewritten = _replace(value, old, new, any_script=pk not in own_pks)
                if rewritten != value:
                    model.objects.filter(pk=pk).update(**{field: rewritten})


def _real_name_forms(first: str, last: str) -> set[str]:
    """The ways a person's real name is written: in either order, with or without a space, and each
    part of two characters or more (one character, 伟 or J, is part of too many other words)."""
    first, last = (first or "").strip(), (last or "").strip()
    forms = {part for part in (first, last) if len(part) >= 2}
    if first and last:
        forms |= {f"{first} {last}", f"{last} {first}", f"{last}{first}", f"{first}{last}"}
    return forms


def _rewrite_own_notes(user, names: set[str], new: str) -> None:
    """Their real name in their own judgment notes and those notes' revisions (issue 30): the notes stay,
    the name becomes their pseudonymous username. Longest forms first, so "林小明" is not left as "林<new>"."""
    if not names:
        return
    ordered = sorted(names, key=len, reverse=True)

    def scrub(value):
        for name in ordered:
            value = _replace(value, {name}, new)
        return value

    for pk, note in Judgment.objects.filter(annotator=user).exclude(note="").values_list("pk", "note"):
        if scrub(note) != note:
            Judgment.objects.filter(pk=pk).update(note=scrub(note))
    for pk, before, after in JudgmentRevision.objects.filter(judgment__annotator=user).values_list("pk", "old", "new"):
        if (scrub(before), scrub(after)) != (before, after):
            JudgmentRevision.objects.filter(pk=pk).update(old=scrub(before), new=scrub(after))


@transaction.atomic
def annotator_erase(*, username: str, requested_by=None, reason: str = "") -> Erasure:
    """Erase one annotator's personal data, keeping their judgments as a pseudonymous annotator's."""
    from audit.services import audit_record
    from auditlog.models import LogEntry

    user = _user(username)
    if user.username.startswith(ERASED_PREFIX) and not user.is_active:
        raise DomainError(_("This account was already erased."))
    if user.is_superuser:
        raise DomainError(_("A superuser cannot be erased; take the superuser status away first."))
    profile = AnnotatorProfile.objects.filter(user=user).first()
    if profile is None:  # (an account that never annotated: it still gets a pseudonym to stand behind)
        profile = AnnotatorProfile.objects.create(user=user, pseudonym=f"A-{secrets.token_hex(4).upper()}")
    old = {user.username, user.email} - {""}
    real_names = _real_name_forms(user.first_name, user.last_name)
    new_username = f"{ERASED_PREFIX}{profile.pseudonym}"

    user.username, user.first_name, user.last_name, user.email = new_username, "", "", ""
    user.is_active = user.is_staff = False
    user.set_unusable_password()
    user.save()
    profile.community_member = None
    profile.attributes = {}
    profile.save(update_fields=["community_member", "attributes"])

    # Sessions (the database's, and the shared cache's copy through the session store) and API tokens.
    from importlib import import_module

    from django.conf import settings

    store = import_module(settings.SESSION_ENGINE).SessionStore
    for session in Session.objects.all().iterator():
        if str(session.get_decoded().get("_auth_user_id")) == str(user.pk):
            store(session_key=session.session_key).delete()
    if apps.is_installed("rest_framework.authtoken"):
        apps.get_model("authtoken", "Token").objects.filter(user=user).delete()
    for app_label, model_name in _THROTTLE_MODELS:
        try:
            model = apps.get_model(app_label, model_name)
        except LookupError:
            continue
        same_name = Q()
        for word in old:  # (a login attempt as ANN1 is an attempt on ann1's account)
            same_name |= Q(username__iexact=word)
        model.objects.filter(same_name).delete()

    # The audit log: names of the account in object names, the actor's e-mail, change values.
    candidates = set(LogEntry.objects.filter(Q(actor=user) | Q(actor_email__in=old)).values_list("pk", flat=True))
    for word in old:
        candidates |= set(LogEntry.objects.filter(Q(object_repr__icontains=word) | Q(changes_text__icontains=word)
                                                  | Q(changes__icontains=word) | Q(additional_data__icontains=word)
                                                  | Q(serialized_data__icontains=word)).values_list("pk", flat=True))
    for entry in LogEntry.objects.filter(pk__in=candidates):
        entry.object_repr = _replace(entry.object_repr, old, new_username)
        entry.changes_text = _replace(entry.changes_text, old, new_username)
        entry.changes = _replace(entry.changes, old, new_username)
        entry.additional_data = _replace(entry.additional_data, old, new_username)
        entry.serialized_data = _replace(entry.serialized_data, old, new_username)
        if entry.actor_email in old or entry.actor_id == user.pk:
            entry.actor_email = None
        LogEntry.objects.filter(pk=entry.pk).update(  # (no save(): a log entry is never re-signalled)
            object_repr=entry.object_repr, changes_text=entry.changes_text, changes=entry.changes,
            additional_data=entry.additional_data, serialized_data=entry.serialized_data,
            actor_email=entry.actor_email)

    # Django admin's own history (its object names repeat the username).
    if apps.is_installed("django.contrib.admin"):
        from django.contrib.admin.models import LogEntry as AdminLogEntry

        for word in old:
            for row in AdminLogEntry.objects.filter(Q(object_repr__icontains=word) | Q(change_message__icontains=word)):
                AdminLogEntry.objects.filter(pk=row.pk).update(
                    object_repr=_replace(row.object_repr, old, new_username),
                    change_message=_replace(row.change_message, old, new_username))

    _rewrite_free_text(old, new_username, user)
    _rewrite_own_notes(user, real_names, new_username)

    # Stored reports (the quality panel's, agreement) that name annotators.
    for app_label, model_name, field in _REPORT_FIELDS:
        model = apps.get_model(app_label, model_name)
        for pk, value in model.objects.exclude(**{f"{field}__isnull": True}).values_list("pk", field).iterator():
            if _mentions(value, old):
                model.objects.filter(pk=pk).update(**{field: _replace(value, old, new_username)})

    judgments = Judgment.objects.filter(annotator=user).count()
    # The request's reason is kept, but never the name it may repeat (issue 30): "asked by ann7" -> the pseudonym.
    audit_record(actor=requested_by, instances=[user], event="erasure", note=_replace(reason, old | real_names,
                                                                                        new_username)[:500],
                 changes={"username": ("—", new_username), "email": ("—", ""), "password": ("—", "unusable"),
                          "community_member": ("—", None), "is_active": (True, False)})
    return Erasure(user_id=user.pk, pseudonym=profile.pseudonym, username=new_username, judgments=judgments)


# --- Export (access requests) -----------------------------------------------------------------------

def _rows(queryset, fields=None) -> list[dict]:
    return [model_to_dict(obj, fields=fields) | {"id": obj.pk} for obj in queryset]


@dataclass(frozen=True)
class Withheld:
    """What the visibility policy withholds from the exported person until the batch is locked."""

    open_posts: frozenset[int]  # posts of their claims (and judgments) in a batch still open
    claims: dict[int, int]  # post id -> their claim's id (what the queue names an item by)
    qualification_items: frozenset[int]  # gold items of rounds they may still take (rule 3)


def _withheld_until_locked(user) -> Withheld:
    from annotation.visibility import gold_hidden_from, qualification_gold_withheld

    if not gold_hidden_from(user):
        return Withheld(frozenset(), {}, frozenset())
    claims = dict(Assignment.objects.filter(annotator=user).values_list("post_id", "pk"))
    # A claim's batch is the one it was served in: a gold claim's gold_batch, else its post's batch.
    open_claims = Assignment.objects.filter(annotator=user).filter(
        Q(gold_batch__isnull=False, gold_batch__locked_at__isnull=True)
        | Q(gold_batch__isnull=True, post__batch__isnull=False, post__batch__locked_at__isnull=True))
    unclaimed = Judgment.objects.filter(annotator=user, post__batch__locked_at__isnull=True,
                                        post__batch__isnull=False).exclude(post_id__in=claims)
    open_posts = set(open_claims.values_list("post_id", flat=True)) | set(unclaimed.values_list("post_id", flat=True))
    return Withheld(frozenset(open_posts), claims, frozenset(qualification_gold_withheld(user)))


def _item(post_id: int, withheld: Withheld) -> dict:
    """A judgment's post: its id, or - in a batch still open - the item (claim) it answered instead."""
    if post_id in withheld.open_posts:
        return {"post_id": None, "item": withheld.claims.get(post_id)}
    return {"post_id": post_id, "item": withheld.claims.get(post_id)}


def _claim(row: dict, withheld: Withheld) -> dict:
    if row.get("post") in withheld.open_posts:
        return {**row, "post": None, "gold_batch": None}
    return row


def _answer(row: dict, withheld: Withheld) -> dict:
    return {**row, "gold": None} if row.get("gold_item") in withheld.qualification_items else row


WITHHELD_NOTE = gettext_lazy("While you annotate, gold items stay unmarked until their batch is locked (the visibility policy, "
                 "docs/decisions.md): for your judgments and claims in a batch that is still open, the post id "
                 "(items are named by your claim, as the annotation queue names them) and the gold mark are left "
                 "out, and so are the gold labels of a qualification round you may still take. Ask again once "
                 "the batch is locked for the complete export.")


def annotator_data(*, username: str) -> dict[str, Any]:
    """Everything held about one annotator, as JSON-ready dicts keyed by file name."""
    from auditlog.models import LogEntry
    from django.contrib.contenttypes.models import ContentType

    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NotFound(_("No user named %(username)s.") % {"username": username})
    profile = AnnotatorProfile.objects.filter(user=user).first()
    account = {"id": user.pk, "username": user.username, "first_name": user.first_name, "last_name": user.last_name,
               "email": user.email, "is_active": user.is_active, "date_joined": user.date_joined,
               "last_login": user.last_login, "roles": sorted(user.groups.values_list("name", flat=True)),
               "batches": sorted(Batch.objects.filter(annotators=user).values_list("name", flat=True)),
               "password": _("(stored only as a one-way hash; not exported)")}
    judgments = Judgment.objects.filter(annotator=user).select_related("post", "guideline").order_by("id")
    attempts = QualificationAttempt.objects.filter(annotator=user).order_by("id")
    withheld = _withheld_until_locked(user)
    user_type = ContentType.objects.get_for_model(user)
    about = Q(actor=user) | Q(content_type=user_type, object_pk=str(user.pk))
    if profile is not None:
        about |= Q(content_type=ContentType.objects.get_for_model(profile), object_pk=str(profile.pk))
    about |= Q(content_type=ContentType.objects.get_for_model(QualificationAttempt),
               object_pk__in=[str(pk) for pk in attempts.values_list("pk", flat=True)])
    return {
        "profile.json": {"account": account, "annotator_profile": model_to_dict(profile) if profile else None},
        "judgments.json": [{"id": j.pk, **_item(j.post_id, withheld), "post_text": j.post.text,
                            "explicit": j.explicit, "implicit": j.implicit, "emotional": j.emotional, "note": j.note,
                            "flagged": j.flagged, "seconds_spent": j.seconds_spent,
                            "gold": None if j.post_id in withheld.open_posts else j.gold,
                            "guideline_version": j.guideline.version if j.guideline else None,
                            "created_at": j.created_at, "updated_at": j.updated_at} for j in judgments],
        "revisions.json": _rows(JudgmentRevision.objects.filter(Q(judgment__annotator=user) | Q(changed_by=user))
                                .order_by("id")),
        "claims.json": [_claim(row, withheld) for row in _rows(Assignment.objects.filter(annotator=user).order_by("id"))],
        # What they wrote in other roles: the labels they adjudicated (with their rationales), rewrites.
        "adjudications.json": _rows(FinalLabel.objects.filter(adjudicator=user).order_by("id")),
        "rewrites.json": _rows(Rewrite.objects.filter(Q(author=user) | Q(created_by=user) | Q(confirmer=user))
                               .order_by("id")),
        "qualification.json": [model_to_dict(a) | {"id": a.pk, "submitted_at": a.submitted_at,
                                                    "answers": [_answer(row, withheld) for row in _rows(
                                                        QualificationAnswer.objects.filter(attempt=a))]}
                               for a in attempts],
        "wellbeing.json": {
            "notice_acceptances": [model_to_dict(n) | {"accepted_at": n.accepted_at}
                                   for n in NoticeAcceptance.objects.filter(annotator=user).order_by("id")],
            "exposure_per_day": [{"day": d.day, "posts": d.posts, "high_intensity": d.high_intensity,
                                  "set_aside": d.set_aside}
                                 for d in exposure(days=3650, annotator_id=user.pk)]},
        "audit.json": [{"id": e.pk, "timestamp": e.timestamp, "action": e.action,
                        "object": f"{e.content_type.app_label}.{e.content_type.model}:{e.object_repr}",
                        "actor": e.actor.username if e.actor else None, "changes": e.changes_dict,
                        "additional_data": e.additional_data}
                       for e in LogEntry.objects.filter(about).select_related("content_type", "actor").order_by("id")],
    }


def _withheld_summary(data: dict[str, Any]) -> dict | None:
    """What the export left out until a batch is locked (None: nothing)."""
    judgments = sum(1 for j in data["judgments.json"] if j["gold"] is None)
    claims = sum(1 for c in data["claims.json"] if c.get("post") is None)
    answers = sum(1 for a in data["qualification.json"] for r in a["answers"] if r.get("gold") is None)
    if not (judgments or claims or answers):
        return None
    return {"why": str(WITHHELD_NOTE), "judgments": judgments, "claims": claims, "qualification_answers": answers}


def annotator_export(*, username: str, outdir: str | os.PathLike) -> Path:
    """Write annotator_data as JSON files (and MANIFEST.json with their sha256) into `outdir`, which
    must not exist or be empty. All or nothing: written to a temporary folder beside it, then renamed."""
    target = Path(outdir)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise DomainError(_("%(path)s exists and is not an empty folder; choose a new one.") % {"path": target})
    data = annotator_data(username=username)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".annotator-export-", dir=target.parent))
    try:
        manifest = {}
        for name, content in data.items():
            raw = json.dumps(content, ensure_ascii=False, indent=2, cls=DjangoJSONEncoder, sort_keys=True).encode()
            (tmp / name).write_bytes(raw)
            manifest[name] = hashlib.sha256(raw).hexdigest()
        (tmp / "MANIFEST.json").write_text(json.dumps({"exported_at": timezone.now().isoformat(), "files": manifest,
                                                       "withheld": _withheld_summary(data)}, indent=2), "utf-8")
        if target.exists():
            target.rmdir()
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target
