from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def rewriters(make_user):
    """A researcher and an adjudicator (both may rewrite, through their groups) and an annotator."""
    from publication.rewriting.services import rewrite_permission_grant

    rewrite_permission_grant()
    return {"researcher": make_user("res", "researcher"), "adjudicator": make_user("adj", "adjudicator"),
            "annotator": make_user("ann", "annotator")}


@pytest.fixture
def media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


@pytest.fixture(autouse=True)
def english():
    """Messages in English unless a request asks otherwise (a zh-CN request leaves Chinese active)."""
    from django.utils import translation

    with translation.override("en"):
        yield
