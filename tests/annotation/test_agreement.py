"""Agreement from the database, including Krippendorff's own worked example."""
from __future__ import annotations

import json

import numpy as np
import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.templatetags.static import static
from django.urls import reverse

from annotation.agreement import alpha, bootstrap_interval, pair_matrix, rater_vs_rest, severity
from annotation.agreement.selectors import load_ratings
from tests.core.test_page_weight import PLOTLY_BUNDLE

pytestmark = pytest.mark.django_db

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers x 12 units, '.' missing.
WORKED = {
    "A": "1 2 3 3 2 1 4 1 2 . . .",
    "B": "1 2 3 3 2 2 4 1 2 5 . 3",
    "C": ". 3 3 3 2 3 4 2 2 5 1 .",
    "D": "1 2 3 3 2 4 4 1 2 5 1 .",
}


def worked_example_csv(tmp_path):
    lines = ["post,annotator,explicit,implicit,emotional"]
    for observer, values in WORKED.items():
        for unit, value in enumerate(values.split(), start=1):
            if value != ".":
                lines.append(f"u{unit},obs{observer},{value},{value},")
    path = tmp_path / "kripp.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_worked_example_reproduces_published_values(tmp_path, capsys):
    call_command("import_judgments", str(worked_example_csv(tmp_path)), "--create-missing-posts")
    assert "Imported 41 judgments by 4 annotators (12 new posts)" in capsys.readouterr().out
    call_command("agreement", "--json")
    report = json.loads(capsys.readouterr().out)
    explicit = report["dimensions"]["explicit"]["alpha"]
    assert round(explicit["nominal"], 3) == 0.743
    assert round(explicit["ordinal"], 3) == 0.815
    assert round(explicit["interval"], 3) == 0.849
    assert report["dimensions"]["emotional"]["alpha"]["ordinal"] is None  # all missing: undefined, not a crash
    call_command("agreement")
    table = capsys.readouterr().out
    assert "explicit" in table and "0.815" in table and "0.849" in table and "0.743" in table


def test_import_judgments_is_all_or_nothing(tmp_path):
    from annotation.importing.services import ImportFailed, import_judgments
    from annotation.models import Judgment

    bad = tmp_path / "bad.csv"
    bad.write_text("post,annotator,explicit,implicit,emotional\np1,a1,1,2,3\np1,a1,1,2,3\np2,a2,9,,\n")
    with pytest.raises(ImportFailed) as info:
        import_judgments(bad.read_bytes(), create_missing_posts=True)
    assert [str(p) for p in info.value.problems] == [
        "line 3: duplicate judgment (first on line 2)", "line 4: explicit must be between 1 and 5, got 9"]
    assert Judgment.objects.count() == 0


def test_the_judgment_count_counts_judgments_not_one_dimensions_values(make_annotators, make_batch, capsys):
    """Three judgments, one of them without an explicit score: the report says 3, not 2."""
    from annotation.models import Judgment

    a1, a2 = make_annotators(2)
    p1, p2 = make_batch(n_posts=2, annotators=[a1, a2]).posts.order_by("id")
    Judgment.objects.create(post=p1, annotator=a1, explicit=1, implicit=2, emotional=3)
    Judgment.objects.create(post=p1, annotator=a2, explicit=None, implicit=2, emotional=2)
    Judgment.objects.create(post=p2, annotator=a1, explicit=3, implicit=3, emotional=None)
    call_command("agreement", "--json")
    report = json.loads(capsys.readouterr().out)
    assert report["n_judgments"] == 3 and report["n_units"] == 2 and report["n_raters"] == 2


def test_bootstrap_interval_brackets_the_estimate():
    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, size=200)
    matrix = np.vstack([np.clip(truth + rng.integers(-1, 2, size=200), 1, 5) for _ in range(6)]).astype(float)
    point = alpha(matrix)
    lo, hi = bootstrap_interval(matrix, n_boot=200)
    assert lo < point < hi and hi - lo < 0.2


