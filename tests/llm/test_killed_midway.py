"""A worker killed mid-run (issue 28, "Must show"): `manage.py llm_baseline` in its own process, on
the embedded default's own SQLite file, SIGKILLed while it asks a real endpoint on loopback. The
answers it had received are in the cache; the same command again sends only the posts not yet
answered, and every test post ends up answered."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from tests.embedded_site import ROOT, EmbeddedSite
from tests.llm.conftest import csv_with_personal_data
from tests.llm.openai_server import OpenAIServer

def test_a_run_killed_midway_is_finished_by_the_rerun_without_paying_twice(tmp_path):
    site = EmbeddedSite(tmp_path)
    posts = tmp_path / "posts.csv"
    posts.write_bytes(csv_with_personal_data(60))
    site.manage("import_posts", str(posts), "--with-labels")
    site.manage("export_release", str(tmp_path / "release"), "--bootstrap", "0")
    with OpenAIServer(delay=0.05) as server:
        command = [sys.executable, "manage.py", "llm_baseline", "--release", "1", "--endpoint", server.url,
                   "--model", "m", "--runs", "2", "--concurrency", "2"]
        proc = subprocess.Popen(command, cwd=ROOT, env=site.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while site.query("SELECT COUNT(*) FROM llm_llmresponsecache")[0][0] < 10:
                assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
                assert time.monotonic() < deadline, "no answer was cached in time"
                time.sleep(0.05)
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        cached = site.query("SELECT COUNT(*) FROM llm_llmresponsecache")[0][0]
        assert 10 <= cached < 60
        assert site.query("SELECT status FROM llm_llmrun")[0][0] == "running"  # killed: the check fails it later
        sent_before = len(server.requests)
        out = tmp_path / "rerun.json"
        site.manage("llm_baseline", "--release", "1", "--endpoint", server.url, "--model", "m", "--runs", "2",
                    "--concurrency", "2", "--json", str(out))
        resent = server.requests[sent_before:]
    result = json.loads(out.read_text())
    assert result["requests"] == len(resent) == 60 - cached
    assert result["cache_hits"] == cached and result["answers"] == 60
    # Between the two runs every (post, run index) was asked for; the re-run asked nothing twice.
    assert len({r["fingerprint"] for r in resent}) == len(resent)
    assert site.query("SELECT COUNT(*) FROM llm_llmanswer WHERE run_id = ?", (result["run_id"],))[0][0] == 60
