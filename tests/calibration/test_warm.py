"""The token-weights page's parser loads in the background when the web server starts and after a
lexicon change, never in the request (issue 31, item 6: /calibration/weights/ took 3.3 s)."""
from __future__ import annotations

import time

import pytest
from django.urls import reverse

from calibration import warm
from modeling.maam import myopia as myopia_module
from modeling.models import LexiconTerm
from modeling.services import lexicon_current

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fresh_cache(monkeypatch):
    monkeypatch.setattr(warm, "_cache", {})
    monkeypatch.setattr(warm, "_serving", False)


def test_the_weights_page_uses_the_parser_loaded_at_start(fresh_cache, client, make_user, monkeypatch):
    warm.warm_at_start().join(timeout=120)
    assert warm.loaded_versions() == [lexicon_current().version]

    def no_load(*args, **kwargs):
        raise AssertionError("the request loaded the parser")

    monkeypatch.setattr(myopia_module.Myopia, "__init__", no_load)
    client.force_login(make_user("res", role="researcher"))
    response = client.get(reverse("calibration:weights"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert response.context["tables"]["explicit"]["tokens"]  # the default sentence, weighed


def test_a_lexicon_change_loads_the_new_version_in_the_background(fresh_cache):
    warm.warm_at_start().join(timeout=120)
    before = warm.loaded_versions()
    LexiconTerm.objects.create(term="测试新词", kind="keyword")
    expected = lexicon_current().version
    assert expected not in before
    deadline = time.monotonic() + 120
    while warm.loaded_versions() != [expected] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert warm.loaded_versions() == [expected]


def test_outside_a_web_server_a_lexicon_change_loads_nothing(fresh_cache):
    LexiconTerm.objects.create(term="测试新词", kind="keyword")
    time.sleep(0.5)
    assert warm.loaded_versions() == []
