"""Issue 20, finding 6 (its listing half): after a batch locks, the judgments API and the feedback
pages list the same judgments, so the gold answers cannot be found by subtracting one from the other."""
from __future__ import annotations

import pytest
from django.urls import reverse


from .conftest import GOLD_TEXT, client_for

pytestmark = pytest.mark.django_db


def _feedback_texts(client, batch_id: int) -> list[str]:
    import re

    body = client.get(reverse("review:feedback", args=[batch_id])).content.decode()
    return re.findall(r'<td lang="zh">([^<]*)</td>', body)


def test_finding_6_after_locking_the_judgments_api_and_the_feedback_pages_list_the_same_set(world, api_for):
    from annotation.assignment.services import batch_lock

    alice = world["alice"]
    batch_lock(batch_id=world["batch"].pk)
    listed = sorted(j["post_text"] for j in api_for(alice).get(reverse("api:api-judgments")).json())
    client = client_for(alice)
    on_feedback = sorted(_feedback_texts(client, world["batch"].pk) + _feedback_texts(client, world["old"].pk))
    assert listed == on_feedback  # nothing to subtract: the gold answer is on both or on neither
    assert GOLD_TEXT in listed
    body = client.get(reverse("review:feedback", args=[world["batch"].pk])).content.decode()
    assert "–" not in body  # every row has a label beside it, gold or not
