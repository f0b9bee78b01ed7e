"""Counters the database keeps itself: Batch.post_count, the number of posts a batch holds.

The scoring step shows the annotator's progress (annotation/assignment/selectors.py), whose total is
the batch's posts; counting them on every step read every post of the batch (issue 27). The count is
kept instead by triggers on the posts' table, whatever writes the rows - the import's bulk insert,
the admin, a batch deleted (its posts' batch set to NULL), raw SQL - in the writer's transaction:

- PostgreSQL: statement-level triggers with transition tables for INSERT and DELETE (a bulk import of
  thousands of posts is one UPDATE per batch), and a row-level trigger for UPDATE whose WHEN clause
  lets through only a change of batch (the step's updates of live_claims never run it);
- SQLite: row-level triggers, the same three events.

Migration 0018 installs them on PostgreSQL (and removes them when reversed); `counters_install` runs
after every `migrate` (annotation/apps.py), and on SQLite the triggers are removed before every
`migrate` (SQLite rebuilds a table to alter it, and a trigger naming the batches' table would make
that rebuild fail). After every migrate it (re)creates the triggers -
SQLite drops a table's triggers when a migration rebuilds the table - and recounts every batch, so a
count can never stay wrong past a migrate. `tests/annotation/test_counters.py` checks the count
against the rows after every kind of write, on both databases."""
from __future__ import annotations

_POST, _BATCH = "annotation_post", "annotation_batch"

_POSTGRESQL = [
    f"""CREATE OR REPLACE FUNCTION annotation_batch_post_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE {_BATCH} b SET post_count = b.post_count + d.n
      FROM (SELECT batch_id, COUNT(*) AS n FROM new_rows WHERE batch_id IS NOT NULL GROUP BY batch_id) d
     WHERE b.id = d.batch_id;
  ELSE
    UPDATE {_BATCH} b SET post_count = b.post_count - d.n
      FROM (SELECT batch_id, COUNT(*) AS n FROM old_rows WHERE batch_id IS NOT NULL GROUP BY batch_id) d
     WHERE b.id = d.batch_id;
  END IF;
  RETURN NULL;
END $$""",
    f"""CREATE OR REPLACE FUNCTION annotation_batch_post_count_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE {_BATCH} SET post_count = post_count - 1 WHERE id = OLD.batch_id;
  UPDATE {_BATCH} SET post_count = post_count + 1 WHERE id = NEW.batch_id;
  RETURN NULL;
END $$""",
    f"""CREATE OR REPLACE TRIGGER annotation_post_count_insert AFTER INSERT ON {_POST}
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION annotation_batch_post_count_rows()""",
    f"""CREATE OR REPLACE TRIGGER annotation_post_count_delete AFTER DELETE ON {_POST}
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION annotation_batch_post_count_rows()""",
    f"""CREATE OR REPLACE TRIGGER annotation_post_count_move AFTER UPDATE OF batch_id ON {_POST} FOR EACH ROW
  WHEN (OLD.batch_id IS DISTINCT FROM NEW.batch_id) EXECUTE FUNCTION annotation_batch_post_count_move()""",
]

_SQLITE = [
    f"""CREATE TRIGGER IF NOT EXISTS annotation_post_count_insert AFTER INSERT ON {_POST}
  WHEN NEW.batch_id IS NOT NULL
  BEGIN UPDATE {_BATCH} SET post_count = post_count + 1 WHERE id = NEW.batch_id; END""",
    f"""CREATE TRIGGER IF NOT EXISTS annotation_post_count_delete AFTER DELETE ON {_POST}
  WHEN OLD.batch_id IS NOT NULL
  BEGIN UPDATE {_BATCH} SET post_count = post_count - 1 WHERE id = OLD.batch_id; END""",
    f"""CREATE TRIGGER IF NOT EXISTS annotation_post_count_move AFTER UPDATE OF batch_id ON {_POST}
  WHEN OLD.batch_id IS NOT NEW.batch_id
  BEGIN
    UPDATE {_BATCH} SET post_count = post_count - 1 WHERE id = OLD.batch_id;
    UPDATE {_BATCH} SET post_count = post_count + 1 WHERE id = NEW.batch_id;
  END""",
]

TRIGGERS = ("annotation_post_count_insert", "annotation_post_count_delete", "annotation_post_count_move")

RECOUNT = (f"UPDATE {_BATCH} SET post_count = (SELECT COUNT(*) FROM {_POST} p WHERE p.batch_id = {_BATCH}.id) "
           f"WHERE post_count <> (SELECT COUNT(*) FROM {_POST} p WHERE p.batch_id = {_BATCH}.id)")


def counters_install(connection) -> None:
    """(Re)create the triggers on this connection's database and recount every batch. On a schema
    without Batch.post_count (migrated back before 0018) the triggers are removed instead."""
    statements = {"postgresql": _POSTGRESQL, "sqlite": _SQLITE}.get(connection.vendor)
    if statements is None:
        raise NotImplementedError(f"Batch.post_count has no triggers for {connection.vendor}")
    if _BATCH not in connection.introspection.table_names():  # migrated back to zero
        return
    with connection.cursor() as cursor:
        columns = {c.name for c in connection.introspection.get_table_description(cursor, _BATCH)}
    if "post_count" not in columns:
        counters_uninstall(connection)
        return
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
        cursor.execute(RECOUNT)


def counters_uninstall(connection) -> None:
    """Remove the triggers (migration 0018 reversed: the column they write goes; and on SQLite before
    every `migrate`, annotation/apps.py: a migration that rebuilds the batches' table would otherwise
    fail on triggers naming it)."""
    if _POST not in connection.introspection.table_names():
        return
    with connection.cursor() as cursor:
        for name in TRIGGERS:
            cursor.execute(f"DROP TRIGGER IF EXISTS {name}" + (f" ON {_POST}" if connection.vendor == "postgresql" else ""))
        if connection.vendor == "postgresql":
            cursor.execute("DROP FUNCTION IF EXISTS annotation_batch_post_count_rows()")
            cursor.execute("DROP FUNCTION IF EXISTS annotation_batch_post_count_move()")


def triggers_present(connection) -> set[str]:
    """The counter triggers the database holds now."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", [_POST])
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s", [_POST])
        return {row[0] for row in cursor.fetchall()} & set(TRIGGERS)
