"""Review leftovers of issue 29: digit groups separated by `*`, `~` or a full-width comma, a bare `86`
before a mainland mobile, digits of other scripts (Arabic-Indic, Devanagari, full-width ...), a
combining mark right after a value, and the braille blank (U+2800), which shows nothing. Each is
found, and masking replaces exactly the characters that were written: the text around a finding is
left as it was, and no mark is left hanging on a placeholder."""
from __future__ import annotations

import re

import pytest

from publication.personal_data import PLACEHOLDERS, luhn_check_digit, mask_text
from publication.personal_data.normalise import clean_for_publication, fold_for_matching
from publication.personal_data.recognisers import id_check_char
from publication.spans import DEFAULT_MAX_SHARED_SPAN, longest_shared_span

ID17 = "11010519491231002"
ID = ID17 + id_check_char(ID17)
CARD15 = "622202123456789"
CARD = CARD15 + luhn_check_digit(CARD15)


def _assert_masked_exactly(text: str, kind: str, written: str) -> None:
    result = mask_text(text)
    assert [(f.kind, f.value) for f in result.findings] == [(kind, written)]
    start = text.index(written)
    assert result.text == text[:start] + PLACEHOLDERS[kind] + text[start + len(written):]


@pytest.mark.parametrize("sep", ["*", "~", "～", "〜", "，", "＊", "、"])
@pytest.mark.parametrize("template, kind, groups", [
    ("手机{v}，有事找我", "mobile", ["138", "0013", "8000"]),
    ("有事打{v}", "mobile", ["138", "0013", "8000"]),
    ("身份证 {v} 别外传", "id_card", [ID[:6], ID[6:14], ID[14:]]),
    ("卡号{v}转账", "bank_card", [CARD[i:i + 4] for i in range(0, 16, 4)]),
    ("QQ {v} 加我", "qq", ["1234", "5678", "9"]),
])
def test_digit_groups_separated_by_star_tilde_or_full_width_comma_are_found(sep, template, kind, groups):
    written = sep.join(groups)
    _assert_masked_exactly(template.format(v=written), kind, written)


@pytest.mark.parametrize("written", ["8613800138000", "86 13800138000", "86-138-0013-8000", "86 138 0013 8000"])
def test_a_country_code_86_without_plus_or_00_is_part_of_the_mobile_number(written):
    _assert_masked_exactly(f"联系我 {written} 谢谢", "mobile", written)
    assert "86" not in mask_text(f"联系我 {written} 谢谢").text


@pytest.mark.parametrize("digits", [
    "١٣٨٠٠١٣٨٠٠٠",  # Arabic-Indic
    "۱۳۸۰۰۱۳۸۰۰۰",  # Extended Arabic-Indic (Persian)
    "१३८००१३८०००",  # Devanagari
    "১৩৮০০১৩৮০০০",  # Bengali
    "１３８００１３８０００",  # full-width
    "13٨००1３8٠٠٠",  # mixed
])
def test_digits_of_other_scripts_are_read_as_digits(digits):
    _assert_masked_exactly(f"手机{digits}，晚上打", "mobile", digits)
    _assert_masked_exactly(f"有事打{digits}", "mobile", digits)


def test_other_scripts_digits_fold_one_for_one_and_map_back():
    text = "QQ ١٢٣٤٥٦٧٨٩ 加我"
    folded = fold_for_matching(text)
    assert folded.text == "QQ 123456789 加我"
    _assert_masked_exactly(text, "qq", "١٢٣٤٥٦٧٨٩")
    _assert_masked_exactly(f"身份证 {ID[:-1].translate(str.maketrans('0123456789', '٠١٢٣٤٥٦٧٨٩'))}{ID[-1]}",
                           "id_card", ID[:-1].translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")) + ID[-1])


@pytest.mark.parametrize("mark", ["\u0301", "\u0336", "\u20e3", "\ufe0f", "\U000e0101"])
def test_a_combining_mark_right_after_a_value_is_masked_with_it(mark):
    text = f"手机13800138000{mark}，微信 abc_12345{mark} 找我"
    result = mask_text(text)
    assert [f.kind for f in result.findings] == ["mobile", "wechat"]
    assert result.text == "手机[手机号]，微信 [微信号] 找我"  # no mark hangs on a placeholder


@pytest.mark.parametrize("mark", ["\u0301", "\u0336", "\u20e3"])
def test_a_combining_mark_inside_a_value_is_masked_with_it(mark):
    written = f"138{mark}0013{mark}800{mark}0"
    _assert_masked_exactly(f"手机{written}，有事找我", "mobile", written)


def test_a_mark_after_the_cue_is_not_part_of_the_value():
    text = "手机\u0301 13800138000"
    assert mask_text(text).text == "手机\u0301 [手机号]"


ORIGINAL = "我真的觉得这种人就不应该出现在公共场合里面太恶心了大家说是不是"


def test_the_braille_blank_is_invisible_to_every_view():
    assert clean_for_publication("我\u2800真的") == "我真的"  # published without it
    rewrite = "\u2800".join(ORIGINAL[i:i + 3] for i in range(0, len(ORIGINAL), 3))
    assert longest_shared_span(rewrite, ORIGINAL) == len(ORIGINAL) > DEFAULT_MAX_SHARED_SPAN
    _assert_masked_exactly("手机138\u28000013\u28008000", "mobile", "138\u28000013\u28008000")
    assert [f.kind for f in mask_text("加微\u2800信 abc_12345").findings] == ["wechat"]


@pytest.mark.parametrize("text", [
    "3~5 个人", "2023～2024年", "第1，2，3名", "1、2、3 都行", "价格 12*3 元", "8*8=64", "138****8000 是打码的",
    "86 年的人", "1986 13 个人", "考了86，138 分那个", "共 86 人", "٣ 个人", "१२ 点",
])
def test_ordinary_numbers_with_these_separators_are_left_alone(text):
    assert mask_text(text).findings == []
    assert re.sub(r"\s", "", mask_text(text).text) == re.sub(r"\s", "", text)
