"""Chinese and English: every marked string has a zh-Hans translation (the CI check), the catalogue
compiles without GNU gettext, the language follows Accept-Language and the header switch."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.urls import reverse

from core.translations import (
    BASE_DIR,
    compile_catalogues,
    missing_translations,
    placeholder_mismatches,
    update_catalogues,
)

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9,en;q=0.5"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}


def test_every_marked_string_has_a_simplified_chinese_translation():
    """Templates, Python (gettext*) and static JavaScript: no string lacks a usable zh-Hans entry."""
    missing = missing_translations()
    assert missing == [], "run `python manage.py makemessages` and translate:\n" + "\n".join(map(str, missing))


def test_every_translation_keeps_its_placeholders():
    """A translation that drops or renames %(name)s would raise KeyError (or lose a value) at run time."""
    assert placeholder_mismatches() == []


def test_a_translation_with_a_wrong_placeholder_is_reported(tmp_path):
    base = _tiny_project(tmp_path)
    update_catalogues(base)
    po = base / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
    po.write_text(po.read_text("utf-8").replace('msgid "%(n)s new"\nmsgstr ""', 'msgid "%(n)s new"\nmsgstr "%(count)s 条新的"'),
                  "utf-8")
    assert placeholder_mismatches(base) == ["zh_Hans/django: '%(n)s new' -> '%(count)s 条新的'"]


def _tiny_project(tmp_path: Path) -> Path:
    (tmp_path / "templates").mkdir()
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "core").mkdir()
    (tmp_path / "templates" / "page.html").write_text(
        '{% load i18n %}<h1>{% translate "Translated" %}</h1><p>{% blocktranslate with n=3 %}{{ n }} new{% endblocktranslate %}</p>',
        "utf-8")
    (tmp_path / "core" / "views.py").write_text(
        'from django.utils.translation import gettext as _\nMESSAGE = _("Fuzzy one")\nOTHER = _("Empty one")\n', "utf-8")
    (tmp_path / "static" / "js" / "page.js").write_text('status(gettext("Saved."));\n', "utf-8")
    return tmp_path


def test_the_check_fails_on_absent_fuzzy_and_empty_translations(tmp_path):
    base = _tiny_project(tmp_path)
    update_catalogues(base)  # the .po files now hold every string, untranslated
    po = base / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
    text = po.read_text("utf-8")
    text = text.replace('msgid "Translated"\nmsgstr ""', 'msgid "Translated"\nmsgstr "已翻译"')
    text = text.replace('msgid "Fuzzy one"\nmsgstr ""', 'msgid "Fuzzy one"\nmsgstr "模糊"').replace(
        '#: core/views.py\nmsgid "Fuzzy one"', '#: core/views.py\n#, fuzzy\nmsgid "Fuzzy one"')
    po.write_text(text, "utf-8")
    found = {(m.domain, m.msgid): m.why for m in missing_translations(base)}
    assert found == {
        ("django", "%(n)s new"): "empty",
        ("django", "Fuzzy one"): "fuzzy",
        ("django", "Empty one"): "empty",
        ("djangojs", "Saved."): "empty",
    }
    # A string added to a template after the catalogue was made is reported as absent.
    (base / "templates" / "more.html").write_text('{% load i18n %}{% translate "Brand new" %}', "utf-8")
    assert ("django", "Brand new") in {(m.domain, m.msgid) for m in missing_translations(base)}
    # makemessages keeps translations and drops strings no longer in the source.
    (base / "core" / "views.py").write_text("", "utf-8")
    update_catalogues(base)
    text = po.read_text("utf-8")
    assert 'msgstr "已翻译"' in text and "Fuzzy one" not in text and 'msgid "Brand new"' in text


def test_compiled_without_gnu_gettext(tmp_path, monkeypatch):
    """The .mo files come from Babel alone: GNU msgfmt is not on the PATH here."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("msgfmt") is None
    base = tmp_path / "project"
    shutil.copytree(BASE_DIR / "locale", base / "locale", ignore=shutil.ignore_patterns("*.mo"))
    written = compile_catalogues(base)
    assert sorted(p.name for p in written) == ["django.mo", "djangojs.mo"]
    import gettext

    with (base / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo").open("rb") as fh:
        catalogue = gettext.GNUTranslations(fh)
    assert catalogue.gettext("My queue") == "我的队列"


@pytest.mark.django_db
def test_language_follows_accept_language(client):
    assert "登录" in client.get(reverse("login"), **ZH).content.decode()
    page = client.get(reverse("login"), **EN).content.decode()
    assert "Log in" in page and "登录" not in page
    assert '<html lang="en">' in page


@pytest.mark.django_db
def test_the_header_switch_remembers_the_choice_across_pages(client, make_user):
    make_user("ann", role="annotator")
    client.login(username="ann", password="pw-for-tests-1")
    queue = reverse("annotation:queue")
    assert "My queue" in client.get(queue, **EN).content.decode()
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": queue}, **EN)
    assert response.status_code == 302 and response["Location"] == queue
    # The cookie now outranks the English browser, on every page.
    for url in (queue, reverse("login")):
        page = client.get(url, **EN).content.decode()
        assert '<html lang="zh-hans">' in page
    assert "我的队列" in client.get(queue, **EN).content.decode()
    client.post(reverse("set_language"), {"language": "en", "next": queue}, **ZH)
    assert "My queue" in client.get(queue, **ZH).content.decode()


def paper_guidelines_migrated() -> None:
    """The guideline rows as migrations 0002 and 0008 leave them, run here on v1 alone: a
    transactional test elsewhere may have flushed the migrations' rows (PostgreSQL in CI)."""
    from importlib import import_module

    from django.apps import apps

    from annotation.models import Guideline
    from annotation.rubric import PAPER_RUBRIC

    Guideline.objects.all().delete()
    Guideline.objects.create(version=1, title="MAAM paper annotation guidance", rubric=PAPER_RUBRIC)
    import_module("annotation.migrations.0008_guideline_v2_chinese_explanations").forward(apps, None)


@pytest.mark.django_db
def test_guideline_v2_carries_chinese_explanations_and_keeps_v1(client, make_annotators, make_batch):
    from importlib import import_module

    from django.apps import apps

    from annotation.models import Guideline
    from annotation.rubric import PAPER_RUBRIC

    paper_guidelines_migrated()
    v1, v2 = Guideline.objects.get(version=1), Guideline.objects.get(version=2)
    assert v1.rubric == PAPER_RUBRIC  # the version judgments already point at is untouched
    for dim, levels in PAPER_RUBRIC.items():
        for score, item in levels.items():
            assert v2.rubric[dim][score]["explanation"] == item["explanation"]
            assert v2.rubric[dim][score]["example"] == item["example"]
            assert v2.rubric[dim][score]["explanation_zh"]
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[annotator])
    client.force_login(annotator)
    page = client.get(reverse("annotation:annotate", args=[batch.id]), **ZH).content.decode()
    assert "评分标准 v2" in page and "提及 LGBT 群体，但没有敌意。" in page and "Mentions LGBT" not in page
    page = client.get(reverse("annotation:annotate", args=[batch.id]), **EN).content.decode()
    assert "Rubric v2" in page and "Mentions LGBT without hostility." in page and "提及 LGBT" not in page
    # Running the migration again adds nothing: the rubric in force is bilingual already.
    import_module("annotation.migrations.0008_guideline_v2_chinese_explanations").forward(apps, None)
    assert Guideline.objects.count() == 2


