"""The LLM pages (issue 28): the admin launch page (allowlist, the plain notice that posts leave the
instance, the estimate), the run list and run page (progress, cancel, re-run, the counts), the raw
answers for audit, and the results page in the paper's Table 3 and few-shot layouts beside MAAM with
its significance marks. Values are read from parsed HTML elements and JSON fields."""
from __future__ import annotations

import uuid
from html.parser import HTMLParser

import numpy as np
import pytest
from django.urls import reverse
from scipy import stats

from llm.models import LLMAnswer, LLMRun, LLMRunScore, PromptTemplate

pytestmark = pytest.mark.django_db
DIMS = ("explicit", "implicit", "emotional")
VOID = {"br", "img", "input", "meta", "link", "hr", "col", "source", "wbr"}


# --- A small HTML reader (parsed elements, never substrings of a raw body) ----------------------------

class Element:
    def __init__(self, tag: str, attrs: dict, parent: Element | None):
        self.tag, self.attrs, self.parent, self.children, self.parts = tag, attrs, parent, [], []

    @property
    def text(self) -> str:
        return "".join(p if isinstance(p, str) else p.text for p in self.parts).strip()

    def iter(self):
        for child in self.children:
            yield child
            yield from child.iter()

    def find_all(self, tag: str | None = None, **attrs) -> list[Element]:
        def match(e: Element) -> bool:
            if tag and e.tag != tag:
                return False
            for key, value in attrs.items():
                key = key.replace("_", "-").rstrip("-")
                if key == "class":
                    if value not in (e.attrs.get("class") or "").split():
                        return False
                elif e.attrs.get(key) != value:
                    return False
            return True
        return [e for e in self.iter() if match(e)]

    def find(self, tag: str | None = None, **attrs) -> Element | None:
        found = self.find_all(tag, **attrs)
        return found[0] if found else None


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("root", {}, None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(element)
        self.current.parts.append(element)
        if tag not in VOID:
            self.current = element

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data):
        self.current.parts.append(data)


def parse(response) -> Element:
    builder = _Builder()
    builder.feed(response.content.decode())
    return builder.root


# --- Rows the pages read ------------------------------------------------------------------------------------

def make_llm_run(release, *, model: str = "qwen3-max", shots: int = 0, per_run: dict | None = None,
                 status: str = "succeeded", **fields) -> LLMRun:
    """A finished LLM run with its per-run scores: per_run = {dimension: [(accuracy, macro_f1) per run index]}."""
    from llm.prompts import PAPER_PROMPT, PAPER_TEMPLATE_NAME

    # The paper's prompt, seeded by migration (made again after a transactional test's flush).
    template, _ = PromptTemplate.objects.get_or_create(name=PAPER_TEMPLATE_NAME, version=1,
                                                       defaults={"text": PAPER_PROMPT})
    per_run = per_run or {d: [(0.40, 0.35), (0.42, 0.37), (0.38, 0.33), (0.41, 0.36), (0.39, 0.34)] for d in DIMS}
    runs = len(next(iter(per_run.values())))
    run = LLMRun.objects.create(release=release, template=template, template_text=template.text,
                                endpoint="http://127.0.0.1:9/v1", model_name=model, shots=shots, runs=runs,
                                status=status, n_test=30, **fields)
    LLMRunScore.objects.bulk_create([
        LLMRunScore(run=run, run_index=i, dimension=d, accuracy=acc, macro_f1=f1, n=30)
        for d, values in per_run.items() for i, (acc, f1) in enumerate(values)])
    return run


def make_maam_runs(release, per_seed: dict, *, group: str | None = None, backbone: str = "hybrid") -> list:
    """MAAM (full) runs, one per seed: per_seed = {dimension: [(accuracy, macro_f1) per seed]}."""
    from modeling.models import TrainingRun

    group = group or str(uuid.uuid4())
    seeds = len(next(iter(per_seed.values())))
    return [TrainingRun.objects.create(
        launch_group=group, release=release, variant="full", dimensions=list(per_seed), seed=s, backbone=backbone,
        status="succeeded",
        metrics={"test": {d: {"after": {"accuracy": v[s][0], "macro_f1": v[s][1]}} for d, v in per_seed.items()},
                 "split": {"scheme": "paper", "release": release.number}})
        for s in range(seeds)]


@pytest.fixture
def researcher(make_user):
    return make_user("res", role="researcher", is_staff=True, is_superuser=True)


