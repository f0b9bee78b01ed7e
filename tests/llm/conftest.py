from __future__ import annotations

import pytest

from annotation.importing.services import import_posts
from tests.modeling.conftest import synthetic_csv

# A phone number in some posts: import masks it in Post.text ([手机号]) and keeps it in raw_text only.
PHONE = "13912345678"


def csv_with_personal_data(n: int = 60) -> bytes:
    lines = synthetic_csv(n).decode().splitlines()
    out = [lines[0]]
    for i, line in enumerate(lines[1:]):
        text, rest = line.split(",", 1)
        if i % 4 == 0:
            text = f"{text}，电话{PHONE}"
        out.append(f"{text},{rest}")
    return ("\n".join(out) + "\n").encode()


@pytest.fixture
def release(db, settings, tmp_path):
    """A published release of 60 labelled posts (30 train / 30 test, the paper's split halved below
    2,000 posts), a quarter of them with a phone number masked at import."""
    from annotation.releases.services import release_publish

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    settings.LLM_ENDPOINT_ALLOWLIST = []
    import_posts(csv_with_personal_data(), with_labels=True)
    return release_publish(bootstrap=0)