def test_severity_pairs_and_rater_vs_rest():
    base = [1, 2, 3, 4, 5, 1, 2, 3]
    harsh = [2, 3, 4, 5, 5, 2, 3, 4]
    matrix = np.array([base, harsh, base, base], dtype=float)
    sev = severity(matrix)
    assert sev[1] > 0.5 and sev[0] < 0 and sev[2] < 0  # rater 1 scores harsher
    pairs = pair_matrix(matrix)
    assert pairs[0][2] == pytest.approx(1.0) and pairs[0][1] < 1.0 and pairs[1][0] == pairs[0][1]
    vs_rest = rater_vs_rest(matrix)
    assert vs_rest[0] == pytest.approx(1.0) and vs_rest[1] < 0.9


def test_load_ratings_shape(make_annotators, make_batch):
    from annotation.assignment import services

    annotators = make_annotators(3)
    batch = make_batch(n_posts=4, k=3, annotators=annotators)
    for a in annotators:
        while (item := services.assignment_next(annotator=a, batch_id=batch.id)) is not None:
            services.judgment_submit(annotator=a, post_id=item.post_id, scores={"explicit": 2, "implicit": 2, "emotional": 3})
    ratings = load_ratings()
    assert ratings.matrices["explicit"].shape == (3, 4) and not np.isnan(ratings.matrices["explicit"]).any()


def test_dashboard_renders_plotly_from_this_site(client, make_user, tmp_path, django_capture_on_commit_callbacks):
    call_command("import_judgments", str(worked_example_csv(tmp_path)), "--create-missing-posts")
    client.force_login(make_user("res", role="researcher"))
    page = client.get(reverse("review:agreement"))  # nothing computed yet, and the page computes nothing
    assert page.status_code == 200 and "No agreement report has been computed yet." in page.content.decode()
    assert "0.815" not in page.content.decode()
    assert PLOTLY_BUNDLE not in page.content.decode()  # no figure, no plotly.js
    # the background job (eager in tests) computes the report with its intervals; the page reads it
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("review:agreement-bootstrap"), {"bootstrap": "50"})
    page = client.get(reverse("review:agreement"))
    assert page.status_code == 200
    body = page.content.decode()
    assert "cdn" not in body.lower() and "0.815" in body
    # plotly.js: the vendored bundle (tools/plotly_bundle), a static file, deferred (templates/_plotly.html)
    assert f'<script src="{static(PLOTLY_BUNDLE)}" defer>' in body and finders.find(PLOTLY_BUNDLE)
    assert "Intervals: bootstrap of 50 resamples" in body


def test_dashboard_reads_the_latest_computed_report_and_never_computes_alpha(client, make_user, tmp_path,
                                                                             monkeypatch,
                                                                             django_capture_on_commit_callbacks):
    from annotation.agreement import selectors as agreement_selectors
    from annotation.models import Judgment

    call_command("import_judgments", str(worked_example_csv(tmp_path)), "--create-missing-posts")
    client.force_login(make_user("res", role="researcher"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("review:agreement-bootstrap"), {"bootstrap": "20"})
    Judgment.objects.all().delete()  # newer data: the page still shows the computed report, as of its time

    def no_alpha_here(*args, **kwargs):
        raise AssertionError("the dashboard computed α in the request")

    monkeypatch.setattr(agreement_selectors, "agreement_report", no_alpha_here)
    monkeypatch.setattr(agreement_selectors, "load_ratings", no_alpha_here)
    for _ in range(2):  # the second view reads the figures built by the first
        page = client.get(reverse("review:agreement"))
        assert page.status_code == 200 and "0.815" in page.content.decode()


def test_annotators_and_adjudicators_cannot_see_agreement(client, make_user, make_annotators):
    (annotator,) = make_annotators(1)
    for user in (annotator, make_user("adj", role="adjudicator")):
        client.force_login(user)
        assert client.get(reverse("review:agreement")).status_code == 403


def test_agreement_mathematics_imports_no_django():
    """Like modeling/maam, the alpha mathematics is a library: importing it loads no Django."""
    import subprocess
    import sys

    code = ("import sys, annotation.agreement.mathematics, annotation.agreement.figures;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'celery', 'rest_framework')];"
            "print(bad); raise SystemExit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