@pytest.fixture
def research_client(client, researcher):
    client.force_login(researcher)
    return client


def cell_values(row: Element) -> list[tuple[float, float, str]]:
    """(mean, std, mark) of every figure cell of a results row (text "0.48*±0.05")."""
    out = []
    for cell in row.find_all("td", class_="cell"):
        text = cell.text
        if text == "–":
            out.append(None)
            continue
        mark = cell.attrs.get("data-mark", "")
        mean, std = text.replace(mark, "", 1).split("±") if mark and mark in text.split("±")[0] else text.split("±")
        out.append((float(mean.replace("*", "")), float(std.replace("*", "")), mark))
    return out


# --- The results page -----------------------------------------------------------------------------------------

STRONG_MAAM = {d: [(0.48, 0.46), (0.49, 0.47), (0.47, 0.45), (0.48, 0.46), (0.49, 0.47)] for d in DIMS}


def test_table3_layout_lists_each_zero_shot_llm_then_maam_with_its_marks(release, research_client):
    llm = make_llm_run(release, model="qwen3-max")
    make_maam_runs(release, STRONG_MAAM)
    page = parse(research_client.get(reverse("llm:results") + f"?release={release.number}"))
    table = page.find("table", id="table3")
    headers = [th.text for th in table.find("thead").find_all("th")]
    assert headers == ["Model", "Exp. Acc", "Exp. F1", "Imp. Acc", "Imp. F1", "Emo. Acc", "Emo. F1"]
    llm_row, maam_row = table.find("tr", class_="llm"), table.find("tr", id="maam-row")
    assert llm_row.find("a").text == "qwen3-max" and llm_row.attrs["data-run"] == str(llm.pk)
    values = cell_values(llm_row)
    accs = [0.40, 0.42, 0.38, 0.41, 0.39]
    assert values[0][0] == pytest.approx(round(np.mean(accs), 2))
    assert values[0][1] == pytest.approx(round(np.std(accs, ddof=1), 2))
    # MAAM clearly above the LLM on every run: p < 0.01 on all six figures, marked ** as the paper marks.
    maam = cell_values(maam_row)
    assert [m for _mean, _std, m in maam] == ["**"] * 6
    assert maam[0][0] == pytest.approx(0.48)
    # The tests table gives the p-value behind each mark: the paired t-test over runs, recomputed here.
    cells = page.find("table", id="tests").find_all("td", class_="test")
    expected = stats.ttest_rel([v[0] for v in STRONG_MAAM["explicit"]], accs).pvalue
    assert float(cells[0].attrs["data-p"]) == pytest.approx(expected, rel=1e-4)
    assert cells[0].attrs["data-mark"] == "**" and cells[0].attrs["data-pairs"] == "5"


def test_no_mark_where_maam_is_not_significantly_better(release, research_client):
    make_llm_run(release, model="chatgpt-4o",
                 per_run={d: [(0.50, 0.48), (0.52, 0.50), (0.49, 0.47), (0.51, 0.49), (0.50, 0.48)] for d in DIMS})
    make_llm_run(release, model="llama-3.3")  # weaker: MAAM beats this one, not the first
    make_maam_runs(release, STRONG_MAAM)
    page = parse(research_client.get(reverse("llm:results") + f"?release={release.number}"))
    maam = cell_values(page.find("tr", id="maam-row"))
    assert [m for _mean, _std, m in maam] == [""] * 6  # not significant over every LLM: no mark
    rows = {r.attrs["data-run"]: r for r in page.find("table", id="tests").find_all("tr") if "data-run" in r.attrs}
    marks = {run_id: [c.attrs["data-mark"] for c in row.find_all("td", class_="test")] for run_id, row in rows.items()}
    stronger = LLMRun.objects.get(model_name="chatgpt-4o").pk
    weaker = LLMRun.objects.get(model_name="llama-3.3").pk
    assert marks[str(stronger)] == [""] * 6 and marks[str(weaker)] == ["**"] * 6
    # The best of each column is bold: the strong LLM's accuracy (0.504) beats MAAM's 0.482.
    best = page.find("tr", class_="llm", data_run=str(stronger)).find_all("td", class_="best")
    assert len(best) == 6


