"""Finding 11 (issue 20): the API schema needs a login; production refuses to start without
DJANGO_ALLOWED_HOSTS; every page carries a Content-Security-Policy with per-request script nonces (and
every template's inline script carries the nonce); the importer refuses NUL characters line by line."""
from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.importing.parsers import ImportFailed
from annotation.importing.services import import_judgments, import_posts
from annotation.models import Judgment, Post

ROOT = Path(__file__).resolve().parent.parent.parent
NUL_MESSAGE = "contains a NUL character"


# --- /api/schema/ -------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_the_api_schema_needs_a_login(make_user):
    assert Client().get(reverse("schema")).status_code in (401, 403)
    client = Client()
    client.force_login(make_user("ann", role="annotator"))
    response = client.get(reverse("schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200 and b"/api/queue/" in response.content


# --- production settings ------------------------------------------------------------------------------

@pytest.mark.parametrize("hosts, refused", [(None, True), ("", True), (" , ", True), ("chlgbt.example.org", False)])
def test_production_refuses_to_start_without_allowed_hosts(hosts, refused):
    env = {**os.environ, "DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
           "DATABASE_URL": "postgres://chlgbt:pw@db.example.org:5432/chlgbt"}
    env.pop("DJANGO_ALLOWED_HOSTS", None)
    if hosts is not None:
        env["DJANGO_ALLOWED_HOSTS"] = hosts
    code = "import chlgbt_site.settings.production as s; print(s.ALLOWED_HOSTS)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert (out.returncode != 0) == refused, out.stderr[-2000:]
    if refused:
        assert "Set DJANGO_ALLOWED_HOSTS" in out.stderr
    else:
        assert out.stdout.strip() == "['chlgbt.example.org']"  # and nothing else: no localhost


# --- Content-Security-Policy --------------------------------------------------------------------------

def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


@pytest.mark.django_db
def test_pages_carry_a_policy_without_inline_script_or_eval(make_user):
    client = Client()
    client.force_login(make_user("res", role="researcher", is_staff=True))
    for url in ("/accounts/login/", "/agreement/", "/runs/", "/calibration/overview/", "/admin/", "/api/batches/"):
        response = client.get(url)
        assert response.status_code in (200, 403), url
        policy = _policy(response)
        assert policy["script-src"][0] == "'self'", url
        assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in policy["script-src"], url
        assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"], url
        assert policy["default-src"] == ["'self'"] and policy["form-action"] == ["'self'"], url


@pytest.mark.django_db
def test_an_inline_script_carries_the_nonce_of_its_response_and_nonces_differ(make_user):
    client = Client()
    client.force_login(make_user("res", role="researcher", is_staff=True))
    nonces = []
    for _ in range(2):
        response = client.get("/runs/")  # a page with an inline script
        header_nonces = [s[len("'nonce-"):-1] for s in _policy(response)["script-src"] if s.startswith("'nonce-")]
        page_nonces = re.findall(r'<script nonce="([^"]+)">', response.content.decode())
        assert len(header_nonces) == 1 and page_nonces and set(page_nonces) == set(header_nonces)
        nonces.append(header_nonces[0])
    assert nonces[0] != nonces[1]


def _templates() -> list[Path]:
    folders = [Path(d) for d in django_settings.TEMPLATES[0]["DIRS"]]
    folders += [p for p in ROOT.glob("*/templates") if ".venv" not in p.parts]
    return sorted({f for folder in folders for f in folder.rglob("*.html")})


def test_every_inline_script_in_our_templates_has_the_nonce_and_no_inline_handlers():
    """The policy refuses inline code without the nonce, so a template that forgets it breaks its page:
    catch it here, for templates added later too."""
    problems = []
    templates = _templates()
    assert len(templates) > 20
    for path in templates:
        html = path.read_text(encoding="utf-8")
        for tag in re.findall(r"<script\b[^>]*>", html, flags=re.IGNORECASE):
            if "src=" in tag or 'type="application/json"' in tag:
                continue
            if 'nonce="{{ request.csp_nonce }}"' not in tag:
                problems.append(f"{path.relative_to(ROOT)}: {tag}")
        for handler in re.findall(r"<[^>]*\son[a-z]+\s*=[^>]*>", html, flags=re.IGNORECASE):
            problems.append(f"{path.relative_to(ROOT)}: inline event handler {handler[:80]}")
        if re.search(r"href\s*=\s*[\"']\s*javascript:", html, flags=re.IGNORECASE):
            problems.append(f"{path.relative_to(ROOT)}: javascript: URL")
    assert problems == []


# --- NUL characters in imports ------------------------------------------------------------------------

@pytest.mark.django_db
@pytest.mark.parametrize("filename, body", [
    ("posts.csv", "Sentences\n好的帖子\n坏\x00帖子\n另一个好帖子\n有\x00两\x00个\n"),
    ("posts.jsonl", '{"text": "好的帖子"}\n{"text": "坏\\u0000帖子"}\n{"text": "另一个"}\n{"text": "有\\u0000两"}\n'),
])
def test_the_post_importer_refuses_nul_characters_line_by_line(filename, body):
    with pytest.raises(ImportFailed) as failed:
        import_posts(body.encode(), filename=filename)
    nul_lines = sorted(p.line for p in failed.value.problems if NUL_MESSAGE in p.reason)
    assert nul_lines == [2, 4] if filename.endswith("jsonl") else nul_lines == [3, 5]
    assert Post.objects.count() == 0


@pytest.mark.django_db
def test_the_judgment_importer_refuses_nul_characters(make_annotators):
    import_posts("Sentences\n好的帖子\n".encode())
    body = "post,annotator,explicit,implicit,emotional\n好的帖子,ann\x001,1,1,1\n"
    with pytest.raises(ImportFailed) as failed:
        import_judgments(body.encode())
    assert [(p.line, NUL_MESSAGE in p.reason) for p in failed.value.problems] == [(2, True)]
    assert Judgment.objects.count() == 0


@pytest.mark.django_db
def test_a_utf16_upload_is_refused_with_the_nul_explanation_on_the_upload_page(make_user):
    client = Client()
    client.force_login(make_user("res", role="researcher", is_staff=True))
    upload = SimpleUploadedFile("posts.csv", "Sentences\nhello\n".encode("utf-16-le"), content_type="text/csv")
    body = client.post(reverse("annotation:upload"), {"file": upload}).content.decode()
    assert "line 1: contains a NUL character" in body and "save the file as UTF-8 if it is UTF-16" in body
    assert Post.objects.count() == 0
