"""What a newcomer trips over on the first day: warnings at every start, a 404 on /calibration/,
plot titles cut off."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.urls import reverse

from tests.embedded_site import ROOT

SERVE_ONE_REQUEST = """
import django
django.setup()
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.test import Client
app = get_wsgi_application()  # builds the middleware (WhiteNoise) as a started server does
print(Client().get("/static/css/app.css").status_code)
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_a_start_prints_no_staticfiles_warning_and_serves_static_files(debug):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "STATIC_ROOT")}
    env.update(DJANGO_SETTINGS_MODULE="chlgbt_site.settings.local", DJANGO_DEBUG=debug, PYTHONWARNINGS="always")
    out = subprocess.run([sys.executable, "-c", SERVE_ONE_REQUEST], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "No directory at" not in out.stderr
    assert out.stdout.strip().splitlines()[-1] == "200"


def test_production_still_collects_into_staticfiles():
    env = {**os.environ, "DJANGO_SECRET_KEY": "x" * 10 + "Kq8#zR2!vL9@pT4$wN7%yB1^" * 2,
           "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "DJANGO_ALLOWED_HOSTS": "chlgbt.example.org",
           "DATABASE_URL": "postgres://chlgbt:pw@db.example.org:5432/chlgbt"}
    out = subprocess.run([sys.executable, "-c", "import chlgbt_site.settings.production as s; print(s.STATIC_ROOT)"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("staticfiles")


@pytest.mark.django_db
@pytest.mark.parametrize("language, heading", [("en", "Calibration"), ("zh-hans", "校准")])
def test_calibration_has_an_index_page(client, make_user, language, heading):
    client.force_login(make_user("res", role="researcher"))
    client.cookies["django_language"] = language
    response = client.get("/calibration/")
    html = response.content.decode()
    assert response.status_code == 200 and f"<h1>{heading}</h1>" in html
    for name in ("calibration:priors", "calibration:weights", "calibration:overview"):
        assert f'href="{reverse(name)}"' in html
    assert client.get("/calibration/?post=12").url == reverse("calibration:case", args=[12])
    assert client.get("/calibration/?post=abc").status_code == 200


@pytest.mark.django_db
def test_calibration_index_is_for_researchers(client, make_user):
    client.force_login(make_user("ann", role="annotator"))
    assert client.get("/calibration/").status_code == 403


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_quality_plot_titles_are_wrapped_and_given_room(language):
    from django.utils import translation

    from annotation.quality import figures

    report = {"thresholds": {"min_alpha": 0.5, "alpha_window": 100, "gold_window": 15, "seconds_floor": 5,
                             "seconds_window": 50},
              "annotators": [{"id": 1, "username": "a", "pseudonym": "A"}], "dimensions": ["explicit"],
              "series": {"1": {"alpha": {"explicit": [[1.0, 2.0], [0.5, 0.6]]}, "gold_error": {}, "seconds": [[1.0], [9.0]]}}}
    with translation.override(language):
        specs = {**figures.overview(report), **{f"one-{k}": v for k, v in figures.annotator(report, 1).items()}}
    wrapped = 0
    for spec in specs.values():
        title = spec["layout"]["title"]
        lines = title["text"].split("<br>")
        assert all(figures._display_width(line) <= figures.TITLE_LINE_UNITS for line in lines)
        assert spec["layout"]["margin"]["t"] >= 40 + 20 * len(lines) and title["xanchor"] == "left"
        wrapped += len(lines) > 1
    assert wrapped or language != "en"  # the long English ones do wrap


@pytest.mark.django_db
def test_admin_object_names_are_in_the_readers_language(make_user, make_batch):
    """Object names in the admin (titles, breadcrumbs, deletion lists) come from __str__: translated,
    and never Django's English 'AgreementReport object (1)'."""
    from django.utils import translation

    from annotation.models import AgreementReport, Assignment, FinalLabel, Judgment, Post
    from calibration.models import RebuildRequest
    from modeling.models import ScoringJob, TrainingRun

    annotator = make_user("ann1", role="annotator")
    batch = make_batch(n_posts=1)
    post = Post.objects.get(batch=batch)
    run = TrainingRun.objects.create(launch_group="g", variant="full", dimensions=["explicit"], seed=2)
    objects = [AgreementReport.objects.create(), RebuildRequest.objects.create(), run, ScoringJob.objects.create(run=run),
               Assignment.objects.create(post=post, annotator=annotator, assigned_at="2026-01-01T00:00:00Z"),
               Judgment.objects.create(post=post, annotator=annotator, explicit=1, implicit=1, emotional=1),
               FinalLabel.objects.create(post=post, explicit=1, implicit=1, emotional=1, provenance="auto")]
    for obj in objects:
        with translation.override("en"):
            english = str(obj)
        with translation.override("zh-hans"):
            chinese = str(obj)
        assert "object (" not in english and english != chinese, (english, chinese)
        assert not any(word in chinese for word in ("Run", "Judgment", "post", "report")), chinese
    with translation.override("zh-hans"):
        assert str(run).startswith(f"运行 {run.pk}：") and str(run).endswith("种子 2")
