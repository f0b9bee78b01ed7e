"""A walk of the `make run` demo in Debian's Chromium as every role (annotator, adjudicator,
researcher), in Chinese and in English: each page's time (server and browser), the English words
left on Chinese pages (names and keys allowed, ALLOWED below), the content notice, the audit log's
entries; screenshots of the main pages into docs/screenshots/walk-*.png.

    python bench/walk_demo.py [--json bench/walk_demo.json] [--no-screenshots] [--site URL]

Without --site it seeds the demo into a throw-away folder (its own SQLite file, broker, media) and
serves it as `make run` does (serve_embedded: web server + worker). tests/e2e/test_walk_demo.py runs
the same walk and asserts what it finds; the timings are reported, never asserted."""
from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHOTS = ROOT / "docs" / "screenshots"
PASSWORD = "chlgbt-demo"
LOCALES = {"zh": "zh-CN", "en": "en-US"}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Latin words a Chinese page may show: people's and methods' names, file formats, keys, units and
# abbreviations a Chinese reader reads as they are. Everything else on a zh page is a missed translation.
ALLOWED = {w.lower() for w in """
    ChLGBT LGBT MAAM COLD Weibo Myopia Astigmatism Krippendorff Brier BS Plotly Hugging Face Django Celery Redis
    PostgreSQL SQLite jieba HanLP LAC BERT USE transformer transformers GPU CPU CUDA LLM
    CSV JSON JSONL PNG SVG Parquet README DATACARD YAML API URL ID OK UTC
    ECE F1 macro MAE AUC alpha mod
    Enter Backspace Esc Tab Shift Ctrl Space
    English
    Sentences Explicit Implicit Emotional
    MB KB GB ms db
""".split()}
# (the ChLGBT CSV's column names are keys of the file format; `db:` starts a lexicon version)
# Names and keys by their shape: the demo's users and role groups, hashes, versions, strings of C-I-S
# axis letters (a fusion order such as ISC).
NAME_PATTERNS = [re.compile(p) for p in (r"^annotator\d*$", r"^adjudicator$", r"^researcher$", r"^demo$", r"^chlgbt$",
                                          r"^[0-9a-f]{6,}$", r"^v\d+$", r"^[CIS]+$")]
# A token: letters, digits and the joiners of file names, keys and ids. One holding a digit, a dot, an
# underscore, a slash or a hyphen (release.csv, sha256, docs/x.md, train_size, best-offline, char-ngram)
# is a name or a key.
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.'’/-]*")

# The page's text as a reader sees it, minus the posts themselves (written in Chinese by the project),
# code, keyboard keys and what is marked not to translate; SVG text (plot ticks, titles) included.
TEXT_JS = """() => {
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll("script, style, template, noscript, .post-text, [lang='zh'], code, kbd, [translate='no'], "
                        + ".modebar, input, textarea").forEach(e => e.remove());
  return document.title + "\\n" + clone.textContent;
}"""
NAV_JS = """() => { const n = performance.getEntriesByType("navigation")[0];
  return {server_ms: Math.round(n.responseEnd - n.startTime), load_ms: Math.round(n.loadEventEnd - n.startTime)}; }"""


@dataclass
class Visit:
    role: str
    lang: str
    name: str
    path: str
    url: str = ""
    status: int = 0
    server_ms: int = 0
    load_ms: int = 0
    english: list[str] = field(default_factory=list)


def english_words(text: str) -> list[str]:
    """Latin words of two or more letters that are neither allowed nor a name."""
    found = []
    for token in TOKEN.findall(text):
        token = token.strip("'’.-/")
        if re.search(r"[0-9_./-]", token) or len(token) < 2:
            continue
        if token.lower() in ALLOWED or any(p.match(token) for p in NAME_PATTERNS):
            continue
        found.append(token)
    return sorted(set(found))


def demo_ids(db_path: Path) -> dict:
    """Ids the walk needs, read from the demo's database."""
    with sqlite3.connect(db_path) as db:
        one = lambda sql, *p: (db.execute(sql, p).fetchone() or (None,))[0]  # noqa: E731
        return {
            "open_batch": one("SELECT id FROM annotation_batch WHERE name = 'demo'"),
            "locked_batch": one("SELECT id FROM annotation_batch WHERE name != 'demo' ORDER BY id"),
            "full_run": one("SELECT id FROM modeling_trainingrun WHERE variant = 'full' AND status = 'succeeded' "
                            "ORDER BY id DESC"),
            "runs": [r for (r,) in db.execute("SELECT id FROM modeling_trainingrun WHERE status = 'succeeded'")],
            "scored_post": one("SELECT post_id FROM modeling_prediction ORDER BY post_id"),
            "disputed_post": one("SELECT post_id FROM annotation_judgment GROUP BY post_id "
                                 "ORDER BY MAX(explicit) - MIN(explicit) DESC, post_id LIMIT 1"),
            "annotator": one("SELECT id FROM auth_user WHERE username = 'annotator3'"),
            "locked_post": one("SELECT p.id FROM annotation_post p JOIN annotation_batch b ON p.batch_id = b.id "
                               "JOIN annotation_finallabel f ON f.post_id = p.id WHERE b.name != 'demo' ORDER BY p.id"),
        }


