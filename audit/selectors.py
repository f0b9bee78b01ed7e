"""Reads for the researchers' audit page: entries filtered by kind, actor, object and time."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from datetime import timezone as dt_timezone
from pathlib import PurePosixPath

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import formats, timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .registry import KINDS, content_types_of, kind_of


@dataclass(frozen=True)
class AuditFilter:
    kind: str = ""
    actor: str = ""
    target: str = ""
    since: date | None = None
    until: date | None = None


def entries(f: AuditFilter) -> QuerySet[LogEntry]:
    qs = LogEntry.objects.select_related("actor", "content_type").order_by("-timestamp", "-id")
    if f.kind in KINDS:
        explicit = Q(additional_data__event=f.kind)
        types = [ContentType.objects.get_by_natural_key(app, model) for app, model in content_types_of(f.kind)
                 if ContentType.objects.filter(app_label=app, model=model).exists()]
        automatic = Q(content_type__in=types) & (Q(additional_data__isnull=True) | ~Q(additional_data__has_key="event"))
        if f.kind == "role":  # an account's switches or groups, not an erasure written on the same model
            automatic &= ~Q(additional_data__event="erasure")
        qs = qs.filter(explicit | automatic)
    if f.actor:
        qs = qs.filter(actor__username__iexact=f.actor) if f.actor != "-" else qs.filter(actor__isnull=True)
    if f.target:
        qs = qs.filter(object_repr__icontains=f.target)
    if f.since:
        qs = qs.filter(timestamp__gte=datetime.combine(f.since, time.min, tzinfo=dt_timezone.utc))
    if f.until:
        qs = qs.filter(timestamp__lte=datetime.combine(f.until, time.max, tzinfo=dt_timezone.utc))
    return qs


def entry_kind(entry: LogEntry) -> str | None:
    event = (entry.additional_data or {}).get("event") if isinstance(entry.additional_data, dict) else None
    return event or kind_of(entry.content_type.app_label, entry.content_type.model)


# Fields written by audit_record / audit_event that are no model field (label in the reader's language).
EXTRA_FIELD_LABELS = {
    "files": gettext_lazy("files"), "bytes": gettext_lazy("bytes"), "posts": gettext_lazy("posts"), "judgments": gettext_lazy("judgments"),
    "labelled": gettext_lazy("with final labels"), "batch": gettext_lazy("batch"), "runs": gettext_lazy("runs"), "release": gettext_lazy("release"),
    "folder": gettext_lazy("folder"), "source": gettext_lazy("source"), "reason": gettext_lazy("reason"), "status": gettext_lazy("status"),
    "personal_data": gettext_lazy("personal data masked"), "skipped": gettext_lazy("skipped"), "kind": gettext_lazy("kind"),
    "password": gettext_lazy("password"), "community_member": gettext_lazy("community member"),
}
# Stored values that mean "nothing": auditlog writes "None" for an empty field and "app.Model.None"
# for a many-to-many field of a new row.
_EMPTY = re.compile(r"^(None|null|)$|^\w+\.\w+\.None$")
EMPTY_SHOWN = "–"


def _field(model, name: str):
    try:
        return model._meta.get_field(name) if model else None
    except Exception:
        return None


def readable_path(value: str) -> str:
    """A path on the server as a researcher reads it: relative to the media or artefact folder, else
    its last two parts (never the machine's absolute layout)."""
    for root in (getattr(settings, "MEDIA_ROOT", ""), getattr(settings, "ARTIFACT_ROOT", "")):
        root = str(root or "").rstrip("/")
        if root and value.startswith(root + "/"):
            return value[len(root) + 1:]
    return "/".join(PurePosixPath(value).parts[-2:])


def readable_value(field, value) -> str:
    """One stored before/after value as a researcher reads it, in the active language: choices by
    their label, yes/no, a related row by its name (a user by username), dates localised, paths
    relative; nothing as a dash."""
    text = "" if value is None else str(value)
    if _EMPTY.match(text.strip()):
        return EMPTY_SHOWN
    if field is not None:
        choices = dict(getattr(field, "choices", None) or [])
        if choices and text in {str(k) for k in choices}:
            return str({str(k): v for k, v in choices.items()}[text])
        kind = field.get_internal_type() if hasattr(field, "get_internal_type") else ""
        if kind == "BooleanField" and text in ("True", "False"):
            return str(_("yes") if text == "True" else _("no"))
        if kind in ("ForeignKey", "OneToOneField") and field.related_model is not None:
            if field.related_model._meta.label_lower == "annotation.post" and text.isdigit():
                # By number, never by its text (Post.__str__): the log is kept for good, takedowns' included.
                return str(_("Post #%(id)s") % {"id": text})
            target = field.related_model._default_manager.filter(pk=text).first() if text.isdigit() else None
            if target is not None:
                return getattr(target, "username", None) or str(target)
            return text if not text.isdigit() else str(_("#%(id)s (no longer exists)") % {"id": text})
        if kind in ("DateTimeField",):
            moment = parse_datetime(text)
            if moment is not None:
                return formats.localize(timezone.localtime(moment) if timezone.is_aware(moment) else moment)
    if text.startswith("/") and len(text) > 1 and "/" in text[1:]:
        return readable_path(text)
    if text in ("True", "False"):
        return str(_("yes") if text == "True" else _("no"))
    return text


def _variant_names(value: str) -> str:
    from modeling.models import Variant

    names = {v.value: str(v.label) for v in Variant}
    return ", ".join(names.get(part.strip(), part.strip()) for part in value.split(","))


# Event parameters recorded as keys (language-neutral) and shown by their names in the reader's language.
READABLE_PARAMS = {"variants": _variant_names}


def readable_params(params: dict) -> dict:
    return {k: READABLE_PARAMS[k](v) if k in READABLE_PARAMS and isinstance(v, str) else v for k, v in params.items()}


def entry_object(entry: LogEntry, objects: dict | None = None) -> str:
    """What the entry is about, in the reader's language: an event's own message (imports, backups
    ...), else the object's current name when it still exists (its __str__ is translated), else the
    name recorded then; prefixed by the model's translated name."""
    data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
    message = data.get("what")
    if message:
        try:
            # marked with gettext_noop where it was recorded; its values that are keys, by their names
            return _(message) % readable_params(data.get("params", {}))
        except (KeyError, TypeError, ValueError):
            return entry.object_repr
    model = entry.content_type.model_class()
    current = (objects or {}).get((entry.content_type_id, entry.object_pk))
    name = str(current) if current is not None else entry.object_repr
    if model is None:
        return name
    return f"{capfirst(model._meta.verbose_name)}: {name}"


def current_objects(entries_: list[LogEntry]) -> dict:
    """(content type id, object pk) -> the row, for the entries whose object still exists (one
    query per model on the page)."""
    wanted: dict[int, set[str]] = {}
    for e in entries_:
        if e.object_pk:
            wanted.setdefault(e.content_type_id, set()).add(e.object_pk)
    out = {}
    for ct_id, pks in wanted.items():
        model = ContentType.objects.get_for_id(ct_id).model_class()
        if model is None:
            continue
        try:
            rows = model._default_manager.in_bulk([int(pk) if pk.isdigit() else pk for pk in pks])
        except Exception:
            continue
        out.update({(ct_id, str(pk)): row for pk, row in rows.items()})
    return out


class Change(tuple):
    """(field, before, after); `lang` is the language the values are written in whatever the
    reader's - a field kept in one language, such as a notice's English text `notice_en` - else ''.
    The page marks such values with it (they are the stored text, not something to translate)."""

    lang = ""


def _change(name: str, label: str, before: str, after: str) -> Change:
    change = Change((label, before, after))
    match = re.search(r"_(en|zh)$", name)
    if match:
        change.lang = match.group(1)
    return change


def entry_changes(entry: LogEntry) -> list[tuple[str, str, str]]:
    """(field, before, after) rows, readable (readable_value); a many-to-many change as (field,
    removed, added). Each a Change (a field written in one language says which)."""
    rows = []
    model = entry.content_type.model_class()
    for name, change in (entry.changes_dict or {}).items():
        field = _field(model, name)
        label = (str(capfirst(field.verbose_name)) if field is not None and hasattr(field, "verbose_name")
                 else str(capfirst(EXTRA_FIELD_LABELS.get(name, name))))
        if isinstance(change, dict) and change.get("type") == "m2m":
            objects = ", ".join(map(str, change.get("objects", []))) or EMPTY_SHOWN
            before, after = (objects, EMPTY_SHOWN) if change.get("operation") == "delete" else (EMPTY_SHOWN, objects)
            rows.append(_change(name, label, before, after))
        else:
            before, after = (list(change) + ["", ""])[:2]
            rows.append(_change(name, label, readable_value(field, before), readable_value(field, after)))
    return rows
