"""Issue 31, items 4 and 7: the Chinese audit and run-launch pages hold no English but names and
keys - a value stored in one language (a notice's English text) is marked as such, run variants in
an event's message are named in the reader's language, and Django's admin list headers (new in
Django 5.2, not in its own zh_Hans catalogue) are translated."""
from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation

from audit.services import audit_event
from bench.walk_demo import english_words

pytestmark = pytest.mark.django_db

NOTICE_EN = "Some posts in this batch contain hostile language."


@pytest.fixture
def reader(make_user):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    client.force_login(make_user("researcher", role="researcher", is_staff=True, is_superuser=True))
    return client


def _text(html: str) -> str:
    """What the walk reads (bench/walk_demo.py TEXT_JS): no scripts, styles, inputs, code or elements
    marked not to translate."""
    html = re.sub(r"<(script|style|code|kbd|textarea)\b[^>]*>.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<(td|span|div)\b[^>]*translate=\"no\"[^>]*>.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", re.sub(r"&\w+;", " ", html))


def test_a_notice_in_english_is_marked_with_its_language_on_the_chinese_audit_page(reader, make_batch):
    from wellbeing.services import batch_wellbeing_set

    batch = make_batch(n_posts=1)
    batch_wellbeing_set(batch_id=batch.pk, notice_en=NOTICE_EN, notice_zh="本批次含有敌意言论。")
    html = reader.get("/audit/").content.decode()
    assert f'<td lang="en" translate="no">{NOTICE_EN}</td>' in html
    assert "本批次含有敌意言论。" in html and 'lang="zh" translate="no">本批次含有敌意言论。' in html
    assert english_words(_text(html)) == []


def test_a_run_launch_names_its_variants_in_the_readers_language(reader):
    audit_event(actor=None, event="run", params={"n": 2, "variants": "baseline, full", "seeds": "0", "release": 1,
                                                 "backbone": "char-ngram"},
                what="Launched %(n)s training runs (%(variants)s; seeds %(seeds)s; %(backbone)s) on release %(release)s",
                changes={"runs": (None, "1, 2")})
    html = reader.get("/audit/").content.decode()
    with translation.override("zh-hans"):
        names = f"{translation.gettext('Baseline')}, {translation.gettext('MAAM (full)')}"
    assert names in html and "baseline, full" not in html
    assert english_words(_text(html)) == []
    english = reader.get("/audit/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "(Baseline, MAAM (full); seeds 0; char-ngram)" in english


def test_the_run_launch_page_in_chinese_has_no_english_but_keys(reader):
    html = reader.get("/admin/modeling/trainingrun/launch/").content.decode()
    assert "Model name" not in html and "Add link" not in html
    assert english_words(_text(re.sub(r"<input[^>]*>", " ", html))) == []
