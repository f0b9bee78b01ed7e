"""Issue 22 review: an audited change made through the API with a token names who made it. The actor
middleware read request.user before DRF authenticated the token (AnonymousUser then), so such entries
had no actor; it now resolves the user when the entry is written."""
from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_a_settings_change_through_the_api_with_a_token_records_who(make_user, make_batch):
    researcher = make_user("res", role="researcher")
    batch = make_batch(n_posts=2)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=researcher).key}")
    LogEntry.objects.all().delete()
    answer = api.patch(f"/api/quality/batches/{batch.pk}/", {"gold_rate": 0.1}, format="json")
    assert answer.status_code == 200, answer.content
    entries = list(LogEntry.objects.all())
    assert entries and all(e.actor_id == researcher.pk for e in entries)

