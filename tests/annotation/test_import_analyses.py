"""Imports analyse what they loaded (issue 27): once the import commits, the planner's statistics
for the posts' table describe the rows it wrote."""
from __future__ import annotations

import pytest
from django.db import connection

from annotation.importing.services import import_posts

pytestmark = pytest.mark.django_db(transaction=True)


def analysed_rows(table: str) -> int | None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
            value = cursor.fetchone()[0]
            return None if value < 0 else int(value)  # -1: never analysed nor vacuumed
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone() is None:
            return None
        cursor.execute("SELECT stat FROM sqlite_stat1 WHERE tbl = %s AND idx IS NULL OR tbl = %s LIMIT 1",
                       [table, table])
        row = cursor.fetchone()
        return None if row is None else int(row[0].split()[0])


def test_an_import_leaves_the_posts_table_analysed():
    csv = "Sentences\r\n" + "".join(f"第{i}条测试帖子，内容各不相同。\r\n" for i in range(137))
    result = import_posts(csv.encode(), batch_name="analysed")
    assert result.created == 137
    assert analysed_rows("annotation_post") == 137  # (never analysed: none; SQLite without sqlite_stat1: none)
