"""Error pages with DEBUG=False, in English and Chinese: 400, 403 (and the expired-form 403), 404,
500 and the 503 of a database outage are pages of the site (its header and stylesheet) that say
what happened and what to do next - never Django's debug page or a bare status line."""
from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.core.error_urls")]

EN = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}


@pytest.fixture(autouse=True)
def no_debug(settings):
    settings.DEBUG = False


def fetch(kind: str, headers: dict, make_user) -> tuple[int, str, object]:
    client = Client(raise_request_exception=False, enforce_csrf_checks=kind == "403_csrf")
    if kind == "400":
        response = client.get("/", HTTP_HOST="not-our-host.example", **headers)
    elif kind == "403":
        client.force_login(make_user(f"ann-{headers['HTTP_ACCEPT_LANGUAGE'][:2]}", role="annotator"))
        response = client.get("/runs/", **headers)
    elif kind == "403_csrf":
        response = client.post("/accounts/login/", {"username": "x", "password": "y"}, **headers)
    elif kind == "404":
        response = client.get("/no/such/page/", **headers)
    elif kind == "500":
        response = client.get("/test-errors/boom/", **headers)
    else:
        response = client.get("/test-errors/database-down/", **headers)
    return response.status_code, response.content.decode(), response


# kind: (status, heading, a next step the page offers)
PAGES = {
    "400": (400, "The workbench could not read that request", "Go back, reload the page and try again."),
    "403": (403, "Not available to you", "Sign in as someone else"),
    "403_csrf": (403, "This form has expired", "Go back, reload the page, and submit it again."),
    "404": (404, "There is no such page", "Check the address for a typing mistake."),
    "500": (500, "Something went wrong on our side", "Wait a moment, then reload the page or try again."),
    "503": (503, "Temporarily unavailable", "If you were submitting a form, go back and submit it again: it was not saved."),
}


@pytest.mark.parametrize("kind", sorted(PAGES))
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_error_page_in_the_site_style_says_what_to_do_next(kind, language, make_user):
    status, heading, next_step = PAGES[kind]
    code, html, response = fetch(kind, ZH if language == "zh-hans" else EN, make_user)
    assert code == status
    assert 'class="topbar"' in html and "css/app.css" in html  # the site's header and stylesheet
    assert f'<html lang="{language}">' in html
    with translation.override(language):
        heading_shown, step_shown = translation.gettext(heading), translation.gettext(next_step)
        home = translation.gettext("Go to your home page")
    if language == "zh-hans":
        assert heading_shown != heading and step_shown != next_step and home != "Go to your home page", \
            "no zh-Hans translation"
    assert f"<h1>{heading_shown}</h1>" in html and step_shown in html
    assert f'<a href="/">{home}</a>' in html  # a way home
    for debug_text in ("Traceback", "technical_500", "DEBUG = True", "Using the URLconf", "secret detail",
                       "server closed the connection"):
        assert debug_text not in html


def test_the_403_page_says_why_and_the_503_page_asks_to_retry(make_user):
    _, html, _ = fetch("403", EN, make_user)
    assert "This page is for researchers" in html
    _, html, response = fetch("503", EN, make_user)
    assert response["Retry-After"] == "3" and 'href="/test-errors/database-down/"' in html
    assert "The database is temporarily unavailable" in html


def test_api_clients_still_get_json_on_a_database_outage():
    response = Client().get("/test-errors/database-down/", HTTP_ACCEPT="application/json")
    assert response.status_code == 503 and response.json()["detail"].startswith("The database is temporarily")
