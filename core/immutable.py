"""Tables whose rows never change once written, enforced by the database itself: UPDATE and DELETE
raise, whatever the caller (Model.save, QuerySet.update/delete, raw SQL, another program).

`MakeImmutable` is a migration operation with a trigger per vendor (PostgreSQL, SQLite). Wiping
the whole database stays possible: PostgreSQL's TRUNCATE fires no row trigger, and on SQLite,
whose flush deletes row by row, `manage.py flush` lifts the guard for its own duration.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

from django.db import migrations

_state = threading.local()
SQLITE_GUARD_FUNCTION = "chlgbt_immutable_guard_lifted"


def guard_lifted() -> int:
    return 1 if getattr(_state, "lifted", False) else 0


@contextmanager
def immutable_guard_lifted():
    """Only for wiping the whole database (the flush command)."""
    _state.lifted = True
    try:
        yield
    finally:
        _state.lifted = False


def register_sqlite_function(sender, connection, **kwargs) -> None:
    """connection_created receiver: the SQLite triggers ask this function whether a flush runs."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(SQLITE_GUARD_FUNCTION, 0, guard_lifted)


def _postgresql(table: str, message: str) -> tuple[list[str], list[str]]:
    function = f"{table}_immutable"
    forward = [
        f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '{message} (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql""",
        f"CREATE TRIGGER {table}_no_update_or_delete BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {function}()",
    ]
    reverse = [f"DROP TRIGGER IF EXISTS {table}_no_update_or_delete ON {table}",
               f"DROP FUNCTION IF EXISTS {function}()"]
    return forward, reverse


def _sqlite(table: str, message: str) -> tuple[list[str], list[str]]:
    forward = [
        f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
        f"BEGIN SELECT RAISE(ABORT, '{message} (UPDATE refused)'); END",
        f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} WHEN {SQLITE_GUARD_FUNCTION}() = 0 "
        f"BEGIN SELECT RAISE(ABORT, '{message} (DELETE refused)'); END",
    ]
    reverse = [f"DROP TRIGGER IF EXISTS {table}_no_update", f"DROP TRIGGER IF EXISTS {table}_no_delete"]
    return forward, reverse


VENDORS = {"postgresql": _postgresql, "sqlite": _sqlite}


class MakeImmutable(migrations.operations.base.Operation):
    """Install (and on reverse, remove) the triggers that refuse UPDATE and DELETE on a table."""

    reversible = True
    reduces_to_sql = True

    def __init__(self, table: str, message: str):
        if "'" in message:
            raise ValueError("the message goes into SQL literally: no quotes")
        self.table, self.message = table, message

    def state_forwards(self, app_label, state) -> None:
        pass

    def _run(self, schema_editor, which: int) -> None:
        build = VENDORS.get(schema_editor.connection.vendor)
        if build is None:  # another database: Model.save() still refuses updates
            return
        for statement in build(self.table, self.message)[which]:
            schema_editor.execute(statement, params=None)

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        self._run(schema_editor, 0)

    def database_backwards(self, app_label, schema_editor, from_state, to_state) -> None:
        self._run(schema_editor, 1)

    def describe(self) -> str:
        return f"Make {self.table} immutable (UPDATE and DELETE refused by triggers)"

    def deconstruct(self):
        return self.__class__.__qualname__, [self.table, self.message], {}
