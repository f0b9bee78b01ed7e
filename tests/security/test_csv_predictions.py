"""Finding 9 (issue 20), the predictions file: `python -m modeling.maam predict` and the scoring job's upload
scope write the uploaded texts back out, so a planted formula must not reach a spreadsheet from there either."""
from __future__ import annotations

import csv

import numpy as np

from core import csv_safe
from modeling.maam.data import write_predictions_csv

PLANTED = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)",
           "＝1+1", "\t=1", "普通的帖子", "'already quoted"]


def test_the_predictions_csv_neutralises_formula_texts_and_restore_gives_them_back(tmp_path):
    n = len(PLANTED)
    probs = np.full((n, 5), 0.2)
    predictions = {"explicit": {"after": probs, "labels": np.arange(n) % 5 + 1}}
    out = tmp_path / "upload.predictions.csv"
    write_predictions_csv(out, PLANTED, predictions)
    text = out.read_text(encoding="utf-8")
    rows = list(csv.reader(text.splitlines()))
    assert rows[0] == ["text", "explicit_label", *[f"explicit_p{k}" for k in range(1, 6)]]
    cells = [cell for row in rows[1:] for cell in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"))]
    assert [csv_safe.restore(row[0]) for row in rows[1:]] == PLANTED
    assert [row[1] for row in rows[1:]] == [str(k % 5 + 1) for k in range(n)] and rows[1][2] == "0.200000"
