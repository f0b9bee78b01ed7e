"""Which models django-auditlog watches, and which kind of privileged action a change to each is.
Rows written in bulk (bulk_create, QuerySet.update) send no signals: the services that write them
record their entries themselves (audit/services.py, audit_record)."""
from __future__ import annotations

from django.apps import apps
from django.utils.translation import gettext_lazy as _

KINDS = {
    "adjudication": _("Adjudication"),
    "release": _("Release publication"),
    "gold": _("Gold marking"),
    "qualification_reset": _("Qualification reset"),
    "lexicon": _("Lexicon change"),
    "settings": _("Settings change"),
    "takedown": _("Takedown"),
    "erasure": _("Erasure"),
    "role": _("Role change"),
    "batch": _("Batch lock"),  # annotation.assignment.services.batch_lock (issue 30)
    # Recorded by their services with audit.services.audit_event (or audit_record on the object):
    "rewrite": _("Rewrite"),
    "run": _("Training run"),
    "llm_run": _("LLM run"),
    "import": _("Import"),
    "export": _("Export"),
    "backup": _("Backup and restore"),
}

# LogEntry.Action values (auditlog's own labels have no Chinese).
ACTIONS = {0: _("created"), 1: _("changed"), 2: _("deleted"), 3: _("viewed")}

# (app label, model) -> (kind, auditlog.register options). Qualification resets are recorded by their
# service (an attempt's creation is the annotator's, not a privileged action). Models not installed yet are skipped: when
# publication's takedown model lands, this line already registers it (PUBLICATION_TAKEDOWN below).
PUBLICATION_TAKEDOWN = ("publication", "takedown")
WATCHED: dict[tuple[str, str], tuple[str, dict]] = {
    ("annotation", "finallabel"): ("adjudication", {}),
    # `directory` is a path on the server, not something a researcher reads (the number names the release).
    ("annotation", "release"): ("release", {"exclude_fields": ["manifest", "summary", "diff", "directory"]}),
    ("annotation", "golditem"): ("gold", {}),
    ("annotation", "workbenchsettings"): ("settings", {}),
    ("annotation", "batchquality"): ("settings", {"m2m_fields": {"qualification_items"}}),
    ("wellbeing", "batchwellbeing"): ("settings", {}),
    ("modeling", "lexiconterm"): ("lexicon", {}),
    # Roles are group memberships; only the groups and the account's switches are recorded, never the
    # name, e-mail or password.
    ("auth", "user"): ("role", {"include_fields": ["is_active", "is_staff", "is_superuser"],
                                "m2m_fields": {"groups"}}),
    PUBLICATION_TAKEDOWN: ("takedown", {}),
}


def register_models() -> None:
    from auditlog.registry import auditlog

    for (app_label, model_name), (_kind, options) in WATCHED.items():
        try:
            model = apps.get_model(app_label, model_name)
        except LookupError:
            continue  # (an app or model not installed here)
        if not auditlog.contains(model):
            auditlog.register(model, **options)


def kind_of(app_label: str, model_name: str) -> str | None:
    found = WATCHED.get((app_label, model_name))
    return found[0] if found else None


def content_types_of(kind: str) -> list[tuple[str, str]]:
    return [key for key, (k, _options) in WATCHED.items() if k == kind]
