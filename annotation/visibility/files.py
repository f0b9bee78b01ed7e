"""What a file says about posts, read from its bytes (no database, no file name): every string it
holds, for the visibility policy to compare with the keys and texts of posts a user may not see.

Parquet (by its magic bytes), a JSON document, JSON Lines and rectangular CSV are read as data and
give their cells and strings (`atoms`); other UTF-8 text (the Markdown data cards) is searched as
text. Anything else - another binary format, bytes that are not UTF-8, a Parquet file that does not
open - is `None`: unknown, and the policy refuses it to anyone with hidden posts (fail closed)."""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from core import csv_safe

PARQUET_MAGIC = b"PAR1"


@dataclass(frozen=True)
class FileContents:
    """The strings of a file read as data (`atoms`: cells, JSON strings and keys), or its text when
    it has no structure the reader knows (`text`). Exactly one of the two is set."""

    atoms: frozenset[str] | None = None
    text: str | None = None

    def mentions(self, *, keys: Iterable[str], texts: Iterable[str]) -> bool:
        """Whether any of the post `keys` (release ids) or post `texts` appears in the file: as a
        whole cell or string of a data file; in free text, a key as a whole token and a text as a
        substring."""
        keys, texts = set(keys), set(texts)
        if self.atoms is not None:
            return not self.atoms.isdisjoint(keys) or not self.atoms.isdisjoint(texts)
        text = self.text or ""
        if any(t and t in text for t in texts):
            return True
        # a key as a whole token: not inside a longer id (word characters, "-", or "." between them)
        return any(re.search(rf"(?<![\w-])(?<!\w\.){re.escape(k)}(?![\w-]|\.\w)", text) for k in keys if k)


def read_contents(data: bytes) -> FileContents | None:
    """The file's strings, or None when its format is not one this reader understands."""
    if data[:4] == PARQUET_MAGIC and data[-4:] == PARQUET_MAGIC:
        return _parquet(data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None  # binary that happens to decode: not a format we can read
    for reader in (_json_document, _json_lines, _csv_table):
        atoms = reader(text)
        if atoms is not None:
            return FileContents(atoms=frozenset(atoms))
    return FileContents(text=text)


def _parquet(data: bytes) -> FileContents | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError):
        return None
    atoms: set[str] = set(table.column_names)
    for column in table.columns:
        atoms.update(str(v) for v in column.to_pylist() if v is not None)
    return FileContents(atoms=frozenset(atoms))


def _strings(value) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _json_document(text: str) -> set[str] | None:
    try:
        return set(_strings(json.loads(text)))
    except ValueError:
        return None


def _json_lines(text: str) -> set[str] | None:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    atoms: set[str] = set()
    for line in lines:
        try:
            atoms.update(_strings(json.loads(line)))
        except ValueError:
            return None
    return atoms


def _csv_table(text: str) -> set[str] | None:
    """A CSV file: at least two columns and the same number of fields on every row (Markdown or
    prose with a stray comma is not)."""
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    except csv.Error:
        return None
    if not rows or len(rows[0]) < 2 or any(len(row) != len(rows[0]) for row in rows):
        return None
    # a cell our CSV writer neutralised ('@post...) stands for the text without the apostrophe
    return {form for row in rows for cell in row for form in (cell, csv_safe.restore(cell))}
