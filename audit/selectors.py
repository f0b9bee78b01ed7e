"""Reads for the researchers' audit page: entries filtered by kind, actor, object and time."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time
from datetime import timezone as dt_timezone

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q, QuerySet

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


def entry_changes(entry: LogEntry) -> list[tuple[str, str, str]]:
    """(field, before, after) rows; a many-to-many change as (field, removed, added)."""
    rows = []
    model = entry.content_type.model_class()
    for field, change in (entry.changes_dict or {}).items():
        try:
            label = str(model._meta.get_field(field).verbose_name) if model else field
        except Exception:
            label = field
        if isinstance(change, dict) and change.get("type") == "m2m":
            objects = ", ".join(map(str, change.get("objects", [])))
            before, after = (objects, "") if change.get("operation") == "delete" else ("", objects)
            rows.append((label, before, after))
        else:
            before, after = (list(change) + ["", ""])[:2]
            rows.append((label, str(before), str(after)))
    return rows
