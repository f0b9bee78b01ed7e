"""Finding 10 (issue 20): every id or number read from a query string takes ASCII digits only, bounded
to the database's integer range; anything else answers 200/400/404, never 500."""
from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import FinalLabel, Provenance
from calibration import services as calibration_services
from core.converters import BIGINT_MAX, ID_MAX, parse_id

pytestmark = pytest.mark.django_db

# Superscript two, a full-width one, Arabic-Indic five, a number past any integer column, one just past
# 64 bits, a negative, an exponent and a float.
ODD = ["²", "１", "٥", "9" * 30, str(2**63), str(10**18), "-1", "1e5", "1.5", " 7 ", "0x10"]

# Every query-string id or number the pages and the API read (role: the one allowed on the route).
PARAMS = [
    ("res", "/api/quality/qualifications/", "batch"),
    ("res", "/api/quality/qualifications/", "annotator"),
    ("res", "/api/quality/annotators/", "limit"),
    ("res", "/api/quality/annotators/", "offset"),
    ("res", "/quality/annotators/{a1}/", "since"),
    ("res", "/quality/annotators/{a1}/", "until"),
    ("adj", "/adjudicate/", "after"),
    ("res", "/runs/compare/", "ids"),
    ("res", "/calibration/priors/", "snapshot"),
    ("res", "/calibration/priors/", "compare"),
    ("res", "/calibration/weights/", "post"),
    ("res", "/calibration/", "post"),  # redirects to /calibration/case/<post>/ (issue 30: 19 digits raised)
    ("res", "/calibration/case/{post}/", "run"),
    ("res", "/api/predictions/", "post"),
    ("res", "/api/predictions/", "run"),
]


@pytest.mark.parametrize("value", ["²", "١٢", "１２", "", "abc", "-3", "+3", "3.0", str(BIGINT_MAX + 1), str(BIGINT_MAX), str(ID_MAX + 1), "9" * 40])
def test_parse_id_refuses_everything_but_ascii_digits_in_range(value):
    assert parse_id(value) is None


def test_parse_id_reads_ascii_digits_up_to_the_path_id_limit():
    """18 digits, as a path id takes (issue 30): a 19-digit id under 2^63 - 1 cannot be redirected to."""
    assert parse_id("42") == 42 and parse_id(" 7 ") == 7 and parse_id(str(ID_MAX)) == ID_MAX < BIGINT_MAX
    assert parse_id(0) == 0 and parse_id(None) is None


def test_every_query_string_id_answers_without_a_server_error(make_annotators, make_batch, make_user):
    a1, = make_annotators(1)
    batch = make_batch(n_posts=1, k=1, annotators=[a1])
    users = {"res": make_user("res", role="researcher", is_staff=True), "adj": make_user("adj", role="adjudicator")}
    post = batch.posts.get()
    FinalLabel.objects.create(post=post, explicit=1, implicit=1, emotional=1, provenance=Provenance.ADJUDICATED)
    calibration_services.prior_snapshot_rebuild()  # the priors page reads ?snapshot= only once one exists
    failures = []
    for role, url, param in PARAMS:
        client = Client(raise_request_exception=False)
        client.force_login(users[role])
        path = url.format(a1=a1.pk, post=post.pk)
        for value in ODD:
            status = client.get(path, {param: value}).status_code
            if status not in (200, 302, 400, 404):
                failures.append((path, param, value, status))
    assert failures == [], "\n".join(map(str, failures))
