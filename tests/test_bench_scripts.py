"""A bench or drill script that no longer runs fails the test suite (`make drills` once crashed on an
endpoint name the load test had renamed): every script in bench/ imports, and the drills run in their
`--smoke` mode, which needs no PostgreSQL, Redis or shared data (the backup drill's smoke run is in
tests/backups)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.embedded_site import ROOT

BENCH = ROOT / "bench"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py"))


def run_in_bench(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "MEDIA_ROOT",
                                                            "ARTIFACT_ROOT")}
    return subprocess.run([sys.executable, *args], cwd=BENCH, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_bench_script_imports(script):
    out = run_in_bench("-c", f"import sys; sys.path.insert(0, '.'); import {script}")
    assert out.returncode == 0, out.stderr[-3000:]
    source = (BENCH / f"{script}.py").read_text()
    if "\ndef main(" in source:  # a script, not a helper module: importing it runs nothing
        assert 'if __name__ == "__main__":' in source


def test_the_drills_smoke_run():
    out = run_in_bench("drills.py", "--smoke")
    assert out.returncode == 0 and "drills smoke: report and drill tests OK" in out.stdout, out.stderr[-3000:]


def test_the_drills_read_the_load_tests_own_endpoint_names():
    SUBMIT_STEP = run_in_bench("-c", "from common import SUBMIT_STEP; print(SUBMIT_STEP)").stdout.strip()
    assert "call(self, SUBMIT_STEP," in (BENCH / "loadtest.py").read_text()
    assert SUBMIT_STEP in json.loads((BENCH / "loadtest-50.json").read_text())["endpoints"]



def test_the_llm_bench_small_run(tmp_path):
    """bench_llm.py on 20 test posts against its loopback endpoint: every post answered over HTTP, then
    all of them from the cache (figures not asserted: the machine is shared)."""
    out = tmp_path / "bench_llm.json"
    done = run_in_bench("bench_llm.py", "--posts", "40", "--delay", "0.01", "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["cold"]["requests"] == result["cold"]["answers"] == result["test_posts"] == 20
    assert result["cached"]["requests"] == 0 and result["cached"]["cache_hits"] == 20
