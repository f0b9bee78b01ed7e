"""Splits that fit the data (issue 23, item 0): the paper's 1,000 / rest, a stratified 80/20 (the
default above 2,000 labelled posts) or k stratified folds, chosen at publication, written to
split.csv, named in the data card, and followed by training runs."""
from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import pytest

from annotation.importing.services import import_posts
from annotation.models import Release, SplitScheme
from annotation.releases import files
from annotation.releases.services import release_publish
from core.errors import DomainError
from tests.modeling.conftest import synthetic_csv


def rows(n: int, seed: int = 0) -> list[dict]:
    import random

    rng = random.Random(seed)
    # Skewed labels, as ChLGBT's are: class 1 common, class 5 rare.
    weights = [40, 25, 15, 12, 8]
    return [{"id": f"p{i:05d}", "text": f"t{i}", **{d: rng.choices(range(1, 6), weights)[0] for d in files.DIMENSIONS},
             "provenance": "imported"} for i in range(n)]


def test_the_default_is_the_papers_split_up_to_2000_posts_and_stratified_above():
    assert files.default_split_scheme(2000) == files.SPLIT_PAPER
    assert files.default_split_scheme(2001) == files.SPLIT_STRATIFIED


def test_stratified_folds_are_balanced_in_size_and_labels():
    data = rows(3000)
    fold = files.stratified_folds(data, seed=3, folds=5)
    sizes = Counter(fold.values())
    assert sorted(sizes) == [0, 1, 2, 3, 4] and max(sizes.values()) - min(sizes.values()) <= 1
    for d in files.DIMENSIONS:
        overall = Counter(r[d] for r in data)
        for f in range(5):
            members = [r for r in data if fold[r["id"]] == f]
            share = Counter(r[d] for r in members)
            for label, count in overall.items():
                # each fold holds each label in the release's proportion (to within a few posts)
                assert abs(share[label] / len(members) - count / len(data)) < 0.03, (d, f, label)
    assert files.stratified_folds(data, seed=3, folds=5) == fold  # reproducible
    assert files.stratified_folds(data, seed=4, folds=5) != fold  # and the seed matters


def test_split_plans_per_scheme():
    data = rows(2500)
    paper = files.split_plan(data, 0, files.SPLIT_PAPER)
    assert sum(v["split"] == "train" for v in paper.values()) == 1000
    strat = files.split_plan(data, 0, files.SPLIT_STRATIFIED)
    assert sum(v["split"] == "test" for v in strat.values()) == 500
    assert all(v["fold"] is None for v in strat.values())
    kfold = files.split_plan(data, 0, files.SPLIT_KFOLD, folds=4)
    assert Counter(v["fold"] for v in kfold.values()) == {0: 625, 1: 625, 2: 625, 3: 625}
    assert all((v["split"] == "test") == (v["fold"] == 0) for v in kfold.values())
    with pytest.raises(ValueError, match="split scheme"):
        files.split_plan(data, 0, "random")
    with pytest.raises(ValueError, match="folds"):
        files.split_plan(data, 0, files.SPLIT_KFOLD, folds=1)


def test_kfold_split_csv_round_trips_with_its_fold_column():
    data = rows(30)
    built = files.data_files(data, [], seed=1, scheme=files.SPLIT_KFOLD, folds=3)
    header = built["split.csv"].decode().splitlines()[0]
    assert header == "id,split,fold"
    parsed = files.parse_rows(built["release.jsonl"], built["split.csv"])
    assert {r["fold"] for r in parsed} == {0, 1, 2}
    assert all((r["split"] == "test") == (r["fold"] == 0) for r in parsed)
    plain = files.parse_rows(*(files.data_files(data, [], seed=1)[n] for n in ("release.jsonl", "split.csv")))
    assert all("fold" not in r for r in plain)


@pytest.fixture
def media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    return Path(settings.MEDIA_ROOT)


@pytest.mark.django_db
def test_publishing_with_k_folds_records_the_scheme_in_the_row_the_files_and_the_card(media):
    import_posts(synthetic_csv(40), with_labels=True)
    release = release_publish(bootstrap=0, split="kfold", folds=4)
    assert release.split_scheme == SplitScheme.KFOLD and release.split_folds == 4
    folder = Path(release.directory)
    split = list(csv.DictReader(io.StringIO((folder / "split.csv").read_text())))
    assert Counter(r["fold"] for r in split) == {"0": 10, "1": 10, "2": 10, "3": 10}
    card = (folder / "DATACARD.md").read_text()
    assert "split scheme: `kfold`" in card and "4 stratified folds" in card
    assert "30 train / 10 test" in card


@pytest.mark.django_db
def test_auto_publishes_the_papers_split_for_a_small_release(media):
    import_posts(synthetic_csv(40), with_labels=True)
    release = release_publish(bootstrap=0)
    assert release.split_scheme == SplitScheme.PAPER and release.split_folds is None
    assert "split scheme: `paper`" in (Path(release.directory) / "DATACARD.md").read_text()


@pytest.mark.django_db
@pytest.mark.parametrize("options, message", [({"split": "kfold", "folds": 1}, "between 2 and"),
                                              ({"split": "kfold", "folds": 15}, "too few"),
                                              ({"split": "shuffled"}, "Unknown split")])
def test_a_bad_split_choice_publishes_nothing(media, options, message):
    import_posts(synthetic_csv(20), with_labels=True)
    with pytest.raises(DomainError, match=message):
        release_publish(bootstrap=0, **options)
    assert not Release.objects.exists()
    assert not (media / "releases").exists() or not any((media / "releases").glob("release-*"))


@pytest.mark.django_db
def test_the_releases_page_publishes_the_chosen_split(media, client, make_user):
    import_posts(synthetic_csv(40), with_labels=True)
    client.force_login(make_user("res", "researcher"))
    client.post("/releases/", {"seed": "0", "split": "stratified"})
    release = Release.objects.get()
    assert release.split_scheme == SplitScheme.STRATIFIED
    assert "Stratified 80/20" in client.get("/releases/").content.decode()


@pytest.mark.django_db
def test_a_run_on_a_kfold_release_tests_on_fold_seed_mod_k(media):
    from modeling.splits import run_split

    import_posts(synthetic_csv(40), with_labels=True)
    release = release_publish(bootstrap=0, split="kfold", folds=4)
    for seed in (1, 6):
        data = run_split(release, seed)
        assert {r["fold"] for r in data["test"]} == {seed % 4}
        assert seed % 4 not in {r["fold"] for r in data["train"]}
        assert len(data["train"]) + len(data["test"]) == 40
        assert data["split"] == {"scheme": "kfold", "seed": 0, "release": release.number, "folds": 4,
                                 "test_fold": seed % 4}
