"""manage.py llm_baseline against a real OpenAI-compatible server on loopback (issue 28, "Must show"):
429s with Retry-After, 500/503s, answers slower than the timeout and nonsense; every test post
answered, the paper's prompt sent, unparsable answers counted, no raw_text ever sent, the key kept
out of the database, cache and logs; few-shot prompts carry training posts only; the cache."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Post
from llm import metrics
from llm.models import LLMAnswer, LLMResponseCache, LLMRun, LLMRunScore, PromptTemplate
from llm.parsing import parse_answer
from llm.prompts import PAPER_PROMPT, prompt_render
from modeling.splits import run_split
from tests.llm.conftest import PHONE
from tests.llm.openai_server import OpenAIServer, default_answer

KEY = "sk-test-SECRET-7f3a9c0d1e2b4a5968"
NONSENSE = "抱歉，我无法对这段文本进行评分。"


def fault_class(fingerprint: str) -> int:
    return int(fingerprint, 16) % 8


def faulty(body: dict, n: int):
    """Deterministic misbehaviour per request content: some answer 429 / 500 / 503 / slowly first,
    some always answer nonsense."""
    from tests.llm.openai_server import request_fingerprint

    kind = fault_class(request_fingerprint(body))
    if kind == 0 and n == 0:
        return ("429", 1)
    if kind == 1 and n == 0:
        return ("500",)
    if kind == 2 and n == 0:
        return ("slow", 2.5)  # the client's timeout is 1 s: it gives up and asks again
    if kind == 3 and n < 2:
        return ("503", 0)
    if kind == 4:
        return ("nonsense", NONSENSE)
    return None


def run_command(release, server, tmp_path: Path, *extra: str, name: str = "out.json") -> dict:
    out = tmp_path / name
    call_command("llm_baseline", "--release", str(release.number), "--endpoint", server.url, "--model", "fake-llm",
                 "--json", str(out), *extra)
    return json.loads(out.read_text())


def table_dump() -> str:
    from auditlog.models import LogEntry

    rows = []
    for model in (LLMRun, LLMAnswer, LLMRunScore, LLMResponseCache, PromptTemplate, LogEntry):
        rows += [json.dumps(r, default=str, ensure_ascii=False) for r in model.objects.values()]
    return "\n".join(rows)


def test_the_papers_prompt_is_version_1_of_the_default_template(db):
    template = PromptTemplate.objects.get(name="paper-zero-shot", version=1)
    assert template.text == PAPER_PROMPT
    rendered = prompt_render(template.text, "一条帖子{不是占位符}")
    assert rendered.startswith("请对以下文本进行分析，并评分： 一条帖子{不是占位符}\n评分标准：1. 显性歧视 (1-5)")
    assert rendered.endswith("格式如下：{”显性歧视“: 显性歧视分数, ”隐性歧视“: 隐性歧视分数, ”情感强烈程度“: 情感强烈程度分数}")
    paper = Path(__file__).resolve().parents[3] / "shared" / "paper" / "MAAM.tex"
    if paper.exists():  # the paper's table, unescaped, is the template character for character
        source = paper.read_text(encoding="utf-8")
        start = source.index('prompt = "') + len('prompt = "')
        table = source[start:source.index('"\n\\end{CJK*}', start)].replace("\\{", "{").replace("\\}", "}")
        assert table == PAPER_PROMPT


def test_a_used_template_version_is_frozen(release, tmp_path):
    template = PromptTemplate.objects.get(name="paper-zero-shot", version=1)
    with OpenAIServer() as server:
        run_command(release, server, tmp_path, "--runs", "1")
    template.text = template.text + "再想想。"
    with pytest.raises(ValueError, match="frozen"):
        template.save()
    assert PromptTemplate.objects.get(pk=template.pk).text == PAPER_PROMPT


def test_the_baseline_over_http_with_faults(release, tmp_path, monkeypatch, caplog, capsys):
    monkeypatch.setenv("LLM_TEST_KEY", KEY)
    caplog.set_level("DEBUG")
    data = run_split(release, 0)
    test_rows = {r["id"]: r for r in data["test"]}
    prompts = {prompt_render(PAPER_PROMPT, r["text"]): r for r in data["test"]}
    assert any("[手机号]" in r["text"] for r in data["test"])  # masked posts are among those sent
    with OpenAIServer(plan=faulty) as server:
        result = run_command(release, server, tmp_path, "--runs", "2", "--api-key-env", "LLM_TEST_KEY",
                             "--timeout", "1", "--seed", "3")
    requests = server.requests
    printed = capsys.readouterr().out

    # The JSON the issue asks for.
    assert set(result["dimensions"]) == {"explicit", "implicit", "emotional"}
    for row in result["dimensions"].values():
        assert {"f1_mean", "f1_std", "acc_mean", "acc_std"} <= set(row)
    assert result["runs"] == 2 and result["requests"] == len(requests)
    # Every fault really happened, and each was retried until answered.
    actions = {r["action"] for r in requests}
    assert {"429", "500", "503", "slow", "nonsense", "ok"} <= actions
    assert result["retries"] == sum(r["action"] in ("429", "500", "503", "slow") for r in requests)

    # Every test post answered in every run, the paper's prompt filled with the masked text.
    run = LLMRun.objects.get(pk=result["run_id"])
    answers = list(LLMAnswer.objects.filter(run=run))
    assert sorted((a.run_index, a.post_key) for a in answers) == sorted((i, k) for i in range(2) for k in test_rows)
    for r in requests:
        messages = r["body"]["messages"]
        assert len(messages) == 1 and messages[0]["role"] == "user" and messages[0]["content"] in prompts
        assert r["body"]["model"] == "fake-llm" and r["body"]["seed"] in (3, 4) and r["body"]["temperature"] == 0
    assert {r["body"]["messages"][0]["content"] for r in requests} == set(prompts)

    # Unparsable answers are counted (and only those), and kept raw for audit.
    nonsense = [a for a in answers if a.answer == NONSENSE]
    assert nonsense and all(not a.parsed and a.explicit is None for a in nonsense)
    assert result["unparsed"] == run.unparsed == len(nonsense) == sum(not a.parsed for a in answers)

    # The scores are the metrics of what the server answered (unparsed scored as class 0).
    for index in range(2):
        mine = sorted((a for a in answers if a.run_index == index), key=lambda a: a.post_key)
        expected_answers = []
        for a in mine:
            text = default_answer({"messages": [{"content": prompt_render(PAPER_PROMPT, test_rows[a.post_key]["text"])}]})
            expected_answers.append(None if a.answer == NONSENSE else parse_answer(text).scores)
        expected = metrics.run_scores([test_rows[a.post_key] for a in mine], expected_answers)
        for d in metrics.DIMENSIONS:
            score = LLMRunScore.objects.get(run=run, run_index=index, dimension=d)
            assert score.accuracy == pytest.approx(expected[d]["accuracy"])
            assert score.macro_f1 == pytest.approx(expected[d]["macro_f1"])

    # A 429's Retry-After was waited for before the same request was sent again.
    for r in requests:
        if r["action"] == "429":
            again = next(x for x in requests if x["fingerprint"] == r["fingerprint"] and x["n"] == r["n"] + 1)
            assert again["at"] - r["at"] >= 0.9

    # Nothing personal left the machine: no raw_text value, no phone number, in any request.
    sent = json.dumps([r["body"] for r in requests], ensure_ascii=False)
    assert PHONE not in sent
    for raw, text in Post.objects.values_list("raw_text", "text"):
        if raw != text:
            assert raw not in sent

    # The key went in the Authorization header only, and is nowhere in the database, cache or logs.
    assert all(r["headers"].get("Authorization") == f"Bearer {KEY}" for r in requests)
    stored = table_dump()
    from auditlog.models import LogEntry

    launch = LogEntry.objects.get(object_pk=str(run.pk), content_type__model="llmrun")
    assert launch.changes["api_key_env"][1] == "LLM_TEST_KEY"  # the launch is in the audit log, the key by name
    assert "LLM_TEST_KEY" in stored and KEY not in stored and KEY[:8] not in stored
    assert KEY not in caplog.text and KEY not in printed and KEY not in json.dumps(result)


def test_five_shots_carry_five_training_posts_and_never_a_test_post(release, tmp_path):
    data = run_split(release, 0)
    train = {prompt_render(PAPER_PROMPT, r["text"]): r for r in data["train"]}
    test = {prompt_render(PAPER_PROMPT, r["text"]) for r in data["test"]}
    with OpenAIServer() as server:
        result = run_command(release, server, tmp_path, "--runs", "2", "--shots", "5")
    shots_per_seed: dict[int, set] = {}
    for r in server.requests:
        messages = r["body"]["messages"]
        assert len(messages) == 11 and [m["role"] for m in messages] == ["user", "assistant"] * 5 + ["user"]
        assert messages[-1]["content"] in test
        shots = tuple(m["content"] for m in messages[:-1:2])
        for m_user, m_answer in zip(messages[:-1:2], messages[1:-1:2]):
            assert m_user["content"] in train and m_user["content"] not in test
            gold = train[m_user["content"]]
            assert parse_answer(m_answer["content"]).scores == {d: gold[d] for d in metrics.DIMENSIONS}
        shots_per_seed.setdefault(r["body"]["seed"], set()).add(shots)
    # One seeded set of shots per run index, the same for every post of that run.
    assert sorted(shots_per_seed) == [0, 1] and all(len(s) == 1 for s in shots_per_seed.values())
    assert result["runs"] == 2 and result["unparsed"] == 0


def test_answers_on_their_way_when_the_endpoint_fails_are_kept(release, tmp_path):
    """A fatal answer (401) stops the run sending more, but the answers already on their way are still
    received and kept in the cache (they are paid for): the re-run never asks for them again."""
    lock, served = threading.Lock(), []

    def three_slow_then_401(body, n):
        with lock:
            served.append(1)
            return ("slow", 1.0) if len(served) <= 3 else ("401",)

    with OpenAIServer(plan=three_slow_then_401) as server:
        with pytest.raises(CommandError, match="HTTP 401"):
            run_command(release, server, tmp_path, "--runs", "1", "--concurrency", "4")
        on_their_way = {r["fingerprint"] for r in server.requests if r["action"] == "slow"}
        assert len(on_their_way) == 3 and LLMResponseCache.objects.count() == 3
        before = len(server.requests)
        server.plan = lambda body, n: None
        result = run_command(release, server, tmp_path, "--runs", "1")
        again = {r["fingerprint"] for r in server.requests[before:]}
    assert result["cache_hits"] == 3 and result["requests"] == len(again) == 30 - 3
    assert not on_their_way & again


def test_a_second_run_sends_no_request(release, tmp_path):
    with OpenAIServer() as server:
        first = run_command(release, server, tmp_path, "--runs", "2", name="a.json")
        sent = len(server.requests)
        second = run_command(release, server, tmp_path, "--runs", "2", name="b.json")
        assert len(server.requests) == sent  # the cache answered everything
    assert first["requests"] == sent > 0 and second["requests"] == 0
    assert second["cache_hits"] == second["answers"] == first["answers"]
    assert second["dimensions"] == first["dimensions"]
    # A different temperature is a different question: asked again.
    with OpenAIServer() as server:
        third = run_command(release, server, tmp_path, "--runs", "1", "--temperature", "0.7", name="c.json")
    assert third["requests"] == third["answers"] > 0


def test_a_run_that_fails_midway_resends_only_the_rest(release, tmp_path):
    """The endpoint starts refusing the key midway (401: fatal). The run fails with the reason; what it
    had already received stays in the cache, and the re-run sends only the posts not yet answered."""
    served = []

    def dies_after_25(body, n):
        served.append(1)
        return ("401",) if len(served) > 25 else None

    with OpenAIServer(plan=dies_after_25) as server:  # the same endpoint URL both times: part of the cache key
        with pytest.raises(CommandError, match="HTTP 401"):
            run_command(release, server, tmp_path, "--runs", "2", "--concurrency", "4")
        failed = LLMRun.objects.get()
        assert failed.status == "failed" and "401" in failed.error and not failed.answers.exists()
        cached = LLMResponseCache.objects.count()
        first_answered = {r["fingerprint"] for r in server.requests if r["action"] == "ok"}
        assert 0 < cached == len(first_answered) <= 25  # every answer the endpoint sent is kept
        before = len(server.requests)
        server.plan = lambda body, n: None  # the key works again
        result = run_command(release, server, tmp_path, "--runs", "2")
        second = server.requests[before:]
    assert result["requests"] == len(second) == 60 - cached
    assert result["cache_hits"] == cached
    assert not first_answered & {r["fingerprint"] for r in second}
    assert LLMAnswer.objects.filter(run_id=result["run_id"]).count() == 60


def test_a_cancelled_run_stops_asking(release, tmp_path, monkeypatch):
    from core.jobs import job_cancel, job_progress
    from llm import runner, services

    monkeypatch.setattr(runner, "PROGRESS_WRITE_SECONDS", 0.0)
    calls = []

    def progress_then_cancel(model, job_id, **kwargs):
        calls.append(1)
        if len(calls) == 5:  # a researcher presses cancel while the run asks
            job_cancel(model, job_id)
        return job_progress(model, job_id, **kwargs)

    monkeypatch.setattr(runner, "job_progress", progress_then_cancel)
    with OpenAIServer(delay=0.05) as server:
        run = services.llm_run_launch(created_by=None, release_id=release.pk, endpoint=server.url, model_name="m",
                                      runs=2, concurrency=2, enqueue=False)
        run = services.llm_run_execute(run_id=run.pk)
    assert run.status == "cancelled" and not run.answers.exists()
    assert len(server.requests) < 20  # it stopped well before the 60 answers


def test_endpoints_off_the_machine_need_the_allowlist_and_keys_only_by_name(release, tmp_path, settings):
    from llm import services

    with pytest.raises(CommandError, match="LLM_ENDPOINT_ALLOWLIST"):
        call_command("llm_baseline", "--release", "1", "--endpoint", "https://api.example.org/v1", "--model", "x")
    assert not LLMRun.objects.exists()
    with pytest.raises(CommandError, match="NAME of the environment variable"):
        call_command("llm_baseline", "--release", "1", "--endpoint", "http://127.0.0.1:9/v1", "--model", "x",
                     "--api-key-env", "sk-live-abcdef123456")
    with pytest.raises(CommandError, match="NOT_SET_ANYWHERE is not set"):
        call_command("llm_baseline", "--release", "1", "--endpoint", "http://127.0.0.1:9/v1", "--model", "x",
                     "--api-key-env", "NOT_SET_ANYWHERE")
    assert not LLMRun.objects.exists()
    settings.LLM_ENDPOINT_ALLOWLIST = ["api.example.org"]
    settings.LLM_PRICES = {"x": [1.0, 2.0]}
    estimate = services.llm_run_estimate(release_id=release.pk, endpoint="https://api.example.org/v1", model_name="x-large",
                                         runs=5)
    assert estimate["leaves_machine"] and estimate["host"] == "api.example.org"
    assert estimate["requests"] == estimate["to_send"] == 5 * estimate["n_test"]
    assert estimate["cost"] == pytest.approx(estimate["prompt_tokens"] / 1e6 + 2 * estimate["completion_tokens"] / 1e6)


def test_a_refused_key_fails_the_run_and_the_key_is_not_in_the_error(release, tmp_path, monkeypatch):
    monkeypatch.setenv("LLM_TEST_KEY", KEY)
    # Real endpoints echo (part of) a refused key in the error; this one echoes all of it.
    with OpenAIServer(plan=lambda body, n: ("401", f"Incorrect API key provided: {KEY}")) as server, \
            pytest.raises(CommandError) as info:
        call_command("llm_baseline", "--release", "1", "--endpoint", server.url, "--model", "m",
                     "--api-key-env", "LLM_TEST_KEY", "--runs", "1")
    # Fatal: never retried, and nothing asked after it beyond the requests already in flight.
    assert all(r["n"] == 0 for r in server.requests) and len(server.requests) <= 16 < 30
    run = LLMRun.objects.get()
    assert run.status == "failed" and "HTTP 401" in run.error and "Incorrect API key" in run.error
    assert KEY not in str(info.value) and KEY not in run.error and KEY[:8] not in run.error


def test_launch_runs_the_celery_task_on_the_default_queue_and_rerun_uses_the_cache(release, django_capture_on_commit_callbacks,
                                                                                  settings):
    from chlgbt_site.celery import app
    from llm import services
    from llm.tasks import run_llm_baseline

    assert app.amqp.router.route({}, run_llm_baseline.name)["queue"].name == "default"
    with OpenAIServer() as server:
        with django_capture_on_commit_callbacks(execute=True):
            run = services.llm_run_launch(created_by=None, release_id=release.pk, endpoint=server.url, model_name="m",
                                          runs=1)
        run.refresh_from_db()
        assert run.status == "succeeded" and run.requests_sent == len(server.requests) == run.n_test == 30
        assert run.heartbeat_at is not None and run.percent == 100 and run.estimate["to_send"] == 30
        with django_capture_on_commit_callbacks(execute=True):
            again = services.llm_run_rerun(run_id=run.pk, created_by=None)
        again.refresh_from_db()
    assert again.status == "succeeded" and again.rerun_of_id == run.pk and again.template_text == run.template_text
    assert again.requests_sent == 0 and again.cache_hits == 30 and len(server.requests) == 30
    assert again.summary == run.summary
    with pytest.raises(Exception, match="already succeeded"):
        services.llm_run_cancel(run_id=again.pk)


def test_posts_taken_down_after_publishing_never_leave_the_machine(release, tmp_path, capsys):
    """A takedown after the release was published: the post is still in the release's files, but
    its text is in no request - neither as a test post nor as a few-shot example - and every other
    test post is answered."""
    from annotation.releases.files import post_key
    from llm.fewshot import shots_select
    from publication.takedowns import takedown_record

    data = run_split(release, 0)
    test_row = sorted(data["test"], key=lambda r: r["id"])[0]
    train_row = shots_select(data["train"], 5, 0)[0]  # a post the 5 shots of seed 0 would carry
    posts = {post_key(p.external_id, p.text_sha256): p for p in Post.objects.all()}
    for row in (test_row, train_row):
        takedown_record(post=posts[row["id"]], reason="The author asked for it to be removed.")
    with OpenAIServer() as server:
        result = run_command(release, server, tmp_path, "--runs", "1", "--shots", "5")
    printed = capsys.readouterr().out

    sent = [m["content"] for r in server.requests for m in r["body"]["messages"]]
    assert server.requests and all(len(r["body"]["messages"]) == 11 for r in server.requests)
    assert not any(test_row["text"] in content or train_row["text"] in content for content in sent)
    # Every other test post answered, the taken-down one left out, and the run says how many were.
    others = {r["id"] for r in data["test"]} - {test_row["id"]}
    run = LLMRun.objects.get(pk=result["run_id"])
    assert {a.post_key for a in LLMAnswer.objects.filter(run=run)} == others
    assert result["n_test"] == run.n_test == len(others) and result["requests"] == len(others)
    assert run.estimate["taken_down"] == {"test": 1, "train": 1}
    assert "2 posts taken down" in printed and run.split["taken_down"] == {"test": 1, "train": 1}