def test_few_shot_layout_one_block_per_dimension_k_columns_and_maam_reference(release, research_client):
    for k, base in ((1, 0.40), (5, 0.44), (10, 0.46)):
        make_llm_run(release, model="deepseek-v3.2", shots=k,
                     per_run={d: [(base + 0.01 * i, base - 0.02 + 0.01 * i) for i in range(5)] for d in DIMS})
    make_maam_runs(release, STRONG_MAAM)
    page = parse(research_client.get(reverse("llm:results") + f"?release={release.number}"))
    table = page.find("table", id="fewshot")
    assert [th.text for th in table.find("thead").find_all("th")] == [
        "Task", "System", "1-acc", "1-f1", "5-acc", "5-f1", "10-acc", "10-f1"]
    blocks = table.find_all("tr", class_="block")
    assert [b.attrs["data-dimension"] for b in blocks] == list(DIMS)
    assert "MAAM Acc: 0.48±0.01" in blocks[0].text
    row = table.find("tr", class_="llm", data_dimension="explicit")
    values = cell_values(row)
    assert [v[0] for v in values[::2]] == pytest.approx([0.42, 0.46, 0.48])  # accuracy at K = 1, 5, 10
    assert values[0][2] == "**" and values[4][2] == ""  # MAAM beats 1-shot, not 10-shot (0.48 vs 0.482)
    assert page.find("table", id="table3").find("tr", class_="llm") is None  # no zero-shot run


def test_results_in_chinese(release, client, researcher):
    make_llm_run(release)
    make_maam_runs(release, STRONG_MAAM)
    client.force_login(researcher)
    page = parse(client.get(reverse("llm:results"), HTTP_ACCEPT_LANGUAGE="zh-CN"))
    assert page.find("h1").text == "LLM 基线与 MAAM 对比"
    headers = [th.text for th in page.find("table", id="table3").find("thead").find_all("th")]
    assert headers[:3] == ["模型", "显性 Acc", "显性 F1"]


def test_results_without_maam_say_how_to_get_it_and_without_runs_say_how_to_launch(release, research_client):
    assert parse(research_client.get(reverse("llm:results"))).find("p", id="no-runs") is not None
    make_llm_run(release)
    page = parse(research_client.get(reverse("llm:results")))
    assert page.find("p", id="no-maam") is not None and page.find("tr", id="maam-row") is None


# --- The admin launch page -----------------------------------------------------------------------------------

def launch_form(release, **overrides) -> dict:
    return {"release": release.pk, "backend": "openai", "endpoint": "http://127.0.0.1:9/v1", "model_name": "fake-llm",
            "template": "", "shots": 0, "runs": 2, "seed": 0, "temperature": 0.0, "api_key_env": "",
            "action": "estimate", **overrides}


def test_launch_page_says_posts_leave_the_instance_and_shows_the_estimate(release, research_client, settings):
    page = parse(research_client.get(reverse("admin:llm_launch")))
    assert "leave this instance" in page.find("div", id="privacy").text
    assert page.find("p", id="allowlist").find("code") is None  # none allowed: loopback only
    local = parse(research_client.post(reverse("admin:llm_launch"), launch_form(release)))
    estimate = local.find("div", id="estimate")
    n_test = int(estimate.find("td", id="est-n-test").text)
    assert n_test == release.summary.get("n_test", n_test) and n_test > 0
    assert int(estimate.find("td", id="est-requests").text) == 2 * n_test
    assert estimate.attrs["data-leaves"] == "0" and estimate.find("p", id="stays-local") is not None
    assert LLMRun.objects.count() == 0  # an estimate launches nothing

    settings.LLM_ENDPOINT_ALLOWLIST = ["https://api.deepseek.com"]
    remote = parse(research_client.post(reverse("admin:llm_launch"), launch_form(
        release, endpoint="https://api.deepseek.com/v1", model_name="deepseek-chat")))
    warning = remote.find("p", id="leaves-machine")
    assert warning is not None and "api.deepseek.com" in warning.text and "leave this instance" in warning.text


def test_launch_refuses_an_endpoint_off_the_allowlist_with_a_clear_error(release, research_client):
    for action in ("estimate", "launch"):
        page = parse(research_client.post(reverse("admin:llm_launch"), launch_form(
            release, endpoint="https://api.openai.com/v1", model_name="gpt-4o", action=action)))
        errors = page.find("ul", id="launch-errors")
        assert errors is not None and "LLM_ENDPOINT_ALLOWLIST" in errors.text
    assert LLMRun.objects.count() == 0


