"""Audit entries written explicitly: for changes made in bulk (no model signals), and for actions
that are not a model save (erasure). Stored as django-auditlog LogEntry rows, like the automatic ones."""
from __future__ import annotations

from typing import Any

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType


def _text(value: Any) -> str:
    return "None" if value is None else str(value)


def audit_record(*, actor, instances, event: str, changes: dict[str, tuple[Any, Any]] | None = None,
                 action: int = LogEntry.Action.UPDATE, note: str = "") -> list[LogEntry]:
    """One entry per instance: who (`actor`, None for the system), what (`event`, a kind of
    audit.registry.KINDS; `changes`: field -> (before, after)), when (now). In the caller's transaction."""
    instances = list(instances)
    if not instances:
        return []
    content_type = ContentType.objects.get_for_model(instances[0])
    data = {"event": event, **({"note": note} if note else {})}
    diff = {field: [_text(before), _text(after)] for field, (before, after) in (changes or {}).items()}
    return LogEntry.objects.bulk_create([
        LogEntry(content_type=content_type, object_pk=str(instance.pk),
                 object_id=instance.pk if isinstance(instance.pk, int) else None, object_repr=str(instance)[:500],
                 action=action, changes=diff, actor=actor if getattr(actor, "pk", None) else None,
                 additional_data=data)
        for instance in instances])
