"""Searchable as a search engine sees it (issue 29, item 5): every trivial edit of a 16-character span
of the original (invisible characters, an emoji or a middle dot every few characters, 。->. and ，->、,
dropped punctuation, traditional characters, full-width forms, spaces) still counts as a shared
span; a homophone swap every 10 characters does not. Spans are reported in characters of the text."""
from __future__ import annotations

import pytest
from opencc import OpenCC

from publication.rewriting.checks import release_span
from publication.spans import DEFAULT_MAX_SHARED_SPAN, longest_shared_span, shared_segments

ORIGINAL = ("今天和男朋友去民政局门口拍了张照片，虽然我们还不能登记结婚，但是总有一天会等到的。"
            "家里人终于接受了我们，妈妈还说下次一起回家吃饭。谢谢所有支持我们的朋友们！")
# 16 characters of the original, no punctuation among them (a search engine ignores punctuation).
SPAN = "虽然我们还不能登记结婚但是总有一"
QUOTE = "虽然我们还不能登记结婚，但是总有一"  # as the original writes it
assert QUOTE in ORIGINAL and len(SPAN) == 16 and QUOTE.replace("，", "").startswith(SPAN)


def _every(text: str, n: int, insert: str) -> str:
    return "".join(ch + (insert if (i + 1) % n == 0 else "") for i, ch in enumerate(text))


TO_TRADITIONAL = OpenCC("s2t")
EDITS = {
    "zero-width spaces": lambda t: "\u200b".join(t),
    "zero-width joiners and marks": lambda t: _every(t, 2, "\u200d\u200e"),
    "soft hyphens and word joiners": lambda t: _every(t, 3, "\u00ad\u2060"),
    "variation selectors": lambda t: _every(t, 2, "\ufe0f"),
    "combining marks": lambda t: _every(t, 2, "\u0301"),
    "an emoji every 3 characters": lambda t: _every(t, 3, "🌈"),
    "a middle dot every 2 characters": lambda t: _every(t, 2, "·"),
    "。 -> . and ， -> 、": lambda t: t.replace("。", ".").replace("，", "、"),
    "punctuation dropped": lambda t: t.replace("，", "").replace("。", ""),
    "traditional characters": lambda t: TO_TRADITIONAL.convert(t),
    "full-width spaces between words": lambda t: _every(t, 4, "\u3000"),
    "everything at once": lambda t: _every(TO_TRADITIONAL.convert(t).replace("，", "、"), 3, "\u200b😀·"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_trivial_edit_of_a_16_character_span_is_still_searchable(edit):
    rewrite = "我想说的是" + EDITS[edit](QUOTE) + "，会好的"
    assert rewrite != QUOTE
    span = release_span(rewrite, raw_text=ORIGINAL, cleaned_text=ORIGINAL)
    assert span >= 16 >= DEFAULT_MAX_SHARED_SPAN, (edit, span)
    assert longest_shared_span(rewrite, ORIGINAL) >= 16


HOMOPHONES = {"虽": "随", "然": "燃", "们": "门", "还": "环", "能": "嫩", "登": "灯", "记": "纪", "结": "接",
              "婚": "昏", "但": "蛋", "是": "事", "总": "总", "有": "又", "一": "衣", "天": "添", "不": "步"}


def test_a_homophone_swap_every_10_characters_is_not_searchable():
    chars = list(ORIGINAL)
    for i in range(4, len(chars), 10):
        candidates = [j for j in range(i, min(i + 3, len(chars))) if chars[j] in HOMOPHONES and HOMOPHONES[chars[j]] != chars[j]]
        j = candidates[0] if candidates else i
        chars[j] = HOMOPHONES.get(chars[j], "嗯" if chars[j] != "嗯" else "啊")
    rewrite = "".join(chars)
    assert release_span(rewrite, raw_text=ORIGINAL, cleaned_text=ORIGINAL) < DEFAULT_MAX_SHARED_SPAN


def test_segments_are_reported_in_characters_of_the_text_as_written():
    rewrite = "开头" + "\u200b".join("虽然我们还不能") + "结尾"
    (start, end, length), = shared_segments(rewrite, ORIGINAL, min_length=5)
    assert rewrite[start:end] == "\u200b".join("虽然我们还不能") and length == 7
