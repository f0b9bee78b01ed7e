"""publication/spans.py: the longest span a text shares with its original post, against a brute
force on random texts (Hypothesis), and the normalisation of width and spaces."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from publication import spans

# A small alphabet so random texts share runs: CJK, ASCII, full-width forms, spaces.
ALPHABET = st.sampled_from(list("同性恋骗婚诚信有趣的ab1ＡＢ１ 　\n，,"))
TEXTS = st.text(ALPHABET, max_size=40)


def brute_longest(a: str, b: str) -> int:
    return max((j - i for i in range(len(a)) for j in range(i + 1, len(a) + 1) if a[i:j] in b), default=0)


def brute_ending_at(a: str, b: str, j: int) -> int:
    return max((j + 1 - i for i in range(j + 1) if a[i:j + 1] in b), default=0)


@given(TEXTS, TEXTS)
def test_longest_equals_brute_force_on_normalised_texts(text, original):
    a, b = spans.normalise(text), spans.normalise(original)
    assert spans.longest_shared_span(text, original) == brute_longest(a, b)


@given(TEXTS, TEXTS)
def test_matching_lengths_equal_brute_force(text, original):
    a, b = spans.normalise(text), spans.normalise(original)
    assert spans.matching_lengths(a, b) == [brute_ending_at(a, b, j) for j in range(len(a))]
    assert max(spans.matching_lengths(a, b), default=0) == spans.longest_normalised(a, b)


@given(TEXTS, TEXTS)
def test_symmetric_and_bounded(text, original):
    length = spans.longest_shared_span(text, original)
    assert length == spans.longest_shared_span(original, text)
    assert length <= min(len(spans.normalise(text)), len(spans.normalise(original)))


@given(TEXTS, TEXTS, TEXTS)
def test_a_text_containing_the_original_shares_all_of_it(prefix, original, suffix):
    assert spans.longest_shared_span(prefix + original + suffix, original) == len(spans.normalise(original))


@given(TEXTS, TEXTS, st.integers(min_value=1, max_value=8))
def test_segments_cover_exactly_the_characters_in_long_enough_shared_runs(text, original, min_length):
    a_raw = text
    folded, where = spans.normalise_with_positions(a_raw)
    b = spans.normalise(original)
    covered = set()
    for i in range(len(folded)):
        for j in range(i + min_length, len(folded) + 1):
            if folded[i:j] in b:
                covered.update(range(where[i], where[j - 1] + 1))
    got = set()
    for start, end, longest in spans.shared_segments(a_raw, original, min_length=min_length):
        assert longest >= min_length
        got.update(range(start, end))
    # Compared on characters that normalise to something (spaces inside a run may go either way).
    visible = {i for i in range(len(a_raw)) if spans.normalise(a_raw[i])}
    assert got & visible == covered & visible


def test_width_case_and_spaces_are_normalised():
    original = "ＡＢＣ 同性恋　骗婚１２３"
    assert spans.longest_shared_span("abc同性恋骗婚123", original) == 11
    assert spans.longest_shared_span("a b c 同 性 恋", original) == 6
    assert spans.longest_shared_span("毫不相干", original) == 0
    assert spans.longest_shared_span("", original) == 0


def test_searchable_follows_the_threshold(settings):
    original = "今天在地铁上看到两个男生牵着手我觉得挺好的大家都应该尊重"
    assert spans.longest_shared_span(original[:15] + "，改写", original) == 15
    settings.RELEASE_MAX_SHARED_SPAN = 15
    assert spans.is_searchable(15) and not spans.is_searchable(14)
    settings.RELEASE_MAX_SHARED_SPAN = 16
    assert not spans.is_searchable(15)


def test_span_report_buckets():
    report = spans.span_report([0, 4, 5, 14, 15, 16, 49, 50, 300], threshold=15)
    assert report.searchable == 5 and report.posts == 9 and report.longest == 300
    assert report.distribution == {"0-4": 2, "5-9": 1, "10-14": 1, "15-19": 2, "20-29": 0, "30-49": 1, "50+": 2}
