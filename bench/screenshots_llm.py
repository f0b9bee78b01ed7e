"""Screenshots of the LLM results page (issue 28) for README, in English and Chinese:

    python bench/screenshots_llm.py      (part of `make screenshots`; writes docs/screenshots/llm-results-{en,zh}.png)

A throw-away SQLite database with the `make run` demo, MAAM (full, char-ngram) trained on release 1
with five seeds, and LLM baselines run over HTTP against a local OpenAI-compatible server
(tests/llm/openai_server.py, on loopback: nothing leaves the machine) whose two made-up "models"
answer the paper's prompt with the gold label or a near miss, seeded per run: two zero-shot runs and
one model at 1, 5 and 10 shots, five runs each. The figures are those of this demo, not the paper's."""
from __future__ import annotations

import hashlib
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT

PORT = 8798
OUT = ROOT / "docs" / "screenshots"
# Made-up endpoints' models and how often each answers the gold label (else one point off).
MODELS = {"demo-llm-a": 0.25, "demo-llm-b": 0.08}


def prepare() -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="shots-llm-"))
    os.environ.update(DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}", MEDIA_ROOT=str(tmp / "media"),
                      ARTIFACT_ROOT=str(tmp / "artifacts"), EMBEDDED_BROKER_DIR=str(tmp / "broker"),
                      DJANGO_SETTINGS_MODULE="chlgbt_site.settings.local", LLM_ENDPOINT_ALLOWLIST="")
    import django

    django.setup()
    from django.core.management import call_command

    from annotation.models import DIMENSIONS, Release
    from chlgbt_site.celery import tasks_inline
    from llm import services as llm_services
    from modeling import services
    from modeling.splits import run_split
    from tests.llm.openai_server import OpenAIServer, paper_answer

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)
    release = Release.objects.get(number=1)
    gold = {row["text"]: tuple(int(row[d]) for d in DIMENSIONS) for row in run_split(release)["test"]}

    def answer(body: dict) -> str:
        last = body["messages"][-1]["content"]
        text = next((t for t in gold if t in last), None)
        truth = gold.get(text, (3, 3, 3))
        rng = random.Random(hashlib.sha256(f"{body.get('model')}|{body.get('seed')}|{last}".encode()).digest())
        p = MODELS.get(body.get("model"), 0.3) + 0.01 * (len(body["messages"]) - 1) / 2  # shots help a little
        return paper_answer(tuple(t if rng.random() < p else max(1, min(5, t + rng.choice((-1, 1)))) for t in truth))

    with tasks_inline():
        services.training_run_launch(created_by=None, release_id=release.pk, dimensions=list(DIMENSIONS),
                                     variants=["full"], seeds=[0, 1, 2, 3, 4], backbone="char-ngram",
                                     preset="paper")
        with OpenAIServer(answer=answer) as server:
            for model, shots in (("demo-llm-a", 0), ("demo-llm-b", 0), ("demo-llm-a", 1), ("demo-llm-a", 5),
                                 ("demo-llm-a", 10)):
                llm_services.llm_run_launch(created_by=None, release_id=release.pk, endpoint=server.url,
                                            model_name=model, shots=shots, runs=5, seed=0)
    return {"release": release.number, "tmp": tmp}


def main() -> None:
    info = prepare()
    OUT.mkdir(parents=True, exist_ok=True)
    log = open(info["tmp"] / "runserver.log", "wb")
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{PORT}", "--noreload"], cwd=ROOT,
                              env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # a busy machine: wait until the server answers
            try:
                socket.create_connection(("127.0.0.1", PORT), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit((info["tmp"] / "runserver.log").read_text()[-3000:])
                time.sleep(0.5)
        from playwright.sync_api import sync_playwright

        base = f"http://127.0.0.1:{PORT}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            for locale, name in (("en-US", "llm-results-en.png"), ("zh-CN", "llm-results-zh.png")):
                page = browser.new_page(viewport={"width": 1280, "height": 860}, locale=locale)
                page.goto(f"{base}/accounts/login/")
                page.fill("#id_username", "researcher")
                page.fill("#id_password", "chlgbt-demo")
                page.click("main button[type=submit]")
                page.wait_for_load_state("networkidle")
                page.goto(f"{base}/llm/results/?release={info['release']}")
                page.wait_for_selector("#table3")
                page.screenshot(path=str(OUT / name), full_page=True)
            browser.close()
    finally:
        server.terminate()
    print("wrote", [p.name for p in sorted(OUT.glob("llm-results-*.png"))])


if __name__ == "__main__":
    main()
