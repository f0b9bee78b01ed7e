"""Hostile input and access control across the three roles."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.assignment import services
from annotation.models import FinalLabel, Judgment, Post, Provenance

pytestmark = pytest.mark.django_db
XSS = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


def test_check_deploy_is_clean_with_production_settings():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.production",
           "DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "DJANGO_ALLOWED_HOSTS": "chlgbt.example.org",
           "CELERY_BROKER_URL": "redis://redis:6379/0",  # production needs its broker, as docker-compose.yml gives it
           "DATABASE_URL": "postgres://chlgbt:pw@db.example.org:5432/chlgbt"}  # and its database (never a SQLite fallback)
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_a_missing_secret_key():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "chlgbt_site.settings.production",
           "DATABASE_URL": "postgres://chlgbt:pw@db.example.org:5432/chlgbt"}
    env.pop("DJANGO_SECRET_KEY", None)
    result = subprocess.run([sys.executable, "manage.py", "check"], capture_output=True, text=True, env=env)
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr


@pytest.fixture
def world(make_annotators, make_batch, make_user):
    a1, a2 = make_annotators(2)
    batch = make_batch(n_posts=2, k=2, annotators=[a1, a2])
    item = services.assignment_next(annotator=a1, batch_id=batch.id)
    judgment = services.judgment_submit(annotator=a1, post_id=item.post_id,
                                        scores={"explicit": 1, "implicit": 5, "emotional": 1}, note=XSS, flagged=True)
    Post.objects.filter(pk=item.post_id).update(text=f"帖子 {XSS}")
    FinalLabel.objects.create(post_id=item.post_id, explicit=5, implicit=1, emotional=3,
                              provenance=Provenance.ADJUDICATED, rationale=XSS)
    return {"a1": a1, "a2": a2, "adj": make_user("adj", role="adjudicator"),
            "res": make_user("res", role="researcher", is_staff=True), "batch": batch, "judgment": judgment,
            "post": item.post_id, "item": item.pk}


def routes(w):
    """(method, url, roles allowed, where an allowed request is sent: None = answered 200 in place).
    Anything else must be refused."""
    b, j, p = w["batch"].id, w["judgment"].pk, w["post"]
    return [
        ("get", reverse("annotation:queue"), {"a1", "a2"}, None),
        ("get", reverse("annotation:annotate", args=[b]), {"a1", "a2"}, None),
        ("get", reverse("annotation:upload"), {"res"}, None),
        ("get", reverse("api:api-batches"), {"a1", "a2"}, None),
        ("post", reverse("api:api-queue-next", args=[b]), {"a1", "a2"}, None),
        ("get", reverse("api:api-judgments"), {"a1", "a2"}, None),
        ("get", reverse("api:api-judgment", args=[j]), {"a1"}, None),
        ("get", reverse("review:adjudication"), {"adj", "res"}, None),
        ("get", reverse("review:adjudicate", args=[p]), {"adj", "res"}, None),
        ("get", reverse("review:consistency"), {"adj", "res"}, None),
        ("get", reverse("review:agreement"), {"res"}, None),
        ("get", reverse("review:releases"), {"adj", "res"}, None),
        ("post", reverse("review:releases"), {"res"}, reverse("review:releases")),  # publish, then the list
        ("get", reverse("modeling:runs"), {"res"}, None),
        ("get", reverse("modeling:compare"), {"res"}, None),
        ("get", reverse("api:api-runs"), {"res"}, None),
        ("get", reverse("api:api-predictions"), {"res"}, None),
        ("get", reverse("calibration:priors"), {"res"}, None),
        ("get", reverse("calibration:weights"), {"res"}, None),
        ("get", reverse("calibration:overview"), {"res"}, None),
        ("get", reverse("calibration:case", args=[p]), {"res"}, None),
        ("get", reverse("admin:index"), {"res"}, None),
        # Annotator quality (issue 12)
        ("get", reverse("annotation:qualification", args=[b]), {"a1", "a2"}, reverse("annotation:annotate", args=[b])),
        ("get", reverse("api:api-qualification", args=[b]), {"a1", "a2"}, None),
        ("get", reverse("review:quality"), {"res"}, None),
        ("get", reverse("review:quality-annotator", args=[w["a1"].pk]), {"res"}, None),
        ("get", reverse("review:quality-gold"), {"res"}, None),
        ("post", reverse("review:quality-aggregation"), {"res"}, reverse("review:quality")),
        ("get", reverse("api:api-quality-annotators"), {"res"}, None),
        ("get", reverse("api:api-quality-annotator", args=[w["a1"].pk]), {"res"}, None),
        ("get", reverse("api:api-quality-alerts"), {"res"}, None),
        ("get", reverse("api:api-quality-gold"), {"res"}, None),
        ("get", reverse("api:api-quality-batch", args=[b]), {"res"}, None),
        ("get", reverse("api:api-quality-qualifications"), {"res"}, None),
        ("get", reverse("api:api-quality-aggregation"), {"res"}, None),
        ("get", reverse("api:api-quality-aggregates"), {"res"}, None),
    ]


def test_every_route_across_roles(world, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    for method, url, allowed, sends_to in routes(world):
        for role in ("anon", "a1", "a2", "adj", "res"):
            client = Client()
            if role != "anon":
                client.force_login(world[role])
            response = getattr(client, method)(url)
            if role in allowed:
                # Allowed means answered: a page, or the one redirect the route is known to make.
                expected = 302 if sends_to else 200
                assert response.status_code == expected, (method, url, role, response.status_code)
                if sends_to:
                    assert response["Location"] == sends_to, (url, role, response["Location"])
            else:
                assert response.status_code in (302, 401, 403, 404), (method, url, role, response.status_code)
                if response.status_code == 302:
                    assert response["Location"].startswith(("/accounts/login/", "/admin/login/")), (url, role)
                assert "window.pwned" not in response.content.decode(), (url, role)


def test_an_annotator_probing_others_gets_nothing(world, api_for):
    client = api_for(world["a2"])
    url = reverse("api:api-judgment", args=[world["judgment"].pk])
    for response in (client.get(url), client.patch(url, {"explicit": 2}, format="json"),
                     client.post(reverse("api:api-judgments"), {"item": world["item"], "explicit": 2, "implicit": 2,
                                                                "emotional": 2}, format="json")):
        assert response.status_code in (403, 404)
        assert "pwned" not in response.content.decode()
    assert Judgment.objects.get(pk=world["judgment"].pk).explicit == 1


def test_adjudicator_cannot_publish_and_annotator_cannot_reach_researcher_api(world, api_for):
    assert api_for(world["adj"]).get(reverse("api:api-runs")).status_code == 403
    assert api_for(world["a1"]).get(reverse("api:api-predictions")).status_code == 403
    client = Client()
    client.force_login(world["adj"])
    assert client.post(reverse("review:releases"), {"seed": "0"}).status_code == 403


def test_xss_in_posts_notes_and_rationales_is_escaped(world):
    # A second post, flagged and unsettled, so the disagreement queue lists hostile text too.
    other = world["batch"].posts.exclude(pk=world["post"]).get()
    Post.objects.filter(pk=other.pk).update(text=f"另一个 {XSS}")
    Judgment.objects.create(post=other, annotator=world["a2"], explicit=1, implicit=1, emotional=1, note=XSS,
                            flagged=True)
    client = Client()
    client.force_login(world["adj"])
    for url, shown in ((reverse("review:adjudicate", args=[world["post"]]), world["post"]),
                       (reverse("review:consistency"), world["post"]),
                       (reverse("review:adjudication"), other.pk)):
        response = client.get(url)
        body = response.content.decode()
        assert response.status_code == 200, url
        assert reverse("review:adjudicate", args=[shown]) in body or "<h1>Post #" in body, url  # the post is there
        assert "<script>window.pwned" not in body and 'onerror="window.pwned' not in body, url
        assert "&lt;script&gt;window.pwned" in body, url


def test_csrf_is_enforced_on_forms_and_session_api(world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world["a1"])
    response = client.post(reverse("api:api-judgments"), {"item": world["item"], "explicit": 1, "implicit": 1,
                                                          "emotional": 1}, content_type="application/json")
    assert response.status_code == 403 and "CSRF" in response.content.decode()
    client.force_login(world["res"])
    assert client.post(reverse("review:releases"), {"seed": "0"}).status_code == 403
    client.force_login(world["adj"])
    assert client.post(reverse("review:adjudicate", args=[world["post"]]), {}).status_code == 403


def test_uploads_are_type_checked_and_size_limited(world, settings):
    client = Client()
    client.force_login(world["res"])
    exe = SimpleUploadedFile("posts.exe", b"MZ\x90\x00", content_type="application/octet-stream")
    body = client.post(reverse("annotation:upload"), {"file": exe}).content.decode()
    assert "Upload a .csv or .jsonl file." in body
    settings.IMPORT_MAX_BYTES = 100
    big = SimpleUploadedFile("posts.csv", b"Sentences\n" + "长".encode() * 200, content_type="text/csv")
    body = client.post(reverse("annotation:upload"), {"file": big}).content.decode()
    assert "the limit is 100" in body
    assert Post.objects.count() == 2


def test_upload_page_lists_every_problem_and_imports_nothing(world):
    client = Client()
    client.force_login(world["res"])
    bad = SimpleUploadedFile("posts.csv", "Sentences,Explicit,Implicit,Emotional\n好,1,1,1\n坏,9,1,1\n".encode())
    body = client.post(reverse("annotation:upload"), {"file": bad}).content.decode()
    assert "line 3: Explicit must be between 1 and 5, got 9" in body and Post.objects.count() == 2
    good = SimpleUploadedFile("posts.csv", "Sentences\n新的帖子\n".encode())
    assert client.post(reverse("annotation:upload"), {"file": good, "batch": "new"}).status_code == 302
    assert Post.objects.filter(batch__name="new").count() == 1


@pytest.mark.parametrize("url", [
    "/api/queue/99999999999999999999999/next/", "/api/judgments/99999999999999999999999/",
    "/calibration/weights/?post=99999999999999999999999", "/calibration/weights/?post=abc",
    "/calibration/priors/?snapshot=abc", "/runs/compare/?ids=1,abc,99999999999999999999999",
    "/api/predictions/?post=99999999999999999999999",
])
def test_absurd_ids_are_404_or_400_never_500(world, url):
    client = Client()
    client.force_login(world["res"] if "calibration" in url or "runs" in url or "predictions" in url else world["a1"])
    assert client.get(url).status_code in (200, 400, 404), url


def test_garbage_form_numbers_are_refused_cleanly(world, settings, tmp_path):
    from annotation.models import AgreementReport, Release

    settings.MEDIA_ROOT = str(tmp_path)
    client = Client()
    client.force_login(world["adj"])
    # An unreadable version counts as "I saw no label": the adjudicated label (version 1) is not overwritten.
    response = client.post(reverse("review:adjudicate", args=[world["post"]]),
                           {"explicit": 2, "implicit": 2, "emotional": 2, "rationale": "r", "version": "abc"})
    assert response.status_code == 200 and "changed this label while you were looking" in response.content.decode()
    label = FinalLabel.objects.get(post_id=world["post"])
    assert (label.explicit, label.version) == (5, 1)
    response = client.post(reverse("review:adjudicate", args=[world["post"]]),
                           {"explicit": "2.5", "implicit": "x", "emotional": 2, "rationale": "r", "version": 1})
    assert response.status_code == 200 and "Every dimension needs a score from 1 to 5." in response.content.decode()
    assert FinalLabel.objects.get(post_id=world["post"]).version == 1
    client.force_login(world["res"])
    response = client.post(reverse("review:agreement-bootstrap"), {"bootstrap": "10**9"})
    assert response.status_code == 302 and response["Location"] == reverse("review:agreement")
    assert list(AgreementReport.objects.values_list("bootstrap", flat=True)) == [1000]  # the default, not 10**9
    response = client.post(reverse("review:releases"), {"seed": "-x"}, follow=True)
    assert "The split seed must be a whole number" in response.content.decode() and not Release.objects.exists()
