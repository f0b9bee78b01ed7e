"""Issue 31, item 2: a release published with provisional labels marks them in every file, and a
training run drops them unless asked, counting what it dropped in the run's metrics."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.urls import reverse

from annotation.importing.parsers import parse_judgments_csv
from annotation.models import Judgment
from annotation.releases.services import release_publish
from modeling import services
from modeling.models import TrainingRun
from modeling.splits import run_split
from tests.core.test_chinese_labels import EN, Texts

from .conftest import synthetic_csv

pytestmark = pytest.mark.django_db(transaction=True)

N_PROVISIONAL = 6


@pytest.fixture
def provisional_release(settings, tmp_path, make_batch, make_annotators):
    """80 imported (finished) posts and an open batch of k = 3 whose 6 posts were judged once each
    (provisional), published with provisional labels included."""
    from annotation.importing.services import import_posts

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    import_posts(synthetic_csv(), with_labels=True)
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=N_PROVISIONAL, k=3, annotators=[annotator])
    for i, post in enumerate(batch.posts.order_by("pk")):
        level = 1 + i % 5
        Judgment.objects.create(post=post, annotator=annotator, explicit=level, implicit=level, emotional=level)
    return release_publish(bootstrap=0, include_provisional=True)


def _csv(release, name: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO((Path(release.directory) / name).read_text(encoding="utf-8"))))


def test_judgments_and_split_files_mark_the_provisional_posts(provisional_release):
    release = provisional_release
    assert release.summary["unfinished"]["provisional"] == N_PROVISIONAL
    judgments = _csv(release, "judgments.csv")
    assert len(judgments) == N_PROVISIONAL  # the imported posts have no judgments
    assert all(row["provisional"] == "1" for row in judgments)
    split = _csv(release, "split.csv")
    assert len(split) == 80 + N_PROVISIONAL
    assert sum(row["provisional"] == "1" for row in split) == N_PROVISIONAL
    assert {row["provisional"] for row in split} == {"0", "1"}
    # the marked judgments.csv still reads as a judgments import
    rows, problems = parse_judgments_csv((Path(release.directory) / "judgments.csv").read_bytes())
    assert not problems and len(rows) == N_PROVISIONAL


def test_a_release_without_provisional_labels_has_no_such_column(make_batch, make_annotators, settings, tmp_path):
    from annotation.importing.services import import_posts

    settings.MEDIA_ROOT = str(tmp_path / "media")
    import_posts(synthetic_csv(20), with_labels=True)
    release = release_publish(bootstrap=0)
    assert "provisional" not in _csv(release, "split.csv")[0]
    assert (Path(release.directory) / "judgments.csv").read_text().splitlines()[0] == \
        "post,annotator,explicit,implicit,emotional"


def test_the_split_drops_provisional_rows_unless_asked(provisional_release):
    default = run_split(provisional_release, 0)
    assert len(default["train"]) + len(default["test"]) == 80
    assert not any(r.get("provisional") for r in default["train"] + default["test"])
    assert sum(default["provisional_dropped"].values()) == N_PROVISIONAL
    asked = run_split(provisional_release, 0, include_provisional=True)
    assert len(asked["train"]) + len(asked["test"]) == 80 + N_PROVISIONAL
    assert asked["provisional_dropped"] == {"train": 0, "test": 0}


def test_a_run_trains_without_provisional_labels_and_counts_them(provisional_release, client, make_user):
    (run,) = services.training_run_launch(created_by=None, release_id=provisional_release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone="char-ngram")
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert run.metrics["n_train"] + run.metrics["n_test"] == 80
    dropped = run.metrics["provisional_dropped"]
    assert sum(dropped.values()) == N_PROVISIONAL
    client.force_login(make_user("res", "researcher"))
    page = client.get(reverse("modeling:run", args=[run.pk]), **EN).content.decode()
    assert Texts(page, id="provisional-dropped").found == [
        f"provisional labels left out: {dropped['train']} training, {dropped['test']} test"]


def test_a_run_asked_to_include_them_trains_on_them_and_a_rerun_keeps_the_choice(provisional_release):
    (run,) = services.training_run_launch(created_by=None, release_id=provisional_release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone="char-ngram",
                                          include_provisional=True)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert run.metrics["n_train"] + run.metrics["n_test"] == 80 + N_PROVISIONAL
    assert run.metrics["provisional_dropped"] == {"train": 0, "test": 0}
    rerun = services.training_run_rerun(run_id=run.pk, created_by=None)
    assert TrainingRun.objects.get(pk=rerun.pk).include_provisional
