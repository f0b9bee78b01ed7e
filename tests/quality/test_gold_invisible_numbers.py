"""Issue 20: gold is invisible in arithmetic as in payloads. Two worlds side by side: Alice works a
batch of 30 posts with gold mixed in at 40% (a quota of 20 gold items among her 50), Bob a batch of
50 real posts and no gold. Both do the same things at the same steps (submit in one request or two,
skip, revise), and every number either is sent - every next/submit/skip payload with its progress,
the judgments created, listed and revised, the queue page, the batch list, the qualification API
and, once the batch locks, the feedback page - is the same, item ids and judgment ids counted from
their first one. Only post texts (content, not numbers) differ."""
from __future__ import annotations

import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.assignment.services import batch_lock
from annotation.models import Assignment
from annotation.quality import services

from .test_gold import GOLD_LABEL, upload_gold

pytestmark = pytest.mark.django_db
STEPS = 50
TEXT_KEYS = {"text", "post_text", "updated_at"}  # content and clock, not numbers the queue computes


class Numbers:
    """A world's payloads with its own ids made relative: item and judgment ids counted from the
    first one it saw, the batch id and name replaced."""

    def __init__(self, batch, user):
        self.batch, self.user, self.first = batch, user, {}

    def relative(self, kind: str, value):
        if value is None:
            return None
        return value - self.first.setdefault(kind, value)

    def of(self, payload, key: str = ""):
        if isinstance(payload, dict):
            return {k: self.of(v, k) for k, v in payload.items() if k not in TEXT_KEYS}
        if isinstance(payload, list):
            return [self.of(v, key) for v in payload]
        if key == "item":
            return self.relative("item", payload)
        if key == "id":
            return self.relative("judgment", payload)
        if key == "batch":
            return "B" if payload == self.batch.pk else payload
        return payload

    def page(self, html: str) -> str:
        """A page's source with the batch's id and name, the user's name, the CSRF token and the post
        texts (cells and attributes in lang="zh") blanked."""
        html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
        html = re.sub(r'<td lang="zh">.*?</td>', "<td>T</td>", html, flags=re.S)
        html = html.replace(self.batch.name, "BATCH").replace(self.user.username, "USER")
        in_attribute = re.compile(rf"(^|/){self.batch.pk}(?=/|$)")  # in links and data-batch, not in scores
        return re.sub(r'(href|action|value|data-batch)="([^"]*)"',
                      lambda m: m.group(1) + '="' + in_attribute.sub(r"\1B", m.group(2)) + '"', html)


def world(user, batch, api_for) -> tuple[dict, list[bool]]:
    """Everything the user is sent while working through the batch by one fixed script; and which of
    their items were gold."""
    api, page = api_for(user), Client()
    page.force_login(user)
    n = Numbers(batch, user)
    seen: dict[str, object] = {
        "batches": [{**b, "id": "B" if b["id"] == batch.pk else b["id"], "name": "BATCH" if b["id"] == batch.pk
                     else b["name"]} for b in api.get(reverse("api:api-batches")).json()],
        "queue_page_before": n.page(page.get(reverse("annotation:queue")).content.decode())}
    gold: list[bool] = []
    item = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    seen["step 0"] = n.of(item)
    step = 0
    while item["item"] is not None:
        step += 1
        assert step <= STEPS
        gold.append(Assignment.objects.get(pk=item["item"]).gold_batch_id is not None)
        body = {"item": item["item"], **GOLD_LABEL, "seconds_spent": 10 + step % 7, "note": "", "flagged": step % 9 == 0}
        if step % 4 == 2:  # skip
            item = api.post(reverse("api:api-queue-skip", args=[batch.pk]), {"item": item["item"]},
                            format="json").json()
            seen[f"step {step} skip"] = n.of(item)
            continue
        if step % 3 == 0:  # two requests: submit, then ask for the next item
            judgment = api.post(reverse("api:api-judgments"), body, format="json").json()
            item = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
            seen[f"step {step} submit"], seen[f"step {step} next"] = n.of(judgment), n.of(item)
        else:  # the one-request step the annotator page uses
            answer = api.post(reverse("api:api-queue-submit", args=[batch.pk]), body, format="json").json()
            judgment, item = answer["judgment"], answer["next"]
            seen[f"step {step} submit+next"] = n.of(answer)
        if step % 5 == 0:  # revise it: the revision count, the scores
            revised = api.patch(reverse("api:api-judgment", args=[judgment["id"]]), {"implicit": 3}, format="json")
            seen[f"step {step} revise"] = n.of(revised.json())
            api.patch(reverse("api:api-judgment", args=[judgment["id"]]), {"implicit": GOLD_LABEL["implicit"]},
                      format="json")
    seen["end again"] = n.of(api.post(reverse("api:api-queue-next", args=[batch.pk])).json())
    listed = api.get(reverse("api:api-judgments")).json()
    seen["judgments"] = n.of(listed)
    seen["details"] = [n.of(api.get(reverse("api:api-judgment", args=[j["id"]])).json()) for j in listed]
    seen["qualification"] = n.of(api.get(reverse("api:api-qualification", args=[batch.pk])).json())
    seen["queue_page_after"] = n.page(page.get(reverse("annotation:queue")).content.decode())
    batch_lock(batch_id=batch.pk)
    seen["locked"] = n.of(api.post(reverse("api:api-queue-next", args=[batch.pk])).json())
    seen["judgments_locked"] = n.of(api.get(reverse("api:api-judgments")).json())
    feedback = page.get(reverse("review:feedback", args=[batch.pk]))
    seen["feedback_status"] = feedback.status_code
    seen["feedback_page"] = n.page(feedback.content.decode())
    seen["feedback_numbers"] = re.findall(r"\d+", seen["feedback_page"].split("<tbody>", 1)[-1])
    return seen, gold


def test_every_number_an_annotator_is_sent_is_the_same_with_gold_and_without(make_annotators, make_batch, api_for,
                                                                           monkeypatch):
    # The keyed draw, seeded by the claim count alone: the same placement of the gold on every run
    # (ids differ between runs on PostgreSQL), so the script below surely skips both kinds.
    monkeypatch.setattr(services, "_keyed_draw", lambda message: random.Random(message.rsplit(":", 1)[1]).random())
    alice, bob = make_annotators(2)
    with_gold = make_batch(n_posts=30, k=1, name="gold-world", annotators=[alice])
    upload_gold(25)
    services.batch_quality_set(batch_id=with_gold.pk, gold_rate=0.4)  # quota 30 x 0.4 / 0.6 = 20
    without = make_batch(n_posts=STEPS, k=1, name="plain-world", annotators=[bob])

    seen_gold, kinds = world(alice, with_gold, api_for)
    seen_real, real_kinds = world(bob, without, api_for)

    # The worlds are what they claim: 20 gold items among Alice's 50, skipped and submitted, none for Bob.
    assert len(kinds) == len(real_kinds) == STEPS and sum(kinds) == 20 and not any(real_kinds)
    skipped = [kinds[i] for i in range(STEPS) if (i + 1) % 4 == 2]
    assert True in skipped and False in skipped
    assert seen_gold["step 0"]["progress"] == {"done": 0, "skipped": 0, "total": STEPS}
    assert seen_gold["feedback_status"] == 200 and len(seen_gold["feedback_numbers"]) > 3 * 30
    assert seen_gold.keys() == seen_real.keys()
    for key in seen_gold:
        assert seen_gold[key] == seen_real[key], key
