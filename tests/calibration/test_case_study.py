"""The case-study page reads the fusion cascade the run stored when it scored the post
(modeling.services.fusion_traces); it never loads or runs a model (issue 31, item 6: 6.2 s a view)."""
from __future__ import annotations

import pytest
from html.parser import HTMLParser

from django.urls import reverse

from annotation.models import Post
from modeling import services
from modeling.maam.train import MAAMModel
from modeling.models import Prediction
from tests.modeling.conftest import labelled_release  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db(transaction=True)
DIMS = ["explicit", "implicit", "emotional"]


@pytest.fixture
def scored(labelled_release):  # noqa: F811
    (run,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=DIMS,
                                          variants=["full"], seeds=[0])
    services.scoring_job_launch(created_by=None, run_id=run.pk)
    run.refresh_from_db()
    return run


class _Page(HTMLParser):
    """The parsed page: links inside the element with id `case-unscored`, elements by class."""

    def __init__(self, html: str):
        super().__init__()
        self.depth_in_notice = 0
        self.notice_links: list[str] = []
        self.classes: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.classes += (attrs.get("class") or "").split()
        if attrs.get("id") == "case-unscored":
            self.depth_in_notice = 1
        elif self.depth_in_notice:
            self.depth_in_notice += 1
            if tag == "a":
                self.notice_links.append(attrs["href"])

    def handle_endtag(self, tag):
        if self.depth_in_notice:
            self.depth_in_notice -= 1


def test_scoring_stores_each_fusion_step_as_the_model_computes_it(scored):
    post = Post.objects.order_by("id").first()
    stored = Prediction.objects.get(post=post, run=scored).probabilities
    model = MAAMModel.load(scored.artifact_path)
    tags = [{"C": post.tone, "I": post.identity, "S": post.stance}] if post.tone and post.identity and post.stance else None
    fresh = model.predict([post.text], tags=tags)
    for d in DIMS:
        trace = stored[d]["fusion"]
        assert [s["axis"] for s in trace["steps"]] == list(model.dims[d].fusion.order)
        for step, expected in zip(trace["steps"], fresh[d]["steps"]):
            assert step["p"] == pytest.approx([float(v) for v in expected[0]], abs=1e-5)
            assert step["state"] == fresh[d]["states"][0].get(step["axis"])
            assert sum(step["q"]) == pytest.approx(1, abs=1e-4)
        assert trace["source"] == fresh[d]["states"][0].source


def test_the_case_page_shows_the_stored_steps_without_loading_a_model(scored, client, make_user, monkeypatch):
    def no_model(*args, **kwargs):
        raise AssertionError("the case page loaded a model")

    monkeypatch.setattr(MAAMModel, "load", no_model)
    monkeypatch.setattr(MAAMModel, "predict", no_model)
    post = Post.objects.order_by("id").first()
    stored = Prediction.objects.get(post=post, run=scored).probabilities["explicit"]["fusion"]
    client.force_login(make_user("res", role="researcher"))
    response = client.get(reverse("calibration:case", args=[post.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    steps = response.context["dims"]["explicit"]["steps"]
    assert [s["name"] for s in steps][1:] == [f"after {s['axis']} ({s['state']})" for s in stored["steps"]]
    assert steps[-1]["p"] == pytest.approx(stored["steps"][-1]["p"], abs=1e-4)
    titles = [f["layout"]["title"]["text"] for f in response.context["figures"].values()]
    assert len(set(titles)) == 3  # one chart per dimension, each titled with its own


def test_a_run_that_has_not_scored_the_post_says_so_and_links_to_scoring(scored, client, make_user, labelled_release):  # noqa: F811
    (other,) = services.training_run_launch(created_by=None, release_id=labelled_release.pk, dimensions=DIMS,
                                            variants=["baseline"], seeds=[0])
    post = Post.objects.order_by("id").first()
    client.force_login(make_user("res", role="researcher"))
    response = client.get(reverse("calibration:case", args=[post.pk]) + f"?run={other.pk}", HTTP_ACCEPT_LANGUAGE="en")
    assert _Page(response.content.decode()).notice_links == [reverse("admin:modeling_score", args=[other.pk])]


def test_a_prediction_scored_before_steps_were_stored_asks_for_a_new_scoring(scored, client, make_user):
    post = Post.objects.order_by("id").first()
    prediction = Prediction.objects.get(post=post, run=scored)
    prediction.probabilities = {d: {k: v for k, v in p.items() if k != "fusion"} for d, p in prediction.probabilities.items()}
    prediction.save()
    client.force_login(make_user("res", role="researcher"))
    response = client.get(reverse("calibration:case", args=[post.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert _Page(response.content.decode()).classes.count("case-untraced") == 3
