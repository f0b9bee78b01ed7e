"""Audit entries written explicitly: for changes made in bulk (no model signals), and for actions
that are not a model save (erasure, imports, exports, backups, run launches). Stored as
django-auditlog LogEntry rows, like the automatic ones.

The entry points, for any app (the LLM runs too):

    from audit.services import audit_event, audit_record

    audit_record(actor=user, instances=[rewrite], event="rewrite", changes={"status": ("submitted", "confirmed")})
    audit_event(actor=None, event="backup", what=gettext_noop("Backup to %(folder)s"), params={"folder": "2026-11-28"},
                changes={"files": (None, 118)})

`event` is a kind of audit.registry.KINDS; `actor` None means: the person of the request being
served (audit.middleware), else the system or the command line. Before/after
values are stored as text and shown readably by audit.selectors (no "None", ids or paths)."""
from __future__ import annotations

from typing import Any

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType


def _text(value: Any) -> str:
    return "None" if value is None else str(value)


def _actor(actor):
    """`actor` if it is a saved user, else the person of the request being served, else None."""
    if getattr(actor, "pk", None):
        return actor
    from .middleware import request_actor

    return request_actor()


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
    actor = _actor(actor)
    return LogEntry.objects.bulk_create([
        LogEntry(content_type=content_type, object_pk=str(instance.pk),
                 object_id=instance.pk if isinstance(instance.pk, int) else None, object_repr=str(instance)[:500],
                 action=action, changes=diff, actor=actor,
                 additional_data=data)
        for instance in instances])


def audit_event(*, actor, event: str, what: str, params: dict[str, Any] | None = None,
                changes: dict[str, tuple[Any, Any]] | None = None, action: int = LogEntry.Action.CREATE,
                note: str = "") -> LogEntry:
    """An action on no single object (an import, an export, a backup, a restore, a launch of several
    runs): `what` is an English message marked with gettext_noop and `params` its values, shown in
    the reader's language on /audit/; `changes` field -> (before, after) as in audit_record."""
    params = {k: _text(v) for k, v in (params or {}).items()}
    data = {"event": event, "what": what, "params": params, **({"note": note} if note else {})}
    return LogEntry.objects.create(
        content_type=ContentType.objects.get_for_model(LogEntry), object_pk="", object_id=None,
        object_repr=(what % params)[:500], action=action, actor=_actor(actor), additional_data=data,
        changes={field: [_text(before), _text(after)] for field, (before, after) in (changes or {}).items()})
