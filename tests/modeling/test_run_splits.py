"""Runs follow the release's split and can save a scoring model trained on every labelled post
(issue 23, item 0; docs/splits.md)."""
from __future__ import annotations

import pytest
from django.urls import reverse

from modeling import services
from modeling.maam.train import MAAMModel
from modeling.models import TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_saved_model_is_trained_on_all_posts_after_the_evaluation(labelled_release, client, make_user):
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone="char-ngram",
                                          final_fit_all=True)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    # Evaluated with the model trained on the 40 training posts; the saved model saw all 80.
    assert run.metrics["n_train"] == 40 and run.metrics["n_test"] == 40
    assert run.metrics["final_model_posts"] == 80
    assert MAAMModel.load(run.artifact_path).meta["n_train"] == 80
    assert run.metrics["split"]["scheme"] == "paper"
    client.force_login(make_user("res", "researcher"))
    page = client.get(reverse("modeling:run", args=[run.pk])).content.decode()
    assert "saved model trained on all 80 labelled posts" in page and 'id="split">paper' in page
    by_topic = run.metrics["test"]["explicit"]["by_topic"]
    assert sum(t["n"] for t in by_topic.values()) == 40  # every test post has a topic
    assert 'id="by-topic"' in page and f"同性恋 ({by_topic['同性恋']['n']})" in page
    rerun = services.training_run_rerun(run_id=run.pk, created_by=None)
    assert TrainingRun.objects.get(pk=rerun.pk).final_fit_all


def test_without_the_option_the_saved_model_is_the_evaluated_one(labelled_release):
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone="char-ngram")
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert run.metrics["final_model_posts"] == 40 and MAAMModel.load(run.artifact_path).meta["n_train"] == 40
