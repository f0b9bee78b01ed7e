"""Screenshots of the main pages for README, taken from the running app in Debian's Chromium.

    make screenshots      (python bench/screenshots.py; writes docs/screenshots/*.png)

A throw-away SQLite database with the demo `make run` seeds (every post written by this project),
plus one ablation launch (4 variants x 3 seeds, run inline) for the comparison table. One page is
taken in Chinese (a zh-CN browser)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT

PORT = 8799
OUT = ROOT / "docs" / "screenshots"


def prepare() -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="shots-"))
    os.environ.update(DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}", MEDIA_ROOT=str(tmp / "media"),
                      ARTIFACT_ROOT=str(tmp / "artifacts"), EMBEDDED_BROKER_DIR=str(tmp / "broker"),
                      DJANGO_SETTINGS_MODULE="chlgbt_site.settings.local")
    import django

    django.setup()
    from django.core.management import call_command

    from annotation.demo import OPEN_BATCH
    from annotation.models import DIMENSIONS, Batch, Judgment, Release
    from chlgbt_site.celery import tasks_inline
    from modeling import services

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)
    release = Release.objects.get(number=1)
    with tasks_inline():
        runs = services.training_run_launch(created_by=None, release_id=release.pk, dimensions=list(DIMENSIONS),
                                            variants=["baseline", "astigmatism", "myopia", "full"], seeds=[0, 1, 2])
    demo = Batch.objects.get(name=OPEN_BATCH)
    # The open batch's most disputed post, for the adjudication page.
    spread = {}
    for post_id, *scores in Judgment.objects.filter(post__batch=demo).values_list("post_id", *DIMENSIONS):
        spread.setdefault(post_id, []).append(scores)
    disputed = max(spread, key=lambda pid: (max(max(c) - min(c) for c in zip(*spread[pid])), len(spread[pid]), -pid))
    full = next(r for r in runs if r.variant == "full")
    return {"batch": demo.pk, "group": runs[0].launch_group, "post": disputed, "run": full.pk, "tmp": tmp}


def main() -> None:
    info = prepare()
    OUT.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{PORT}", "--noreload"], cwd=ROOT,
                              env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(4)
        from playwright.sync_api import sync_playwright

        base = f"http://127.0.0.1:{PORT}"
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])

            def session(user, locale="en-US"):
                page = browser.new_page(viewport={"width": 1280, "height": 860}, locale=locale)
                page.goto(f"{base}/accounts/login/")
                page.fill("#id_username", user)
                page.fill("#id_password", "chlgbt-demo")
                page.click("main button[type=submit]")
                page.wait_for_load_state("networkidle")
                return page

            page = session("annotator6")
            page.goto(f"{base}/annotate/")
            page.screenshot(path=str(OUT / "queue.png"))
            page.goto(f"{base}/annotate/{info['batch']}/")
            page.wait_for_selector("#post-text:not(:empty)")
            page.keyboard.press("2")
            page.keyboard.press("3")
            page.screenshot(path=str(OUT / "annotator.png"))
            page = session("annotator5", locale="zh-CN")  # the same page in Chinese
            page.goto(f"{base}/annotate/{info['batch']}/")
            page.wait_for_selector("#post-text:not(:empty)")
            page.keyboard.press("4")
            page.screenshot(path=str(OUT / "annotator-zh.png"))
            page = session("adjudicator")
            page.goto(f"{base}/adjudicate/{info['post']}/")
            page.screenshot(path=str(OUT / "adjudicator.png"))
            page = session("researcher")
            for name, path in (("agreement", "/agreement/"), ("runs-compare", f"/runs/compare/?group={info['group']}"),
                               ("prior-heatmap", "/calibration/priors/"),
                               ("reliability", f"/calibration/runs/{info['run']}/reliability/"),
                               ("token-weights", "/calibration/weights/?text=月半，骗婚的同性恋谈诚信挺有趣的！")):
                page.goto(base + path)
                page.wait_for_load_state("networkidle")
                time.sleep(1)
                page.screenshot(path=str(OUT / f"{name}.png"), full_page=True)
            browser.close()
    finally:
        server.terminate()
    print("wrote", sorted(p.name for p in OUT.glob("*.png")))


if __name__ == "__main__":
    main()
