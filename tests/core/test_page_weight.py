"""Issue 31 item 6 (every page <= 1 s): what a page costs the browser and a login costs the server.

Pages with figures load the workbench's own plotly.js bundle (tools/plotly_bundle: the core with bar and
heatmap, 1.2 MB; not the full 4.8 MB whose parse alone took over a second in Chromium, nor the 1.5 MB
cartesian bundle that took ~770 ms to run), deferred, from a static file browsers keep; pages without figures
load none. The bundle holds every trace type the figure builders draw, and nothing else. Passwords are hashed with Argon2id (PBKDF2
hashes still verify and are upgraded at login), and a login goes straight to the role's page."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth.hashers import make_password
from django.test import Client
from django.urls import reverse

ROOT = Path(__file__).resolve().parent.parent.parent
PLOTLY_BUNDLE = "vendor/plotly-chlgbt-4.1.1.min.js"
FIGURE_MODULES = ["calibration/figures.py", "annotation/quality/figures.py", "annotation/agreement/figures.py",
                  "wellbeing/figures.py"]
# Figure.add_* methods that add no trace.
NOT_TRACES = {"trace", "traces", "hline", "vline", "hrect", "vrect", "shape", "annotation", "layout_image", "selection"}


def bundle_traces() -> set[str]:
    """The trace types the vendored bundle registers."""
    text = (ROOT / "static" / PLOTLY_BUNDLE).read_text()
    return set(re.findall(r'moduleType:"trace",name:"(\w+)"', text))


def test_the_vendored_bundle_is_the_recipes_plotly_with_its_licence():
    head = (ROOT / "static" / PLOTLY_BUNDLE).read_text()[:300]
    assert "plotly.js (chlgbt: scatter, bar, heatmap - minified) v4.1.1" in head and "MIT" in head
    assert "MIT License" in (ROOT / "static" / "vendor" / "plotly.js-LICENSE.txt").read_text()
    assert bundle_traces() == {"bar", "heatmap", "scatter"}
    # the recipe builds this very file: its pinned plotly.js version is the one in the name
    recipe = ROOT / "tools" / "plotly_bundle"
    assert json.loads((recipe / "package.json").read_text())["dependencies"]["plotly.js"] == "4.1.1"
    assert json.loads((recipe / "package-lock.json").read_text())["packages"]["node_modules/plotly.js"]["version"] == "4.1.1"
    registered = set(re.findall(r"require\('plotly\.js/lib/(\w+)'\)", (recipe / "entry.js").read_text())) - {"core"}
    assert registered | {"scatter"} == bundle_traces()  # the core carries scatter


def test_every_trace_type_the_figures_draw_is_in_the_bundle():
    used = set()
    for name in FIGURE_MODULES:
        source = (ROOT / name).read_text()
        used |= {t.lower() for t in re.findall(r"\bgo\.([A-Z]\w*)\(", source) if t != "Figure"}
        used |= {t for t in re.findall(r"\.add_(\w+)\(", source) if t not in NOT_TRACES}
    assert used and used <= bundle_traces(), used - bundle_traces()


def test_every_page_that_draws_loads_the_deferred_bundle_and_no_other_plotly():
    templates = ROOT / "templates"
    partial = (templates / "_plotly.html").read_text()
    assert f"{{% static '{PLOTLY_BUNDLE}' %}}\" defer>" in partial
    drawing = []
    for path in templates.rglob("*.html"):
        text = path.read_text()
        assert "plotly.min.js" not in text and "plotly-js" not in text and "cdn." not in text.lower(), path
        if path.name.startswith("_"):
            continue
        if "_figures.html" in text or "_figures_script.html" in text:
            drawing.append(path.name)
            assert '{% include "_plotly.html" %}' in text, path
        assert "Plotly.newPlot" not in text, path  # one drawing code: static/js/figures.js
    assert len(drawing) >= 10
    # the drawing code is deferred too, so it runs after the bundle (in the head), in document order
    assert "{% static 'js/figures.js' %}\" defer>" in (templates / "_figures_script.html").read_text()
    assert "Plotly.newPlot" in (ROOT / "static" / "js" / "figures.js").read_text()


@pytest.mark.parametrize(("url", "immutable"), [
    ("/static/vendor/plotly-chlgbt-4.1.1.min.js", True),
    ("/static/css/app.3f2a9c81b0d4.css", True),  # a collectstatic name
    ("/static/css/app.css", False), ("/static/js/plotly_locale.js", False), ("/static/vendor/plotly.js-LICENSE.txt", False),
])
def test_only_files_whose_name_changes_with_their_content_are_cached_for_good(url, immutable):
    from chlgbt_site.settings import base

    assert bool(re.search(base.WHITENOISE_IMMUTABLE_FILE_TEST, url)) is immutable


def test_whitenoise_serves_the_bundle_as_immutable(settings):
    from whitenoise.middleware import WhiteNoiseMiddleware

    from chlgbt_site.settings import base

    settings.WHITENOISE_USE_FINDERS, settings.WHITENOISE_AUTOREFRESH = True, False
    settings.WHITENOISE_IMMUTABLE_FILE_TEST = base.WHITENOISE_IMMUTABLE_FILE_TEST
    middleware = WhiteNoiseMiddleware(get_response=lambda request: None)
    headers = dict(middleware.files[f"/static/{PLOTLY_BUNDLE}"].get_response("GET", {}).headers)
    assert "immutable" in headers["Cache-Control"]
    headers = dict(middleware.files["/static/css/app.css"].get_response("GET", {}).headers)
    assert "immutable" not in headers["Cache-Control"]


@pytest.fixture
def production_hashers(settings):
    from chlgbt_site.settings import base

    settings.PASSWORD_HASHERS = base.PASSWORD_HASHERS  # tests run on MD5 for speed (settings/test.py)


def test_passwords_are_hashed_with_argon2id(production_hashers):
    encoded = make_password("a long passphrase")
    assert encoded.startswith("argon2$argon2id$")
    params = dict(p.split("=") for p in encoded.split("$")[3].split(","))
    assert (int(params["t"]), int(params["m"]), int(params["p"])) == (2, 65536, 2)  # core/hashers.py


def test_an_argon2_hash_of_djangos_parameters_verifies_and_is_rehashed(production_hashers, make_user):
    from django.contrib.auth.hashers import Argon2PasswordHasher

    user = make_user("early", role="annotator")
    user.password = Argon2PasswordHasher().encode("pw-for-tests-1", Argon2PasswordHasher().salt())  # m=100 MiB, p=8
    user.save(update_fields=["password"])
    assert Client().post("/accounts/login/", {"username": "early", "password": "pw-for-tests-1"}).status_code == 302
    user.refresh_from_db()
    assert "m=65536,t=2,p=2" in user.password


def test_a_pbkdf2_hash_still_logs_in_and_is_upgraded_to_argon2(production_hashers, make_user):
    user = make_user("older", role="annotator")
    user.password = make_password("pw-for-tests-1", hasher="pbkdf2_sha256")
    user.save(update_fields=["password"])
    response = Client().post("/accounts/login/", {"username": "older", "password": "pw-for-tests-1"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$") and user.check_password("pw-for-tests-1")


@pytest.mark.parametrize(("role", "landing"), [("researcher", "review:agreement"), ("adjudicator", "review:adjudication"),
                                               ("annotator", "annotation:queue")])
def test_a_login_goes_straight_to_the_roles_page(make_user, role, landing):
    make_user("person", role=role)
    response = Client().post("/accounts/login/", {"username": "person", "password": "pw-for-tests-1"})
    assert response.status_code == 302 and response["Location"] == reverse(landing)
    # ?next= still wins
    response = Client().post("/accounts/login/?next=/releases/", {"username": "person", "password": "pw-for-tests-1"})
    assert response["Location"] == "/releases/"
