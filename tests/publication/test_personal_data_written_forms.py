"""Personal data as people write it (issue 29): recall per kind on posts generated from a description
of how Weibo users write contact details (tests/publication/written_forms.py, not from the rules),
ordinary numbers left alone, the figures in docs/personal_data.md, the normaliser's map back to what
was written, and the word lists as data."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from publication.personal_data import PLACEHOLDERS, find_personal_data, mask_text, ruleset
from publication.personal_data.cues import CODE_VERSION, load_rule_data
from publication.personal_data.normalise import fold_for_matching

from .written_forms import KINDS, score, written_posts

DOCS = Path(__file__).resolve().parents[2] / "docs" / "personal_data.md"
RECALL_FLOOR = 0.95
ORDINARY_ALTERED_CEILING = 0.02


def _findings(text):
    return [(f.kind, f.start, f.end) for f in find_personal_data(text)]


@pytest.mark.parametrize("seed", [11, 12])
def test_recall_per_kind_and_ordinary_numbers_on_posts_written_to_evade_filters(seed):
    posts = written_posts(seed)
    assert len(posts) >= 300
    result = score(posts, _findings)
    for kind in KINDS:
        assert result["planted"][kind] >= 18, kind
        assert result["recall"][kind] >= RECALL_FLOOR, (kind, result["missed"][kind][:5])
    assert result["ordinary"] >= 300
    assert result["ordinary_altered"] / result["ordinary"] <= ORDINARY_ALTERED_CEILING, result["altered"][:10]


def test_the_figures_in_the_docs_are_the_measured_ones():
    """docs/personal_data.md's table "Written to evade filters" is the measurement on seed 0."""
    result = score(written_posts(0), _findings)
    table = DOCS.read_text(encoding="utf-8").split("### Written to evade filters", 1)[1].split("\n\n", 2)[1]
    rows = {cells[0].strip("` "): cells[1:] for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:])}
    for kind in KINDS:
        planted, found, recall = rows[kind][:3]
        assert int(planted) == result["planted"][kind], kind
        assert int(found) == round(result["recall"][kind] * result["planted"][kind]), kind
        assert float(recall) == pytest.approx(result["recall"][kind], abs=0.0005), kind
    ordinary = rows["ordinary numbers"]
    assert int(ordinary[0]) == result["ordinary"] and int(ordinary[1]) == result["ordinary_altered"]


# --- masking replaces exactly what was written ------------------------------------------------------

@pytest.mark.parametrize("text, kind, written", [
    ("找我13\u200b80\u200b01\u200b38\u200b00\u200b0哦", "mobile", "13\u200b80\u200b01\u200b38\u200b00\u200b0"),
    ("打我138😀0013😀8000吧", "mobile", "138😀0013😀8000"),
    ("電話：138/0013/8000", "mobile", "138/0013/8000"),
    ("手机一三八零零一三八零零零", "mobile", "一三八零零一三八零零零"),
    ("邮箱 abc123[at]qq[dot]com 谢谢", "email", "abc123[at]qq[dot]com"),
    ("邮箱：abc123艾特163点com", "email", "abc123艾特163点com"),
    ("mail: abc123 at gmail dot com", "email", "abc123 at gmail dot com"),
    ("企鵝號：１２３４５６７８", "qq", "１２３４５６７８"),
    ("扣 扣 12345678", "qq", "12345678"),
    ("Q：12345678", "qq", "12345678"),
    ("薇❤信 abc12345", "wechat", "abc12345"),
    ("v x：abc12345", "wechat", "abc12345"),
    ("WeChat ID: leo_2020x", "wechat", "leo_2020x"),
    ("卫星：abc12345", "wechat", "abc12345"),
    ("证件号110 105 1949 1231 002X", "id_card", "110 105 1949 1231 002X"),
    ("sfz11010519491231002X", "id_card", "11010519491231002X"),
    ("银行卡4111.1111.1111.1111", "bank_card", "4111.1111.1111.1111"),
    ("车牌京A・12345", "plate", "京A・12345"),
    ("车牌京 A12345", "plate", "京 A12345"),
    ("IP：36。110。1。10。", "ip", "36。110。1。10"),
    ("@ 小明同学 出来", "mention", "@ 小明同学"),
    ("他家在阳光花园3栋2单元501", "address", "阳光花园3栋2单元501"),
])
def test_each_written_form_is_masked_exactly_where_it_was_written(text, kind, written):
    found = find_personal_data(text)
    assert [(f.kind, f.value) for f in found] == [(kind, written)]
    start = text.index(written)
    assert mask_text(text).text == text[:start] + PLACEHOLDERS[kind] + text[start + len(written):]


