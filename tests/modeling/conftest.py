from __future__ import annotations

import random

import pytest

from annotation.importing.services import import_posts

POS = ["支持平等", "尊重他们", "祝福幸福", "理解包容", "加油勇敢"]
NEG = ["真恶心", "变态滚开", "有病要治", "丢人现眼", "不正常的人"]


def synthetic_csv(n: int = 80, seed: int = 0, prefix: str = "") -> bytes:
    rng = random.Random(seed)
    lines = ["Sentences,Explicit,Implicit,Emotional"]
    for i in range(n):
        level = 1 + i % 5
        words = (POS if level <= 2 else NEG)[i % 5]
        text = f"{prefix}{words}{'！' * (level - 1)}同性恋第{i}条{rng.randint(0, 9999)}"
        lines.append(f"{text},{level},{max(1, level - 1)},{min(5, level + rng.choice([0, 1]))}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def labelled_release(db, settings, tmp_path):
    from annotation.releases.services import release_publish

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    import_posts(synthetic_csv(), with_labels=True)
    return release_publish(bootstrap=0)
