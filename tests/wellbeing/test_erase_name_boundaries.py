"""Erasure rewrites the username wherever free text names it, also right before `.`, `-`, `+` or `@`
(the end of a sentence, a dash, "ann1+ann2", an address typed half-way) and right beside Chinese
text, but not inside a longer name (`ann10`, `ann1x`, `ann1.smith`, `x@ann1.org`): judgment notes and
their revisions, adjudication rationales, takedown reasons, audit-log notes. Login-throttle rows
(django-axes) whose username differs from the account's only in case go too."""
from __future__ import annotations

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog

from annotation.adjudication.services import post_adjudicate
from annotation.assignment import services as assignment_services
from annotation.models import FinalLabel, Judgment, JudgmentRevision
from audit.services import audit_record
from wellbeing.data_rights import annotator_erase

pytestmark = pytest.mark.django_db

NAMED = "问过ann1. 也问了 ann1- 和 ann1+ann2，邮件写到 ann1@ 为止；同意ann1的看法；@ann1 看一下；ANN1 也是"
KEPT = ("ann10", "ann1x", "ann1.smith", "x@ann1.org")
NOTE = NAMED + "；别的人：" + " ".join(KEPT)


def _forms_left(text: str) -> list[str]:
    return [form for form in ("问过ann1.", "ann1- ", "ann1+", "ann1@ ", "ann1的", "@ann1 ", "ANN1") if form in text]


@pytest.fixture
def named(make_annotators, make_batch, make_user):
    ann1, ann2, ann3 = make_annotators(3)
    batch = make_batch(n_posts=1, k=3, annotators=[ann1, ann2, ann3])
    for who in (ann1, ann2, ann3):
        claim = assignment_services.assignment_next(annotator=who, batch_id=batch.pk)
        judgment = assignment_services.judgment_submit(annotator=who, claim_id=claim.pk, seconds_spent=10.0,
                                                       scores={"explicit": 1, "implicit": 1, "emotional": 1},
                                                       note=NOTE if who == ann2 else "")
    assignment_services.judgment_revise(annotator=ann2, judgment_id=Judgment.objects.get(annotator=ann2).pk,
                                        note=NOTE + "（改）")
    adjudicator = make_user("adj", "adjudicator")
    post_adjudicate(adjudicator=adjudicator, post_id=judgment.post_id, scores={"explicit": 1, "implicit": 1,
                    "emotional": 1}, rationale=NOTE, expected_version=0)
    audit_record(actor=adjudicator, instances=[ann2], event="role_change", note=NOTE)
    common = {"user_agent": "t", "ip_address": "127.0.0.1", "http_accept": "*/*", "path_info": "/accounts/login/"}
    for username in ("ann1", "ANN1", "Ann1", "ann10", "ann2"):
        AccessAttempt.objects.create(username=username, get_data="", post_data="", failures_since_start=1, **common)
        AccessLog.objects.create(username=username, **common)
        AccessFailureLog.objects.create(username=username, **common)
    return ann1


def test_the_name_before_punctuation_or_beside_chinese_is_rewritten_everywhere(named):
    from auditlog.models import LogEntry

    erasure = annotator_erase(username="ann1")

    texts = {
        "judgment note": Judgment.objects.exclude(note="").get().note,
        "revision": str([(r.old, r.new) for r in JudgmentRevision.objects.all()]),
        "rationale": FinalLabel.objects.get().rationale,
        "audit note": str(LogEntry.objects.filter(additional_data__event="role_change").get().additional_data),
    }
    for where, text in texts.items():
        assert _forms_left(text) == [], where
        assert all(kept in text for kept in KEPT), where
        assert f"{erasure.username}." in text and f"{erasure.username}+ann2" in text, where
    for model in (AccessAttempt, AccessLog, AccessFailureLog):
        assert sorted(model.objects.values_list("username", flat=True)) == ["ann10", "ann2"], model.__name__
