"""Every page's time in Chromium, as every demo role, in Chinese and English (issue 31: every page <= 1 s).

    python bench/page_times.py [--folder DIR] [--json bench/page_times.json] [--label after] [--append]

Seeds the `make run` demo into DIR (a throw-away folder unless given; a DIR that already holds a seeded
db.sqlite3 is reused), serves it as `make run` does and walks it with bench/walk_demo.py's walk, without
screenshots. Per page: the browser's load event after navigation start (load ms; for login, the POST, its
redirects and the landing page) and the server's part (server ms). The machine's load average is recorded
before and after: on the 2-core machine other work moves these figures by hundreds of ms."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.walk_demo import CHROMIUM_ARGS, demo_ids, walk  # noqa: E402


def summary(result: dict) -> str:
    lines = [f"load average before {result['loadavg_before']}, after {result['loadavg_after']}",
             "| role | page | zh load ms | en load ms | server ms (max) |", "|---|---|---|---|---|"]
    rows: dict[tuple[str, str], dict] = {}
    for v in result["visits"]:
        row = rows.setdefault((v["role"], v["name"]), {"server": 0})
        row[v["lang"]] = v["load_ms"]
        row["server"] = max(row["server"], v["server_ms"])
    for (role, name), row in rows.items():
        lines.append(f"| {role} | {name} | {row.get('zh', '')} | {row.get('en', '')} | {row['server']} |")
    slow = [v for v in result["visits"] if v["load_ms"] > 1000]
    lines.append(f"{len(slow)} of {len(result['visits'])} page loads over 1 s: "
                 + ", ".join(f"{v['role']} {v['name']} {v['lang']} {v['load_ms']} ms" for v in slow))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", help="the demo's folder (seeded when it holds no database yet)")
    parser.add_argument("--json", default=str(ROOT / "bench" / "page_times.json"))
    parser.add_argument("--label", default="", help="a note kept in the JSON (before / after ...)")
    parser.add_argument("--append", action="store_true", help="add this run to those already in --json")
    parser.add_argument("--typing-seconds", type=float, default=None,
                        help="the pause on the login page before submitting (default: walk_demo.TYPING_SECONDS)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from bench import walk_demo
    from tests.embedded_site import EmbeddedSite

    if args.typing_seconds is not None:
        walk_demo.TYPING_SECONDS = args.typing_seconds

    folder = Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="page-times-"))
    folder.mkdir(parents=True, exist_ok=True)
    seeded = (folder / "db.sqlite3").exists()
    site = EmbeddedSite(folder)
    if not seeded:
        site.manage("seed_demo", timeout=900)
    with site.serve():
        time.sleep(5)  # the web process's background start-up (calibration/warm.py)
        before = [round(x, 2) for x in os.getloadavg()]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
            try:
                result = walk(browser, site.url, demo_ids(site.db_path), screenshots=False)
            finally:
                browser.close()
    result.update(label=args.label, typing_seconds=walk_demo.TYPING_SECONDS, loadavg_before=before, loadavg_after=[round(x, 2) for x in os.getloadavg()])
    run = {k: result[k] for k in ("label", "typing_seconds", "loadavg_before", "loadavg_after", "visits")}
    out = Path(args.json)
    saved = json.loads(out.read_text()) if args.append and out.exists() else {"note": args.label, "runs": []}
    saved["runs"].append(run)
    out.write_text(json.dumps(saved, ensure_ascii=False, indent=1))
    print(summary(result))


if __name__ == "__main__":
    main()
