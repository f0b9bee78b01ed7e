"""A web process's start-up (core/warm.py, called by chlgbt_site/wsgi.py): after it, a person's first
page in either language builds no URL table and no agreement figure (issue 31: every page <= 1 s)."""
from __future__ import annotations

from unittest import mock

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import URLResolver, clear_url_caches, reverse

from annotation.agreement import figures as agreement_figures
from core import warm
from tests.annotation.test_agreement import worked_example_csv


def test_after_the_warm_up_no_page_builds_a_url_table_in_either_language(client, make_user):
    clear_url_caches()  # as in a process that has served nothing yet (earlier tests built the tables)
    warm.url_reversal_warm()
    built = []
    real = URLResolver._populate

    def populate(resolver):
        built.append(resolver)
        return real(resolver)

    client.force_login(make_user("res", role="researcher"))
    with mock.patch.object(URLResolver, "_populate", populate):
        for language in ("zh-hans", "en"):
            page = client.get(reverse("review:agreement"), HTTP_ACCEPT_LANGUAGE=language)
            assert page.status_code == 200 and page["Content-Language"] == language
    assert built == []


@pytest.mark.django_db(transaction=True)
def test_the_newest_reports_figures_are_built_in_the_background_in_every_language(client, make_user, tmp_path,
                                                                                django_capture_on_commit_callbacks,
                                                                                monkeypatch):
    call_command("import_judgments", str(worked_example_csv(tmp_path)), "--create-missing-posts")
    assert warm.agreement_figures_warm() == 0  # no report yet: nothing to build
    client.force_login(make_user("res", role="researcher"))
    with django_capture_on_commit_callbacks(execute=True):  # the background job (eager in tests)
        client.post(reverse("review:agreement-bootstrap"), {"bootstrap": "50"})
    cache.clear()
    # the token-weights parser's warm-up is calibration's own (tests/calibration/test_warm.py): not here, where
    # its thread would outlive the test and mark this process a web server for the tests after it
    monkeypatch.setattr("calibration.warm.warm_at_start", lambda: None)
    warm.warm_web_process().join(timeout=120)
    with mock.patch.object(agreement_figures, "dashboard", side_effect=AssertionError("built by a page")):
        for language in ("zh-hans", "en"):
            page = client.get(reverse("review:agreement"), HTTP_ACCEPT_LANGUAGE=language)
            assert page.status_code == 200 and page.context["figures"], language
    # the two languages' figures are the reader's: the titles differ
    titles = {language: None for language in ("zh-hans", "en")}
    for language in titles:
        page = client.get(reverse("review:agreement"), HTTP_ACCEPT_LANGUAGE=language)
        titles[language] = page.context["figures"]["alpha"]["layout"]["title"]["text"]
    assert titles["zh-hans"] != titles["en"]


def test_plotly_warm_builds_every_trace_type_the_pages_draw():
    from tests.core.test_page_weight import bundle_traces

    with mock.patch("plotly.graph_objects.Figure.add_trace", autospec=True,
                    side_effect=lambda figure, trace, **kw: drawn.append(trace.type)) as add:
        drawn: list[str] = []
        warm.plotly_warm()
    assert add.called and set(drawn) == bundle_traces()
