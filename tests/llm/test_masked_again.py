"""An LLM baseline masks every text it sends with the personal-data rules in force now (issue 29,
review): a release published under older rules (before a form of phone number was caught, or before
names were masked) holds values the current rules catch, and those never reach the endpoint - neither
in a test post nor in a few-shot example. The cache keys are made of the text actually sent, so a
release masked with the current rules keeps its keys."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from annotation.importing.services import import_posts
from annotation.models import Post
from llm.cache import cache_key
from llm.models import Backend, LLMAnswer, LLMRun
from llm.prompts import PAPER_PROMPT, shots_fingerprint
from llm.runner import work_items
from modeling.splits import run_split
from tests.llm.conftest import csv_with_personal_data
from tests.llm.openai_server import OpenAIServer

SPACED_PHONE = "1 3 8-0013-8000"
NAME = "王建国"


@pytest.fixture
def old_release(db, settings, tmp_path):
    """A release published while the posts' text still held a spaced phone number and a colleague's
    name, as an import under the rules before version 6 and without a name recogniser left them."""
    from annotation.releases.services import release_publish

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    settings.LLM_ENDPOINT_ALLOWLIST = []
    import_posts(csv_with_personal_data(), with_labels=True)
    for post in Post.objects.all():
        post.text = f"我同事{NAME}说{post.text}，电话{SPACED_PHONE}"
        post.save(update_fields=["text"])
    release = release_publish(bootstrap=0)
    rows = run_split(release, 0)
    assert all(SPACED_PHONE in r["text"] and NAME in r["text"] for r in rows["test"] + rows["train"])
    return release


def _run(release, server, tmp_path, *extra):
    call_command("llm_baseline", "--release", str(release.number), "--endpoint", server.url, "--model", "fake-llm",
                 "--json", str(tmp_path / "out.json"), *extra)


def test_values_the_current_rules_mask_never_reach_the_endpoint(old_release, tmp_path, settings):
    settings.PERSONAL_DATA_NER = "lac"
    with OpenAIServer() as server:
        _run(old_release, server, tmp_path, "--runs", "2", "--shots", "5")
        sent = [m["content"] for r in server.requests for m in r["body"]["messages"] if m["role"] == "user"]
        assert len(server.requests) == 60 and all(len(r["body"]["messages"]) == 11 for r in server.requests)
        assert not any(SPACED_PHONE in c or "13800138000" in c or NAME in c for c in sent)
        assert all("我同事[人名]说" in c and "电话[手机号]" in c for c in sent)  # shots and test posts alike
        # The answers are cached under the text sent: a second run asks nothing.
        _run(old_release, server, tmp_path, "--runs", "2", "--shots", "5")
        assert len(server.requests) == 60
    first, second = LLMRun.objects.order_by("pk")
    assert {a.cache_key for a in LLMAnswer.objects.filter(run=second)} == {a.cache_key for a in first.answers.all()}


def test_without_a_name_recogniser_the_rules_still_apply(old_release, tmp_path, settings):
    settings.PERSONAL_DATA_NER = "none"
    with OpenAIServer() as server:
        _run(old_release, server, tmp_path, "--runs", "1", "--shots", "1")
    sent = [m["content"] for r in server.requests for m in r["body"]["messages"]]
    assert sent and not any(SPACED_PHONE in c for c in sent)


def test_a_release_masked_with_the_current_rules_keeps_its_cache_keys(release):
    """Masking again changes nothing in text the current rules masked: the key of each item is the
    key of the release's own text, as before the texts were masked again."""
    run = LLMRun(backend=Backend.OPENAI, endpoint="http://127.0.0.1:9/v1", model_name="m", template_text=PAPER_PROMPT,
                 shots=3, runs=2, seed=0, temperature=0.0, max_tokens=64)
    data = run_split(release, 0)
    items = work_items(run, data)
    from llm.fewshot import shots_select

    for w in items:
        shots = shots_select(data["train"], 3, w.run_index)
        assert w.key == cache_key(backend=run.backend, endpoint=run.endpoint, model="m", template_text=PAPER_PROMPT,
                                  post_text=w.row["text"], shots=shots_fingerprint(shots), seed=0, temperature=0.0,
                                  run_index=w.run_index, max_tokens=64)
    assert any("[手机号]" in w.row["text"] for w in items)


def test_a_recogniser_that_cannot_run_sends_nothing(old_release, tmp_path, monkeypatch):
    from publication.personal_data import services as personal_data_services
    from publication.personal_data.ner import RecogniserUnavailable

    def unavailable():
        raise RecogniserUnavailable("HanLP model 'x' is not available offline")

    monkeypatch.setattr(personal_data_services, "personal_data_recogniser", unavailable)
    with OpenAIServer() as server:
        with pytest.raises(CommandError, match=r"PERSONAL_DATA_NER\) cannot run, so no post text is sent: HanLP"):
            _run(old_release, server, tmp_path, "--runs", "1")
        assert server.requests == []
