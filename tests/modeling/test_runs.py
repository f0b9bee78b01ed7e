"""Training runs and scoring jobs through the services (Celery eager), admin and API."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Post
from core.errors import DomainError, QueueUnavailable
from modeling import services
from modeling.maam.train import MAAMModel
from modeling.models import LexiconTerm, Prediction, ScoringJob, TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)
DIMS = ["explicit", "implicit", "emotional"]


def launch(release, **kw):
    args = dict(created_by=None, release_id=release.pk, dimensions=DIMS, variants=["baseline", "full"], seeds=[0])
    args.update(kw)
    return services.training_run_launch(**args)


def test_launch_trains_evaluates_and_saves_artifacts(labelled_release):
    runs = launch(labelled_release)
    assert len(runs) == 2 and len({r.launch_group for r in runs}) == 1
    for run in TrainingRun.objects.all():
        assert run.status == "succeeded", run.error
        assert set(run.metrics["test"]) == set(DIMS) and run.metrics["n_test"] == 40
        assert 0 <= run.metrics["test"]["explicit"]["after"]["macro_f1"] <= 1
        model = MAAMModel.load(run.artifact_path)  # verifies the checksum
        assert (Path(run.artifact_path) / "CHECKSUM").read_text().strip() == run.artifact_checksum
        assert model.config.variant == run.variant and run.lexicon_version.startswith("db:")
        assert run.versions["maam"] and run.finished_at and run.percent == 100
    full = TrainingRun.objects.get(variant="full")
    assert full.metrics["fusion"]["explicit"]["order"] == ["I", "S", "C"] and len(full.metrics["fusion_table"]["explicit"]) == 15


def test_scoring_stores_and_replaces_predictions(labelled_release, client, make_user, make_annotators):
    (run,) = launch(labelled_release, variants=["full"])
    job = services.scoring_job_launch(created_by=None, run_id=run.pk)
    job.refresh_from_db()
    assert job.status == "succeeded" and job.scored == Post.objects.count()
    first = Prediction.objects.get(post=Post.objects.first(), run=run)
    assert set(first.probabilities) == set(DIMS)
    assert sum(first.probabilities["explicit"]["before"]) == pytest.approx(1, abs=1e-4)
    assert len(first.probabilities["implicit"]["after"]) == 5 and first.cis_state
    services.scoring_job_launch(created_by=None, run_id=run.pk)
    assert Prediction.objects.count() == Post.objects.count()  # replaced, not duplicated

    post = Post.objects.first()
    adjudicator = make_user("adj", role="adjudicator")
    client.force_login(adjudicator)
    page = client.get(reverse("review:adjudicate", args=[post.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert page.context["prediction"].run_label == f"Run {run.pk} · MAAM (full)"
    (annotator,) = make_annotators(1)
    client.force_login(annotator)
    assert client.get(reverse("api:api-predictions")).status_code == 403
    assert client.get(reverse("review:adjudicate", args=[post.pk])).status_code == 403


def test_scoring_stores_nothing_for_a_dimension_the_run_did_not_train(labelled_release, client, make_user):
    """A run trained on explicit bias only predicts explicit bias: the other two are missing, not 0."""
    (run,) = launch(labelled_release, variants=["baseline"], dimensions=["explicit"])
    services.scoring_job_launch(created_by=None, run_id=run.pk)
    post = Post.objects.first()
    prediction = Prediction.objects.get(post=post, run=run)
    assert prediction.explicit in range(1, 6)
    assert (prediction.implicit, prediction.emotional) == (None, None)
    assert set(prediction.probabilities) == {"explicit"}
    client.force_login(make_user("adj", role="adjudicator"))
    body = client.get(reverse("review:adjudicate", args=[post.pk])).content.decode()
    row = body[body.index('<tr class="prediction">'):]
    row = row[:row.index("</tr>")]
    assert f"<td>{prediction.explicit}</td>" in row and row.count("<td>—</td>") == 2 and "<td>0</td>" not in row
    client.force_login(make_user("res", role="researcher"))
    api = client.get(reverse("api:api-predictions") + f"?post={post.pk}").json()
    assert [(p["explicit"], p["implicit"], p["emotional"]) for p in api] == [(prediction.explicit, None, None)]


def test_scoring_an_uploaded_file(labelled_release, tmp_path):
    (run,) = launch(labelled_release, variants=["baseline"])
    job = services.scoring_job_launch(created_by=None, run_id=run.pk, scope="upload",
                                      upload="Sentences\n你好世界\n真恶心\n".encode(), upload_name="new.csv")
    job.refresh_from_db()
    assert job.status == "succeeded" and job.scored == 2
    lines = Path(job.output_path).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("text,explicit_label,explicit_p1") and len(lines) == 3


@pytest.mark.parametrize("kwargs,message", [
    ({"backbone": "/no/such/model"}, "neither one of char-ngram, use-m3, hybrid, use-m3-ft, a local model directory"),
    ({"dimensions": ["tone"]}, "Choose dimensions"),
    ({"variants": []}, "Choose variants"),
    ({"seeds": []}, "at least one seed"),
])
def test_bad_parameters_are_refused_at_launch(labelled_release, kwargs, message):
    with pytest.raises(DomainError, match=message):
        launch(labelled_release, **kwargs)
    assert not TrainingRun.objects.exists()


def test_single_class_dimension_and_empty_split_refused(db, settings, tmp_path):
    from annotation.releases.services import release_publish
    from annotation.importing.services import import_posts

    settings.MEDIA_ROOT = str(tmp_path)
    rows = "".join(f"帖子{i},3,{1 + i % 2},2\n" for i in range(30))
    import_posts(("Sentences,Explicit,Implicit,Emotional\n" + rows).encode(), with_labels=True)
    release = release_publish(bootstrap=0)
    with pytest.raises(DomainError, match="explicit have a single class"):
        launch(release)
    from annotation.models import FinalLabel

    FinalLabel.objects.all().delete()  # no labelled posts at all: an empty split
    with pytest.raises(DomainError, match="split is too small"):
        services.training_run_launch(created_by=None, release_id=None, dimensions=DIMS, variants=["full"], seeds=[0])
    assert not TrainingRun.objects.exists()


def test_queue_unavailable_is_a_clear_refusal(labelled_release):
    from chlgbt_site.celery import app

    old = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    app.conf.update(task_always_eager=False, broker_url="redis://127.0.0.1:1/0")  # nothing listens there
    try:
        with pytest.raises(QueueUnavailable, match="task queue is unavailable"):
            launch(labelled_release)
    finally:
        app.conf.update(**old)
    assert not TrainingRun.objects.exists()


def test_lexicon_edits_reach_the_next_run(labelled_release):
    (first,) = launch(labelled_release, variants=["myopia"])
    LexiconTerm.objects.create(term="南通", kind="coded")
    (second,) = launch(labelled_release, variants=["myopia"])
    assert first.lexicon_version != second.lexicon_version
    assert ["南通", "coded"] in second.lexicon_terms and ["南通", "coded"] not in first.lexicon_terms
    second.refresh_from_db()
    assert "南通" in MAAMModel.load(second.artifact_path).lexicon


def test_stale_running_run_is_marked_failed(labelled_release):
    from core.jobs import WORKER_LOST, jobs_fail_lost

    run = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=DIMS, status="running")
    TrainingRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert jobs_fail_lost(stale_seconds=600)["modeling.TrainingRun"] == 1
    run.refresh_from_db()
    assert run.status == "failed" and run.error == WORKER_LOST


def test_cancel_and_rerun(labelled_release):
    run = TrainingRun.objects.create(launch_group="g", release=labelled_release, variant="baseline", dimensions=DIMS)
    services.training_run_cancel(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert services.training_run_execute(run_id=run.pk).status == "cancelled"  # a late delivery does nothing
    with pytest.raises(DomainError, match="already cancelled"):
        services.training_run_cancel(run_id=run.pk)
    new = services.training_run_rerun(run_id=run.pk, created_by=None)
    new.refresh_from_db()
    assert new.status == "succeeded" and new.variant == "baseline"
    # A run from before presets has no settings: its re-run trains with the same defaults, not a preset.
    assert new.fusion_settings == {} and MAAMModel.load(new.artifact_path).config.cis == "cues"


def test_runs_train_with_their_preset_and_reruns_keep_it(labelled_release):
    (default,) = launch(labelled_release, variants=["full"], dimensions=["explicit"])
    assert default.fusion_settings["preset"] == "best-offline" and default.backbone == "hybrid"
    default.refresh_from_db()
    config = MAAMModel.load(default.artifact_path).config
    assert (config.backbone, config.prior_mode, config.myopia_mode, config.cis, config.min_gain) == (
        "hybrid", "log-shift", "filter", "use-m3", 0.01)
    assert default.metrics["fusion"]["explicit"]["prior_mode"] == "log-shift"
    (paper,) = launch(labelled_release, variants=["full"], dimensions=["explicit"], preset="paper", backbone="char-ngram")
    paper.refresh_from_db()
    assert MAAMModel.load(paper.artifact_path).config.prior_mode == "raw"
    again = services.training_run_rerun(run_id=paper.pk, created_by=None)
    assert again.fusion_settings == paper.fusion_settings and again.backbone == "char-ngram"
    with pytest.raises(DomainError, match="Unknown preset"):
        launch(labelled_release, preset="nope")


def test_admin_launch_form_and_compare_page(labelled_release, client, make_user):
    researcher = make_user("res", role="researcher", is_staff=True, is_superuser=True)
    client.force_login(researcher)
    page = client.get(reverse("admin:modeling_launch"))
    assert page.status_code == 200
    response = client.post(reverse("admin:modeling_launch"), {
        "release": labelled_release.pk, "variants": ["baseline", "full"], "dimensions": DIMS, "seeds": "0,1",
        "backbone": "char-ngram", "epochs": 3, "learning_rate": 2e-5, "batch_size": 16, "C": 2.0, "device": "auto"})
    assert response.status_code == 302 and TrainingRun.objects.filter(status="succeeded").count() == 4
    table = client.get(reverse("modeling:compare") + "?group=" + TrainingRun.objects.first().launch_group)
    body = table.content.decode()
    assert table.status_code == 200 and "baseline" in body and "full" in body and "±" in body
    api = client.get(reverse("api:api-runs")).json()
    assert len(api) == 4 and {r["status"] for r in api} == {"succeeded"}
    bad = client.post(reverse("admin:modeling_launch"), {
        "variants": ["full"], "dimensions": DIMS, "seeds": "a,b", "backbone": "char-ngram", "epochs": 3,
        "learning_rate": 2e-5, "batch_size": 16, "C": 2.0, "device": "auto"})
    assert "Seeds are integers" in bad.content.decode()


def test_release_admin_action_launches_the_ablation(labelled_release, client, make_user):
    client.force_login(make_user("res", role="researcher", is_staff=True, is_superuser=True))
    client.post(reverse("admin:annotation_release_changelist"),
                {"action": "launch_ablation", "_selected_action": [labelled_release.pk]})
    assert TrainingRun.objects.count() == 20 and TrainingRun.objects.filter(status="succeeded").count() == 20
    assert ScoringJob.objects.count() == 0


def test_progress_only_moves_forward(labelled_release, monkeypatch):
    seen = []
    monkeypatch.setattr(services, "PROGRESS_WRITE_SECONDS", 0.0)
    (run,) = launch(labelled_release, variants=["full"])
    reporter = services.RunReporter(run.pk)
    TrainingRun.objects.filter(pk=run.pk).update(status="running")
    for stage, current, total in [("parsing", 0, 80), ("weighting", 40, 80), ("weighting", 80, 80),
                                  ("training", 0, 1), ("training", 1, 1), ("calibrating", 3, 3),
                                  ("evaluating", 0, 1), ("weighting", 10, 40), ("evaluating", 1, 1)]:
        reporter(stage, current, total)
        seen.append(TrainingRun.objects.get(pk=run.pk).percent)
    assert seen == sorted(seen) and seen[-1] == 99 and seen[0] == 0
