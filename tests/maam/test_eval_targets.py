"""`make eval` and `make eval-full` (issue 31 item 10): every command they run is one the CLI accepts, with
candidates it can build, and each labels docs/results.md with the target that produced it. The reduced
grid stays reduced (3 folds, 2 seeds, 2 candidates per step; no ablation); the full grid runs the rest."""
from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest

from modeling.maam.cli import _config, _parse_option, build_parser
from modeling.maam.protocols import parse_candidate
from tests.embedded_site import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def maam_commands(target: str, cuda: str = "0") -> list[list[str]]:
    """The `python -m modeling.maam ...` argument lists of a make target, as make would run them
    (HAS_CUDA set, so the CUDA-only step can be seen either way)."""
    out = subprocess.run(["make", "-n", target, f"HAS_CUDA={cuda}", "PY=python"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    commands = []
    for line in out.replace("\\\n", " ").splitlines():
        if line.strip().startswith('if [ "0" = "1" ]'):  # the step make would not run
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";")
        lexer.whitespace_split = True
        words = list(lexer)
        while "modeling.maam" in words:
            words = words[words.index("modeling.maam") + 1:]
            end = words.index(";") if ";" in words else len(words)
            commands.append(words[:end])
            words = words[end:]
    return commands


def buildable(args, spec: str) -> None:
    """The candidate is one `protocols` builds (as cmd_protocols does), or this raises."""
    parse_candidate(spec, _config(args), _parse_option).config.validate()


def parsed(target: str, cuda: str = "0"):
    parser = build_parser()
    return [parser.parse_args(argv) for argv in maam_commands(target, cuda)]


def test_make_eval_is_the_labelled_reduced_grid():
    runs = parsed("eval")
    assert len(runs) == 2
    for r in runs:
        assert r.label and r.label.startswith("make eval, reduced grid")
        assert r.out == "docs/results.md"
        assert r.seeds <= 2 and len(r.candidates) <= 2
        for spec in r.candidates:
            buildable(r, spec)
    assert runs[0].kfold == 3 and not runs[0].append and runs[1].append
    assert all("use-m3-ft" not in spec for r in runs for spec in r.candidates)  # no fine-tuning on a CPU


def test_make_eval_adds_the_fine_tune_where_cuda_is():
    runs = parsed("eval", cuda="1")
    assert len(runs) == 3
    gpu = runs[2]
    assert gpu.append and gpu.label.startswith("make eval on CUDA")
    assert any(spec.startswith("use-m3-ft") for spec in gpu.candidates)
    for spec in gpu.candidates:
        buildable(gpu, spec)


def test_make_eval_full_runs_the_whole_grid_and_the_ablation():
    commands = maam_commands("eval-full")
    runs = [build_parser().parse_args(argv) for argv in commands]
    assert [argv[0] for argv in commands] == ["protocols", "protocols", "ablation"]
    assert runs[0].label.startswith("make eval-full") and runs[0].kfold == 5 and runs[0].seeds == 3
    assert runs[1].label.startswith("make eval-full") and runs[1].append
    assert runs[2].out == "docs/results_ablation.md" and runs[2].backbones == ["char-ngram", "use-m3", "hybrid"]
    for r in runs[:2]:
        for spec in r.candidates:
            buildable(r, spec)
