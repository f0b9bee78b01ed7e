"""`seed_demo` interrupted in its publication steps (a crash, Ctrl-C, a kill) is finished by the next
run (issue 31, item 5): each step is checked on its own, and a release folder renamed into place by
a publication killed before its row was committed is moved aside instead of blocking the number."""
from __future__ import annotations

from pathlib import Path

import pytest

from annotation import demo
from annotation.models import Release
from annotation.releases import services as release_services
from publication.models import Rewrite, Takedown
from publication.rewriting import services as rewriting

pytestmark = pytest.mark.django_db(transaction=True)


class Killed(BaseException):
    """What the process dying looks like to the code after it: nothing more runs."""


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")


def _finished_publication():
    statuses = sorted(Rewrite.objects.values_list("status", flat=True))
    assert statuses == ["confirmed", "draft", "submitted"]
    assert list(Release.objects.order_by("number").values_list("number", "kind")) == [
        (1, "internal"), (2, "public"), (3, "internal")]
    takedown = Takedown.objects.get()
    assert Release.objects.get(number=3).diff["taken_down_ids"] == [takedown.post_key]


def test_a_run_killed_between_two_rewrites_is_finished_by_the_next(monkeypatch):
    real_submit, calls = rewriting.rewrite_submit, []

    def submit(**kwargs):
        calls.append(kwargs)
        if len(calls) == 2:
            raise Killed
        return real_submit(**kwargs)

    monkeypatch.setattr(rewriting, "rewrite_submit", submit)
    with pytest.raises(Killed):
        demo.seed_demo()
    monkeypatch.undo()
    assert Rewrite.objects.count() == 2 and not Release.objects.filter(kind="public").exists()
    demo.seed_demo()
    _finished_publication()


def test_a_run_killed_while_publishing_the_release_after_the_takedown_is_finished_by_the_next(monkeypatch):
    """Killed after the release's folder was renamed into place, before its row was committed: the
    folder stays, the row does not (the cleanup a normal error runs never ran)."""
    real_write = release_services._write_into_place

    def write_then_die(root, number, contents):
        target = real_write(root, number, contents)
        if number == 3:
            monkeypatch.setattr(release_services.shutil, "rmtree", lambda *a, **k: None)
            raise Killed
        return target

    monkeypatch.setattr(release_services, "_write_into_place", write_then_die)
    with pytest.raises(Killed):
        demo.seed_demo()
    monkeypatch.undo()
    root = Path(Release.objects.get(number=1).directory).parent
    assert Takedown.objects.exists() and Release.objects.count() == 2
    assert (root / "release-0003").is_dir()  # left by the killed publication

    demo.seed_demo()
    _finished_publication()
    third = Release.objects.get(number=3)
    assert Path(third.directory) == root / "release-0003"
    assert {p.name for p in Path(third.directory).iterdir()} == set(third.manifest)
    assert [p.name.startswith(".interrupted-release-0003-") for p in root.iterdir() if p.name.startswith(".")] == [True]
    demo.seed_demo()  # and once finished, a further run adds nothing
    assert Release.objects.count() == 3 and Rewrite.objects.count() == 3
