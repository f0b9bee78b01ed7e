"""Calibration: priors equal an independent recount, snapshots are immutable, figures are valid
plotly, and every page renders."""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
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


def _figure(fig) -> go.Figure:
    """The figure, once it has gone through plotly's JSON and validators as the page sends it."""
    assert isinstance(pio.from_json(fig.to_json()), go.Figure)
    return fig


def listed(values) -> list:
    return np.asarray(values).tolist()


def test_prior_heatmaps_and_diff_draw_the_snapshot(labelled):
    snap = services.prior_snapshot_rebuild()
    fig = _figure(figures.prior_heatmaps(snap.priors, snap.counts))
    assert [t.type for t in fig.data] == ["heatmap"] * 3
    rows = [f"{axis}: {state}" for axis, state in figures.state_rows()]
    for trace, d in zip(fig.data, DIMENSIONS):
        assert list(trace.x) == [1, 2, 3, 4, 5] and list(trace.y) == rows
        assert listed(trace.z) == [list(snap.priors[d][axis][state]) for axis, state in figures.state_rows()]
        assert listed(trace.customdata) == [snap.counts[d][axis][state] for axis, state in figures.state_rows()]
        assert all(sum(r) == pytest.approx(1) for r in listed(trace.z))
    shifted = {d: {axis: {state: [v + 0.1 for v in p] for state, p in table.items()} for axis, table in axes.items()}
               for d, axes in snap.priors.items()}
    diff = _figure(figures.prior_diff(snap.priors, shifted))
    assert len(diff.data) == 3 and all(v == pytest.approx(0.1) for t in diff.data for r in listed(t.z) for v in r)


def test_token_weight_figure_shows_each_stage_per_token():
    tokens = [{"text": "同", "subcategory": "explicit_object", "level_orig": 1, "level": 1, "keyword": 1.0,
               "w_base": 0.9, "w_adj": 1.0, "weight": 0.95, "kept": True},
              {"text": "，", "subcategory": "neutral_punct", "level_orig": 5, "level": 5, "keyword": 0.0,
               "w_base": 0.0, "w_adj": 0.0, "weight": 0.0, "kept": False}]
    (trace,) = _figure(figures.token_weights(tokens, "explicit")).data
    assert list(trace.x) == ["0:同", "1:，"]
    assert listed(trace.z) == [[0.9, 0.0], [1.0, 0.0], [0.95, 0.0]]
    assert "dropped" in trace.text[2][1] and "dropped" not in trace.text[2][0] and "(keyword)" in trace.text[0][0]


def test_fusion_reliability_overview_and_case_figures_carry_their_data():
    fusion = _figure(figures.fusion_table([{"order": ["I"], "alphas": [0.5], "dev_macro_f1": 0.4, "baseline_dev_f1": 0.3},
                                           {"order": ["C", "S"], "alphas": [0.2, 0.3], "dev_macro_f1": 0.35,
                                            "baseline_dev_f1": 0.3}], ["I"], "explicit"))
    (bars,) = fusion.data
    assert list(bars.x) == ["I", "C→S"] and list(bars.y) == [0.4, 0.35]
    assert list(bars.marker.color) == ["#6b3fa0", "#b8a4d6"]  # the order in use stands out
    assert [shape.y0 for shape in fusion.layout.shapes] == [0.3]  # the baseline line

    bins = [{"lower": 0, "upper": 0.5, "count": 3, "confidence": 0.4, "accuracy": 0.3},
            {"lower": 0.5, "upper": 1, "count": 0, "confidence": None, "accuracy": None}]
    reliability = _figure(figures.reliability(bins, bins, "explicit", 0.1, 0.05))
    perfect, before, after = reliability.data
    assert list(perfect.x) == [0, 1] and list(perfect.y) == [0, 1]
    assert list(before.x) == [0.4] and list(before.y) == [0.3] and list(before.customdata) == [3]  # empty bin left out
    assert "ECE 0.100" in before.name and "ECE 0.050" in after.name

    labels = {d: [r[i + 1] for r in ROWS] for i, d in enumerate(DIMENSIONS)}
    overview = _figure(figures.dataset_overview(labels))
    distribution = {t.name: list(t.y) for t in overview.data if t.type == "bar"}
    names = dict(zip(DIMENSIONS, ["Explicit bias", "Implicit bias", "Emotional intensity"]))  # legend: the dimension's name
    assert distribution == {names[d]: [labels[d].count(k) for k in range(1, 6)] for d in DIMENSIONS}
    joint = next(t for t in overview.data if t.type == "heatmap" and list(t.x) == [1, 2, 3, 4, 5])
    expected = [[sum(1 for _, e, i, _m in ROWS if (e, i) == (x, y)) for x in range(1, 6)] for y in range(1, 6)]
    assert listed(joint.z) == expected  # rows: implicit, columns: explicit
    corr = overview.data[-1]
    assert listed(corr.z) == np.round(np.corrcoef([labels[d] for d in DIMENSIONS]), 3).tolist()

    case = _figure(figures.case_steps([{"name": "model", "p": [0.1, 0.2, 0.3, 0.2, 0.2]},
                                       {"name": "after I (Outgroup)", "p": [0.0, 0.1, 0.3, 0.3, 0.3]}], "implicit"))
    assert [t.name for t in case.data] == ["model", "after I (Outgroup)"]
    assert listed(case.data[1].y) == [0.0, 0.1, 0.3, 0.3, 0.3] and listed(case.data[0].x) == [1, 2, 3, 4, 5]


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
