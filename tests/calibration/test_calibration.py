"""Calibration: priors equal an independent recount, snapshots are immutable, figures are valid
plotly, and every page renders."""
from __future__ import annotations

from collections import Counter, defaultdict

import plotly.graph_objects as go
import plotly.io as pio
import pytest
from django.urls import reverse

from annotation.importing.services import import_posts
from annotation.models import DIMENSIONS, Post
from calibration import figures, services
from calibration.models import PriorSnapshot
from modeling.maam.astigmatism import STATES, CISState

pytestmark = pytest.mark.django_db
ROWS = [("哈哈笑死，同性恋又上热搜", 2, 3, 4), ("我支持平等和尊重", 1, 1, 2), ("这些人真恶心变态", 5, 3, 5),
        ("法律应该保护所有人的权利", 1, 1, 2), ("他们就是有病", 4, 4, 4), ("今天天气不错", 1, 1, 1)]


@pytest.fixture
def labelled():
    body = "Sentences,Explicit,Implicit,Emotional\n" + "".join(f"{t},{e},{i},{m}\n" for t, e, i, m in ROWS)
    import_posts(body.encode(), with_labels=True)
    Post.objects.filter(text="今天天气不错").update(tone="Serious", identity="Ingroup", stance="Pro")


def recount(rows, states):
    """P(Y=k | Z=z) counted by hand, independently of build_priors."""
    out = {}
    for d_index, d in enumerate(DIMENSIONS):
        out[d] = {}
        for axis in "CIS":
            tally = defaultdict(Counter)
            for row, state in zip(rows, states):
                tally[state.get(axis)][row[d_index]] += 1
            out[d][axis] = {}
            for s in STATES[axis]:
                n = sum(tally[s].values())
                out[d][axis][s] = [tally[s][k] / n for k in range(1, 6)] if n else [0.2] * 5
    return out


def test_heatmap_data_equals_an_independent_recount(labelled):
    snapshot = services.prior_snapshot_rebuild()
    states = [CISState(c, i, s) for _, c, i, s, _ in snapshot.states]
    by_id = {p.pk: p for p in Post.objects.select_related("final_label")}
    rows = [[getattr(by_id[pid].final_label, d) for d in DIMENSIONS] for pid, *_ in snapshot.states]
    expected = recount(rows, states)
    fig = figures.prior_heatmaps(snapshot.priors, snapshot.counts)
    for col, d in enumerate(DIMENSIONS):
        z = fig.data[col].z
        for r, (axis, state) in enumerate(figures.state_rows()):
            assert list(z[r]) == pytest.approx(expected[d][axis][state])
    manual = [s for s in snapshot.states if s[4] == "manual"]
    assert len(manual) == 1 and manual[0][1:4] == ["Serious", "Ingroup", "Pro"]
    assert snapshot.state_sources["manual"] == 1 and snapshot.n_posts == 6


def test_snapshot_never_changes(labelled):
    snapshot = services.prior_snapshot_rebuild()
    with pytest.raises(ValueError, match="immutable"):
        snapshot.n_posts = 0
        snapshot.save()
    Post.objects.update(tone="", identity="", stance="")
    second = services.prior_snapshot_rebuild()
    assert PriorSnapshot.objects.get(pk=snapshot.pk).states != second.states  # the old one kept its data


def test_rebuild_from_a_release_and_after_publishing(labelled, settings, tmp_path, django_capture_on_commit_callbacks):
    from annotation.releases.services import release_publish

    settings.MEDIA_ROOT = str(tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        release = release_publish(bootstrap=0)
    snapshot = PriorSnapshot.objects.get()
    assert snapshot.release == release and snapshot.source == "release 1" and snapshot.n_posts == 6


@pytest.mark.parametrize("builder", ["priors", "diff", "weights", "fusion", "reliability", "overview", "case"])
def test_figures_are_valid_plotly(labelled, builder):
    snap = services.prior_snapshot_rebuild()
    tokens = [{"text": "同", "subcategory": "explicit_object", "level_orig": 1, "level": 1, "keyword": 1.0,
               "w_base": 0.9, "w_adj": 1.0, "weight": 0.95, "kept": True}]
    bins = [{"lower": 0, "upper": 0.5, "count": 3, "confidence": 0.4, "accuracy": 0.3},
            {"lower": 0.5, "upper": 1, "count": 0, "confidence": None, "accuracy": None}]
    fig = {
        "priors": lambda: figures.prior_heatmaps(snap.priors, snap.counts),
        "diff": lambda: figures.prior_diff(snap.priors, snap.priors),
        "weights": lambda: figures.token_weights(tokens, "explicit"),
        "fusion": lambda: figures.fusion_table([{"order": ["I"], "alphas": [0.5], "dev_macro_f1": 0.4,
                                                 "baseline_dev_f1": 0.3}], ["I"], "explicit"),
        "reliability": lambda: figures.reliability(bins, bins, "explicit", 0.1, 0.05),
        "overview": lambda: figures.dataset_overview({d: [r[i + 1] for r in ROWS] for i, d in enumerate(DIMENSIONS)}),
        "case": lambda: figures.case_steps([{"name": "model", "p": [0.2] * 5}]),
    }[builder]()
    again = pio.from_json(fig.to_json())  # round-trips through plotly's validators
    assert isinstance(again, go.Figure) and len(again.data) >= 1


def test_pages_render_for_researchers_only(labelled, client, make_user, make_annotators):
    services.prior_snapshot_rebuild()
    (annotator,) = make_annotators(1)
    client.force_login(annotator)
    assert client.get(reverse("calibration:priors")).status_code == 403
    client.force_login(make_user("res", role="researcher"))
    post = Post.objects.first()
    for url in (reverse("calibration:priors"), reverse("calibration:weights") + f"?post={post.pk}",
                reverse("calibration:weights") + "?text=" + "<script>alert(1)</script>同性恋",
                reverse("calibration:overview"), reverse("calibration:case", args=[post.pk])):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "<script>alert(1)</script>" not in response.content.decode()
    csv_body = client.get(reverse("calibration:priors") + "?format=csv").content.decode().splitlines()
    assert csv_body[0] == "dimension,axis,state,score,probability,count" and len(csv_body) == 1 + 3 * 9 * 5
    assert client.get(reverse("calibration:weights") + "?post=999999").status_code == 404


def test_rebuild_form_takes_a_release_or_the_current_labels(labelled, client, make_user, settings, tmp_path,
                                                           django_capture_on_commit_callbacks):
    from annotation.releases.services import release_publish
    from calibration.models import RebuildRequest

    settings.MEDIA_ROOT = str(tmp_path / "media")
    with django_capture_on_commit_callbacks(execute=False):
        release = release_publish(bootstrap=0)  # its own rebuild is left unqueued here
    RebuildRequest.objects.all().delete()
    client.force_login(make_user("res", role="researcher"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("calibration:rebuild"), {"release": str(release.pk)})
        client.post(reverse("calibration:rebuild"), {"release": ""})
    assert [(r.release_id, r.status) for r in RebuildRequest.objects.order_by("id")] == [
        (release.pk, "succeeded"), (None, "succeeded")]
    page = client.post(reverse("calibration:rebuild"), {"release": "12345678901234567890"}, follow=True)
    assert "Choose a published release" in page.content.decode() and RebuildRequest.objects.count() == 2
