"""Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) render as blank space but are letters (Lo), not
format characters: the publication cleaning removed them while the detector and the searchable check
kept them, so a phone number with a filler between its groups reached annotators unmasked, and a
rewrite that was the original with a filler every few characters passed the span check and was then
published as the verbatim original (review of issue 29)."""
from __future__ import annotations

import pytest

from publication.personal_data import mask_text
from publication.personal_data.normalise import clean_for_publication
from publication.spans import DEFAULT_MAX_SHARED_SPAN, longest_shared_span

FILLERS = ["\u115f", "\u1160", "\u3164", "\uffa0"]
ORIGINAL = "我真的觉得这种人就不应该出现在公共场合里面太恶心了大家说是不是"


@pytest.mark.parametrize("filler", FILLERS)
def test_a_phone_number_split_by_a_hangul_filler_is_masked(filler):
    text = f"手机138{filler}0013{filler}8000"
    result = mask_text(text)
    assert [f.kind for f in result.findings] == ["mobile"]
    assert not any(ch.isdigit() for ch in result.text)


@pytest.mark.parametrize("filler", FILLERS)
def test_a_cue_split_by_a_hangul_filler_is_read(filler):
    assert [f.kind for f in mask_text(f"加微{filler}信 abc_12345").findings] == ["wechat"]


@pytest.mark.parametrize("filler", FILLERS)
def test_the_original_with_a_filler_every_three_characters_is_searchable(filler):
    rewrite = filler.join(ORIGINAL[i:i + 3] for i in range(0, len(ORIGINAL), 3))
    assert clean_for_publication(rewrite) == ORIGINAL  # what a release would publish
    assert longest_shared_span(rewrite, ORIGINAL) == len(ORIGINAL) > DEFAULT_MAX_SHARED_SPAN
