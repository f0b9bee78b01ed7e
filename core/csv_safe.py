"""The one CSV writer for every file the workbench writes (releases, gold lists, figure downloads): a cell
that a spreadsheet would run as a formula is written with a leading apostrophe (OWASP "CSV injection").

Which cells: text beginning with =, +, -, @, a tab or a carriage return (OWASP's list), their full-width
forms ＝ ＋ － ＠ (spreadsheets in Chinese and Japanese locales take those as formulas too), or an
apostrophe (so that `restore` can undo exactly what `neutralise` did). Numbers are left alone: an int
or float cell, or text that is a plain decimal number such as -0.5 or +3, is data no spreadsheet runs.
The exact texts stay in release.jsonl and the Parquet files; readers of our own CSVs call `restore`."""
from __future__ import annotations

import csv
import re
from typing import Any, Iterable

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠")
ESCAPE = "'"
_PLAIN_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def neutralise(value: Any) -> Any:
    """The cell as written: text a spreadsheet would evaluate gets a leading apostrophe."""
    if not isinstance(value, str) or not value.startswith((*FORMULA_PREFIXES, ESCAPE)):
        return value
    if _PLAIN_NUMBER.fullmatch(value):
        return value
    return ESCAPE + value


def restore(cell: str) -> str:
    """The text `neutralise` was given, from a cell of one of our CSV files."""
    if cell.startswith(ESCAPE) and cell[1:].startswith((*FORMULA_PREFIXES, ESCAPE)):
        return cell[1:]
    return cell


class SafeWriter:
    """csv.writer with every cell neutralised."""

    def __init__(self, stream, **kwargs):
        self._writer = csv.writer(stream, **kwargs)

    def writerow(self, row: Iterable[Any]):
        return self._writer.writerow([neutralise(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(stream, **kwargs) -> SafeWriter:
    """Use instead of csv.writer for anything the workbench writes."""
    return SafeWriter(stream, **kwargs)
