"""QQ and mobile numbers written with spaces, hyphens, dots or full-width spaces between the digits,
after a cue, are one finding (the whole number), and the same separators between ordinary numbers
(dates, prices, counts) without a cue stay unmasked. A QQ number is never half-masked: what the rule
finds is all of the number's digits."""
from __future__ import annotations

import re

import pytest

from publication.personal_data import mask_text


@pytest.mark.parametrize("text, kind, value", [
    ("加我QQ 1234 5678 9", "qq", "1234 5678 9"),
    ("扣扣：12-345-6789", "qq", "12-345-6789"),
    ("q q号 123 456 789", "qq", "123 456 789"),
    ("扣扣 1234 5678", "qq", "1234 5678"),  # listed under "Not found" in rules v3
    ("QQ：1234.5678.9", "qq", "1234.5678.9"),
    ("QQ\u30001234\u30005678\u30009 加我", "qq", "1234\u30005678\u30009"),  # full-width spaces
    ("企鹅号 12 34 56 78", "qq", "12 34 56 78"),
    ("QQ 1234 - 5678 - 9", "qq", "1234 - 5678 - 9"),
    ("Q Q 123456789", "qq", "123456789"),  # a spaced cue
    ("QQ 12345 6789", "qq", "12345 6789"),  # not only the first group
    ("手机 13 80 01 38 000", "mobile", "13 80 01 38 000"),
    ("电话：138-00-138-000", "mobile", "138-00-138-000"),
    ("联系方式 1 38 0013 8000", "mobile", "1 38 0013 8000"),
])
def test_separated_numbers_after_a_cue_are_one_finding(text, kind, value):
    result = mask_text(text)
    assert [(f.kind, f.value) for f in result.findings] == [(kind, value)]
    digits = re.sub(r"\D", "", value)
    assert not any(digits[i:i + 3] in re.sub(r"\D", "", result.text) for i in range(len(digits) - 2))


@pytest.mark.parametrize("text, value", [
    ("QQ 123456 2023 10 01 加的", "123456"),  # a date after the number is not part of it
    ("QQ 12345678 2023年", "12345678"),
    ("加我QQ 123456789。", "123456789"),
])
def test_a_contiguous_number_is_still_found_alone(text, value):
    assert [(f.kind, f.value) for f in mask_text(text).findings] == [("qq", value)]


@pytest.mark.parametrize("text", [
    "2023 10 01 见", "2023-10-01", "2023.10.01 更新", "售价 1 299.00 元", "12 345 人参加", "共 3 200 000 次播放",
    "QQ 2023-10-01 更新了", "QQ 2023.10.01", "QQ空间 1 234 人", "QQ 128.50 元", "QQ等级 36 级", "扣扣 12 34",
    "电话费 138.50 元", "手机 2023 10 01 买的", "手机 12 345 台",
])
def test_ordinary_separated_numbers_are_left_alone(text):
    assert mask_text(text).findings == []
