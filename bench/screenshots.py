"""Screenshots of the main pages for README, taken from the running app in Debian's Chromium.

    python bench/screenshots.py      (writes docs/screenshots/*.png)

Uses a throw-away SQLite database with the demo data plus labelled posts this project writes."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, synthetic_posts

PORT = 8799
OUT = ROOT / "docs" / "screenshots"


def prepare() -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="shots-"))
    os.environ.update(DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}", MEDIA_ROOT=str(tmp / "media"),
                      ARTIFACT_ROOT=str(tmp / "artifacts"), DJANGO_SETTINGS_MODULE="chlgbt_site.settings.local")
    import django

    django.setup()
    from django.core.management import call_command

    from annotation.adjudication.services import final_labels_refresh
    from annotation.releases.services import release_publish
    from annotation.importing.services import import_posts
    from annotation.models import Batch, Post
    from modeling import services

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)
    rng = random.Random(1)
    rows = "".join(f"{t},{rng.randint(1, 5)},{rng.randint(1, 5)},{rng.randint(1, 5)}\n" for t in synthetic_posts(400))
    import_posts(("Sentences,Explicit,Implicit,Emotional\n" + rows).encode(), with_labels=True)
    final_labels_refresh()
    release = release_publish(bootstrap=100)
    runs = services.training_run_launch(created_by=None, release_id=release.pk, dimensions=["explicit", "implicit", "emotional"],
                                        variants=["baseline", "astigmatism", "myopia", "full"], seeds=[0, 1, 2])
    full = [r for r in runs if r.variant == "full"][0]
    services.scoring_job_launch(created_by=None, run_id=full.pk)
    demo = Batch.objects.get(name="demo")
    disputed = Post.objects.filter(batch=demo).order_by("id")[12]
    return {"batch": demo.pk, "group": runs[0].launch_group, "run": full.pk, "post": disputed.pk, "tmp": tmp}


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

            def session(user):
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.goto(f"{base}/accounts/login/")
                page.fill("#id_username", user)
                page.fill("#id_password", "chlgbt-demo")
                page.click("button[type=submit]")
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
            page = session("adjudicator")
            page.goto(f"{base}/adjudicate/{info['post']}/")
            page.screenshot(path=str(OUT / "adjudicator.png"))
            page = session("researcher")
            for name, path in (("agreement", "/agreement/"), ("runs-compare", f"/runs/compare/?group={info['group']}"),
                               ("prior-heatmap", "/calibration/priors/"),
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