def pages(ids: dict) -> dict[str, list[tuple[str, str]]]:
    """(name, path) per role, in the order a person in that role walks them."""
    runs = ",".join(map(str, ids["runs"]))
    return {
        "annotator": [("queue", "/annotate/"), ("notice", f"/annotate/{ids['open_batch']}/"),
                      ("annotate", f"/annotate/{ids['open_batch']}/"),
                      ("feedback", f"/annotate/{ids['locked_batch']}/feedback/")],
        "adjudicator": [("adjudication", "/adjudicate/"), ("adjudicate", f"/adjudicate/{ids['disputed_post']}/"),
                        ("consistency", "/consistency/"), ("releases", "/releases/"), ("rewrite", "/rewrite/"),
                        ("rewrite-post", f"/rewrite/{ids['locked_post']}/")],
        "researcher": [("agreement", "/agreement/"), ("quality", "/quality/"),
                       ("quality-annotator", f"/quality/annotators/{ids['annotator']}/"),
                       ("gold", "/quality/gold/"), ("audit", "/audit/"), ("releases", "/releases/"),
                       ("runs", "/runs/"), ("run", f"/runs/{ids['full_run']}/"), ("compare", f"/runs/compare/?ids={runs}"),
                       ("calibration", "/calibration/"), ("priors", "/calibration/priors/"),
                       ("weights", "/calibration/weights/"), ("overview", "/calibration/overview/"),
                       ("case", f"/calibration/case/{ids['scored_post']}/"),
                       ("reliability", f"/calibration/runs/{ids['full_run']}/reliability/"),
                       ("fusion", f"/calibration/runs/{ids['full_run']}/fusion/"),
                       ("exposure", "/wellbeing/exposure/"), ("personal-data", "/personal-data/"),
                       ("rewrite", "/rewrite/"), ("launch", "/admin/modeling/trainingrun/launch/")],
    }


USERS = {"annotator": "annotator6", "adjudicator": "adjudicator", "researcher": "researcher"}
# Pages worth a picture in docs/screenshots (walk-<role>-<lang>-<name>.png).
SCREENSHOTS = {("annotator", "notice"), ("annotator", "annotate"), ("adjudicator", "adjudicate"),
               ("adjudicator", "rewrite-post"), ("researcher", "audit"), ("researcher", "releases"), ("researcher", "run"),
               ("researcher", "case"), ("researcher", "exposure"), ("researcher", "quality")}


def _settled(page) -> None:
    """Wait until the page's plots are drawn (pages without plots return at once)."""
    try:
        page.wait_for_function("() => Array.from(document.querySelectorAll('.plot'))"
                               ".every(p => p.querySelector('.main-svg'))", timeout=20000)
    except Exception:
        pass


AUDIT_KINDS = ("rewrite", "run", "import")
# The rewrite page's final labels (dl#labels): whether every dimension's name stays on one line and no
# name overlaps its score.
LABELS_JS = """() => {
  const dts = Array.from(document.querySelectorAll("#labels dt"));
  const line = dt => { const s = getComputedStyle(dt); const h = parseFloat(s.lineHeight);
                       return isNaN(h) ? 1.4 * parseFloat(s.fontSize) : h; };
  const one_line = dts.every(dt => dt.getBoundingClientRect().height < 1.6 * line(dt));
  const apart = dts.every(dt => dt.getBoundingClientRect().right <= dt.nextElementSibling.getBoundingClientRect().left + 0.5);
  return {names: dts.length, one_line: one_line, apart: apart};
}"""


def audit_rows(page) -> list[dict]:
    """The audit page's entries: kind, text, and (field, before, after) rows."""
    return page.eval_on_selector_all("#audit-entries > tbody > tr", """rows => rows.map(r => ({
        kind: r.dataset.kind || "", text: r.textContent.replace(/\\s+/g, " ").trim(),
        changes: Array.from(r.querySelectorAll("table.changes tr")).map(
            c => Array.from(c.children).map(td => td.textContent.trim()))}))""")


# A person takes longer than this to type a name and a password. Submitting the instant the login page
# loaded made the POST compete with Chromium still settling that page (fonts, layout): ~340 ms in place of
# the server's ~150 (docs/performance.md).
TYPING_SECONDS = 1.0


def login(page, base: str, user: str) -> Visit:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", user)
    page.fill("#id_password", PASSWORD)
    page.wait_for_timeout(TYPING_SECONDS * 1000)
    with page.expect_navigation(wait_until="load"):
        page.click("main button[type=submit]")
    visit = Visit(role="", lang="", name="login", path="/accounts/login/", url=page.url, status=200)
    # The landing page's navigation entry; the login POST and its redirects are part of it.
    timing = page.evaluate(NAV_JS)
    visit.server_ms, visit.load_ms = timing["server_ms"], timing["load_ms"]
    return visit


