"""Planner statistics after bulk loads (issue 27): an import ANALYZEs the tables it filled once it
has committed, so the planner describes them as they are instead of as the empty tables it last saw
(this machine's PostgreSQL runs with autovacuum off, and in production a freshly loaded table waits
for autovacuum's threshold). The scoring step does not depend on it - its pick's plan is fixed
(annotation/assignment/selectors.py) - but every other query on those tables plans better."""
from __future__ import annotations

import logging

from django.db import DatabaseError, connection, transaction

log = logging.getLogger(__name__)


def tables_analyse_on_commit(*models) -> None:
    """ANALYZE the models' tables when the current transaction commits (at once outside one)."""
    tables = sorted({model._meta.db_table for model in models})

    def analyse() -> None:
        try:
            with connection.cursor() as cursor:
                for table in tables:
                    cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
        except DatabaseError:  # statistics are an optimisation: never a reason to fail an import
            log.warning("ANALYZE after import failed for %s", ", ".join(tables), exc_info=True)

    transaction.on_commit(analyse)