def test_figures_follow_the_language():
    """Plot titles, legends, axis names and C-I-S state names are in the reader's language."""
    from django.utils import translation

    from annotation.agreement import figures as agreement_figures
    from annotation.agreement.views import figure_text
    from calibration import figures

    states = {axis: {s: [0.2] * 5 for s in names} for axis, names in figures.STATES.items()}
    priors = {d: states for d in figures.DIMENSIONS}
    counts = {d: {axis: {s: [1] * 5 for s in names} for axis, names in figures.STATES.items()} for d in figures.DIMENSIONS}
    report = {"dimensions": {"explicit": {"alpha": {"ordinal": 0.5, "interval": 0.6, "nominal": 0.4}}}}
    with translation.override("zh-hans"):
        heatmap = figures.prior_heatmaps(priors, counts)
        bars = agreement_figures.alpha_bars(report, figure_text())
    assert heatmap.layout.title.text == "C–I–S 先验 P(Y=k | Z=z)"
    assert list(heatmap.data[0].y)[:3] == ["C: 幽默", "C: 一般", "C: 严肃"]
    assert [a.text for a in heatmap.layout.annotations] == ["显性偏见", "隐性偏见", "情绪强度"]
    assert bars.layout.title.text == "各维度的 Krippendorff α"
    assert [t.name for t in bars.data] == ["定序", "定距", "定类"] and list(bars.data[0].x) == ["显性偏见"]
    with translation.override("en"):
        heatmap = figures.prior_heatmaps(priors, counts)
        bars = agreement_figures.alpha_bars(report, figure_text())
    assert list(heatmap.data[0].y)[:1] == ["C: Funny"] and bars.layout.title.text == "Krippendorff's alpha per dimension"


def test_dates_and_numbers_follow_the_language():
    from datetime import datetime, timezone

    from django.template import Context, Template
    from django.utils import translation

    template = Template('{{ when|date:"SHORT_DATETIME_FORMAT" }} {{ x|floatformat:3 }}')
    context = Context({"when": datetime(2026, 11, 23, 14, 5, tzinfo=timezone.utc), "x": 0.61234})
    with translation.override("zh-hans"):
        chinese = template.render(context)
    with translation.override("en"):
        english = template.render(context)
    assert chinese == "2026年11月23日 14:05 0.612" and english == "11/23/2026 2:05 p.m. 0.612"