def walk(browser, base: str, ids: dict, *, screenshots: bool = True, roles=("annotator", "adjudicator", "researcher"),
         langs=("zh", "en")) -> dict:
    """Every role's pages in each language. Returns {"visits": [...], "notice": {...}, "audit": {...}}."""
    visits: list[Visit] = []
    notice: dict[str, bool] = {}
    audit: dict[str, list[dict]] = {}
    layout: dict[str, dict] = {}
    for lang in langs:
        for role in roles:
            context = browser.new_context(locale=LOCALES[lang], viewport={"width": 1280, "height": 900})
            page = context.new_page()
            first = login(page, base, USERS[role])
            first.role, first.lang = role, lang
            visits.append(first)
            for name, path in pages(ids)[role]:
                response = page.goto(base + path, wait_until="load")
                visit = Visit(role=role, lang=lang, name=name, path=path, url=page.url.removeprefix(base),
                              status=response.status if response else 0, **page.evaluate(NAV_JS))
                _settled(page)
                if name == "notice":
                    notice[lang] = "/notice/" in page.url
                    if notice[lang]:  # accept it, as the annotator does, to reach the post
                        button = page.locator("main form button[type=submit]").first
                        if button.count():
                            with page.expect_navigation():
                                button.click()
                if lang == "zh":
                    visit.english = english_words(page.evaluate(TEXT_JS))
                if name == "audit":
                    audit[lang] = audit_rows(page)
                    for kind in AUDIT_KINDS:  # the newest page of each kind the walk looks for
                        page.goto(f"{base}{path}?kind={kind}", wait_until="load")
                        audit[lang] += audit_rows(page)
                    page.goto(base + path, wait_until="load")
                if name == "rewrite-post":  # the final-label box: each name on one line, names and scores apart
                    layout[lang] = page.evaluate(LABELS_JS)
                if screenshots and (role, name) in SCREENSHOTS:
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SHOTS / f"walk-{role}-{lang}-{name}.png"))
                visits.append(visit)
            context.close()
    return {"visits": [asdict(v) for v in visits], "notice": notice, "audit": audit, "layout": layout}


UNREADABLE = re.compile(r"^None$|\.None$|^/[^/\s]+/")


def audit_findings(rows: list[dict]) -> dict:
    """What the (English) audit page shows: a rewrite submitted and one confirmed, a run launched, an
    import; and the before/after values no reader can read (None, absolute paths, bare ids)."""
    def has(kind: str, word: str = "") -> bool:
        return any(r["kind"] == kind and word in r["text"].lower() for r in rows)

    def status_change(before: str | None, after: str) -> bool:
        return any(r["kind"] == "rewrite" and any(c[0] == "Status" and c[2] == after and before in (None, c[1])
                                                  for c in r["changes"] if len(c) == 3) for r in rows)

    unreadable = [c for r in rows for c in r["changes"] if len(c) == 3 and any(UNREADABLE.search(v) for v in c[1:])]
    return {"rewrite_submitted": status_change("Draft", "Waiting for confirmation"),
            "rewrite_confirmed": status_change(None, "Confirmed"),
            "run_launched": has("run", "launch"), "import": has("import"), "unreadable": unreadable}


def report(result: dict) -> str:
    lines = ["| role | page | lang | server ms | load ms | English words on the zh page |", "|---|---|---|---|---|---|"]
    for v in result["visits"]:
        lines.append(f"| {v['role']} | {v['name']} | {v['lang']} | {v['server_ms']} | {v['load_ms']} | "
                     f"{', '.join(v['english'])} |")
    slow = [v for v in result["visits"] if v["load_ms"] > 1000]
    lines.append(f"\n{len(slow)} of {len(result['visits'])} page loads over 1 s (browser load event): "
                 + ", ".join(f"{v['role']} {v['name']} {v['lang']} {v['load_ms']} ms" for v in slow))
    lines.append(f"content notice shown: {result['notice']}")
    if "en" in result["audit"]:
        lines.append(f"audit (en): {json.dumps(audit_findings(result['audit']['en']), ensure_ascii=False)}")
    return "\n".join(lines)


def _seeded_site(folder: Path):
    from tests.embedded_site import EmbeddedSite

    site = EmbeddedSite(folder)
    site.manage("seed_demo", timeout=900)
    return site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", default=str(ROOT / "bench" / "walk_demo.json"))
    parser.add_argument("--no-screenshots", action="store_true")
    parser.add_argument("--site", help="walk a running demo (URL) instead; its database is --db")
    parser.add_argument("--db", help="the SQLite file of the site given with --site")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    def run(base: str, db: Path) -> dict:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
            try:
                return walk(browser, base, demo_ids(db), screenshots=not args.no_screenshots)
            finally:
                browser.close()

    started = time.monotonic()
    if args.site:
        result = run(args.site.rstrip("/"), Path(args.db))
    else:
        site = _seeded_site(Path(tempfile.mkdtemp(prefix="walk-")))
        with site.serve():
            time.sleep(5)  # the web process's background start-up (calibration/warm.py)
            result = run(site.url, site.db_path)
    result["walk_s"] = round(time.monotonic() - started, 1)
    result["typing_seconds"] = TYPING_SECONDS
    Path(args.json).write_text(json.dumps(result, ensure_ascii=False, indent=1))
    print(report(result))


if __name__ == "__main__":
    main()