@pytest.mark.parametrize("text", [
    "微博 4912345678901237 转发了", "mid=4912345678901237", "订单号 6222021234567890128",
    "最新SM8550处理器", "新Y9000P到手", "帝企鹅 256000 对", "DNS 114.114.114.114", "路由器 192.168.1.1",
    "10.0.0.1", "127.0.0.1", "升级到 1.2.3.4 了", "版本 2.10.3.1", "v3.4.5.6", "热线 12355", "客服 400-810-8888",
    "QQ 10000", "Q3财报 2023", "京东618", "扣了 20 分", "打折扣 35%",
])
def test_ordinary_numbers_the_issue_lists_are_not_personal_data(text):
    assert find_personal_data(text) == [], text


def test_a_bare_card_number_is_a_card_unless_an_identifier_word_stands_before_it():
    assert [f.kind for f in find_personal_data("转账到4111111111111111")] == ["bank_card"]
    assert find_personal_data("微博4111111111111111") == []


# --- the normaliser's map ------------------------------------------------------------------------

ALPHABET = st.sampled_from(list("0123456789 -./_·・。@abcQq扣微信號电话手机一三八\u200b\u200d\ufe0f😀❤，") + ["艾特", "[at]", "[dot]"])


@given(st.lists(ALPHABET, max_size=40).map("".join))
@settings(max_examples=300, deadline=None)
def test_every_folded_character_maps_to_a_span_of_the_original_in_order(text):
    folded = fold_for_matching(text, numeral_cue=ruleset().numeral_cue)
    spans = [folded.span(i, i + 1) for i in range(len(folded.text))]
    assert all(0 <= start < end <= len(text) for start, end in spans)
    assert [s for s, _e in spans] == sorted(s for s, _e in spans)
    # what a finding covers, mapped back, is a slice of the original that holds the same value folded
    for finding in find_personal_data(text):
        assert text[finding.start:finding.end] == finding.value and finding.value.strip()


# --- the word lists are data ------------------------------------------------------------------------

def test_a_cue_added_to_a_rules_folder_is_used_and_changes_the_version(tmp_path):
    text = "私聊蓝信abc12345"
    assert find_personal_data(text) == []
    (tmp_path / "cues_wechat.txt").write_text("# our posts\n蓝信\n", encoding="utf-8")
    extended = ruleset(str(tmp_path))
    assert [(f.kind, f.value) for f in find_personal_data(text, rules=extended)] == [("wechat", "abc12345")]
    assert extended.version != ruleset().version and extended.version.startswith(CODE_VERSION + ".")
    # written traditional, spaced or split by an emoji, the cue is the same entry
    assert [f.value for f in find_personal_data("藍 信：abc12345", rules=extended)] == ["abc12345"]


def test_a_public_number_added_to_the_list_is_left_alone(tmp_path):
    text = "电话 021-62345678"
    assert [f.kind for f in find_personal_data(text)] == ["landline"]
    (tmp_path / "public_numbers.txt").write_text("02162345678\n", encoding="utf-8")
    assert find_personal_data(text, rules=ruleset(str(tmp_path))) == []


def test_every_list_file_is_read():
    data = load_rule_data("")
    assert all(data[name] for name in data.lists), [name for name in data.lists if not data[name]]
    assert "企鹅号" in data["cues_qq"]  # listed as 企鹅号; 企鵝號 folds to it
