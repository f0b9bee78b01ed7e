"""Runs follow the release's split and can save a scoring model trained on every labelled post
(issue 23, item 0; docs/splits.md)."""
from __future__ import annotations

import pytest
from django.urls import reverse

from modeling import services
from modeling.maam.train import MAAMModel
from modeling.models import TrainingRun
from tests.core.test_chinese_labels import EN, Texts

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
    page = client.get(reverse("modeling:run", args=[run.pk]), **EN).content.decode()
    # The split is named in the reader's language since 8cddcfe ('paper' -> "the paper's protocol").
    assert Texts(page, id="final-fit").found == ["saved model trained on all 80 labelled posts"]
    assert Texts(page, id="split").found == ["the paper's protocol"]
    by_topic = run.metrics["test"]["explicit"]["by_topic"]
    assert sum(t["n"] for t in by_topic.values()) == 40  # every test post has a topic
    topics = Texts(page, cls="topic").found
    assert Texts(page, id="by-topic").found and any(t.startswith(f"同性恋 ({by_topic['同性恋']['n']}): ") for t in topics)
    rerun = services.training_run_rerun(run_id=run.pk, created_by=None)
    assert TrainingRun.objects.get(pk=rerun.pk).final_fit_all


def test_without_the_option_the_saved_model_is_the_evaluated_one(labelled_release):
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone="char-ngram")
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert run.metrics["final_model_posts"] == 40 and MAAMModel.load(run.artifact_path).meta["n_train"] == 40


def test_a_best_offline_baseline_run_gets_the_presets_stacker_and_offsets(labelled_release, client, make_user):
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone="char-ngram",
                                          preset="best-offline")
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert run.fusion_settings["stack"] and run.fusion_settings["offsets"]
    model = MAAMModel.load(run.artifact_path)
    assert model.config.stack and model.config.offsets and "explicit" in model.meta["stacking"]
    kept = run.metrics["stacking"]["explicit"]["kept"]
    assert kept == model.meta["stacking"]["explicit"]["kept"]
    client.force_login(make_user("res", "researcher"))
    page = client.get(reverse("modeling:run", args=[run.pk])).content.decode()
    assert 'id="stacking"' in page and f"<code>{kept}</code>" in page


def test_an_astigmatism_run_under_the_preset_takes_its_fusion_settings_only(labelled_release):
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=["explicit"],
                                          variants=["astigmatism"], seeds=[0], backbone="char-ngram",
                                          preset="best-offline", fusion_settings=None)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    model = MAAMModel.load(run.artifact_path)
    assert not model.config.stack and model.config.prior_mode == "log-shift" and "stacking" not in run.metrics


def test_the_run_reports_the_evaluated_models_fusion_not_the_refits(labelled_release, monkeypatch):
    from modeling.maam import train as train_module

    trained = []
    real_train = train_module.train

    def spy(texts, *args, **kwargs):
        model = real_train(texts, *args, **kwargs)
        if trained:  # the refit on every post: mark its choice so the two cannot be confused
            model.dims["explicit"].fusion.alphas = [0.123]
        trained.append((len(texts), {d: dm.fusion.to_dict() for d, dm in model.dims.items()}))
        return model

    monkeypatch.setattr(train_module, "train", spy)
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=["explicit"],
                                          variants=["astigmatism"], seeds=[0], backbone="char-ngram",
                                          final_fit_all=True)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    (n_eval, evaluated), (n_final, final) = trained
    assert (n_eval, n_final) == (40, 80)
    assert run.metrics["fusion"] == evaluated and run.metrics["final_fusion"] == final
    assert final["explicit"]["alphas"] == [0.123] != evaluated["explicit"]["alphas"]


def test_a_fine_tuned_backbone_under_the_preset_is_not_stacked(labelled_release):
    """Stacking needs k out-of-fold fits per dimension: cheap for the linear backbones it was measured
    on, k more fine-tunes for use-m3-ft - so a fine-tuned run takes the preset's fusion keys only."""
    pytest.importorskip("torch")
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=["explicit"],
                                          variants=["baseline"], seeds=[0], backbone="use-m3-ft",
                                          hyperparameters={"epochs": 1, "batch_size": 20}, preset="best-offline",
                                          device="cpu")
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert run.fusion_settings["stack"]  # recorded as the preset has it, not applied
    model = MAAMModel.load(run.artifact_path, device="cpu")
    assert not model.config.stack and "stacking" not in run.metrics
