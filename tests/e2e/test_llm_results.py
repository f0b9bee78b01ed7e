"""The LLM results page (issue 28) in Chromium, in English and Chinese: Table 3 with a MAAM row from runs
on the same release, the paired tests with their marks, the few-shot table, and no console error."""
from __future__ import annotations

import pytest

from tests.llm.conftest import csv_with_personal_data
from tests.llm.test_pages import DIMS, STRONG_MAAM, make_llm_run, make_maam_runs

from .conftest import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture
def results_world(make_user, settings, tmp_path):
    from annotation.importing.services import import_posts
    from annotation.releases.services import release_publish

    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ARTIFACT_ROOT = str(tmp_path / "artifacts")
    import_posts(csv_with_personal_data(), with_labels=True)
    release = release_publish(bootstrap=0)
    weak = make_llm_run(release, model="llama-3.3")  # the default per-run scores: well under MAAM's
    for k in (1, 5, 10):
        make_llm_run(release, model="qwen3-max", shots=k,
                     per_run={d: [(0.40 + 0.01 * k + 0.01 * i, 0.38 + 0.01 * i) for i in range(5)] for d in DIMS})
    make_maam_runs(release, STRONG_MAAM)
    make_user("res", role="researcher", is_staff=True, is_superuser=True)
    return {"release": release, "weak": weak}


@pytest.mark.parametrize("language", ["en", "zh"])
def test_results_page_shows_table3_marks_and_few_shot_table(results_world, live_server, request, language):
    page = request.getfixturevalue("browser_page" if language == "en" else "browser_page_zh")
    login(page, live_server, "res")
    page.goto(f"{live_server.url}/llm/results/?release={results_world['release'].number}")
    page.wait_for_selector("#table3")
    assert page.inner_text("h1") == ("LLM baselines beside MAAM" if language == "en" else "LLM 基线与 MAAM 对比")
    # Table 3: the LLM row, then MAAM's with ** on every figure (significant over the only zero-shot LLM).
    assert page.locator("#table3 tr.llm").count() == 1
    marks = page.locator("#maam-row td.cell").evaluate_all("cells => cells.map(c => c.dataset.mark)")
    assert marks == ["**"] * 6
    assert page.inner_text("#maam-row td.cell >> nth=0").startswith("0.48**±")
    weak_tests = page.locator(f"#tests tr[data-run='{results_world['weak'].pk}'] td.test")
    assert weak_tests.evaluate_all("cells => cells.map(c => c.dataset.mark)") == ["**"] * 6
    # The few-shot table: three blocks, one row each, columns for K = 1, 5, 10.
    assert page.locator("#fewshot tr.block").count() == 3
    assert page.locator("#fewshot thead th").all_inner_texts()[2:] == ["1-acc", "1-f1", "5-acc", "5-f1", "10-acc",
                                                                      "10-f1"]
    assert page.locator("#fewshot tr.llm").count() == 3
    assert page.console_errors == []