def test_launch_refuses_a_key_in_the_key_variable_field(release, research_client):
    page = parse(research_client.post(reverse("admin:llm_launch"), launch_form(
        release, api_key_env="sk-proj-abc123def456")))
    assert any("never the key itself" in e.text for e in page.find_all("ul", class_="errorlist"))
    assert LLMRun.objects.count() == 0


def test_launch_against_a_loopback_server_runs_and_the_pages_follow_it(release, research_client,
                                                                      django_capture_on_commit_callbacks):
    from tests.llm.openai_server import OpenAIServer

    from modeling.splits import run_split

    target = run_split(release)["test"][0]["text"]  # one test post: the model never answers it sensibly

    def plan(body, n):
        return ("nonsense", "I cannot rate this.") if target in body["messages"][-1]["content"] else None

    with OpenAIServer(plan=plan) as server, django_capture_on_commit_callbacks(execute=True):
        response = research_client.post(reverse("admin:llm_launch"), launch_form(
            release, endpoint=server.url, action="launch"))
    run = LLMRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("llm:run", args=[run.pk])
    assert run.status == "succeeded" and run.endpoint == server.url and run.runs == 2
    status = research_client.get(reverse("llm:run-status", args=[run.pk])).json()
    assert status["status"] == "succeeded" and status["percent"] == 100 and status["unparsed"] == run.unparsed
    page = parse(research_client.get(reverse("llm:run", args=[run.pk])))
    assert page.find("td", id="model").text == "fake-llm"
    assert int(page.find("td", id="unparsed").text.split()[0]) == run.unparsed > 0
    summary = {r.attrs["data-dimension"]: r for r in page.find("table", id="summary").find_all("tr")
               if "data-dimension" in r.attrs}
    assert set(summary) == set(DIMS)
    assert page.find("button", id="cancel") is None and page.find("button", id="rerun") is not None

    # The raw answers, for audit: every answer, the unparsed ones apart, nothing parsed guessed.
    answers = parse(research_client.get(reverse("llm:answers", args=[run.pk]) + "?unparsed=1"))
    rows = answers.find("table", id="answers").find_all("tr", data_parsed="0")
    assert len(rows) == run.unparsed == LLMAnswer.objects.filter(run=run, parsed=False).count()
    assert {r.find("pre", class_="raw").text for r in rows} == {"I cannot rate this."}
    assert int(answers.find("strong", id="unparsed-count").text) == run.unparsed

    # Cancel a finished run: refused with the reason; re-run: a new run from the cache, nothing sent again.
    research_client.post(reverse("llm:run-action", args=[run.pk, "cancel"]))
    assert LLMRun.objects.get(pk=run.pk).status == "succeeded"
    sent = len(server.requests)
    with django_capture_on_commit_callbacks(execute=True):
        research_client.post(reverse("llm:run-action", args=[run.pk, "rerun"]))
    again = LLMRun.objects.exclude(pk=run.pk).get()
    assert again.rerun_of_id == run.pk and again.status == "succeeded" and len(server.requests) == sent
    assert again.cache_hits == again.runs * again.n_test


def test_run_list_shows_progress_and_cancel_works_on_a_queued_run(release, research_client):
    queued = make_llm_run(release, status="queued", progress_total=10)
    page = parse(research_client.get(reverse("llm:runs")))
    row = page.find("tr", data_run=str(queued.pk))
    assert row.attrs["data-status"] == "queued" and row.find("div", class_="progress") is not None
    assert row.attrs["data-status-url"] == reverse("llm:run-status", args=[queued.pk])
    detail = parse(research_client.get(reverse("llm:run", args=[queued.pk])))
    assert detail.find("button", id="cancel") is not None
    research_client.post(reverse("llm:run-action", args=[queued.pk, "cancel"]))
    assert LLMRun.objects.get(pk=queued.pk).status == "cancelled"


def test_llm_pages_are_for_researchers_only(release, client, make_user, make_annotators):
    run = make_llm_run(release)
    (annotator,) = make_annotators(1)
    for user in (annotator, make_user("adj", role="adjudicator")):
        client.force_login(user)
        for url in (reverse("llm:runs"), reverse("llm:results"), reverse("llm:run", args=[run.pk]),
                    reverse("llm:run-status", args=[run.pk]), reverse("llm:answers", args=[run.pk]),
                    reverse("llm:rater", args=[run.pk])):
            assert client.get(url).status_code == 403, (user.username, url)
        assert client.post(reverse("llm:run-action", args=[run.pk, "rater-on"])).status_code == 403
    assert LLMRun.objects.get(pk=run.pk).rater_enabled is False
