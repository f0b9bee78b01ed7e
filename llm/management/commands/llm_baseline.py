"""manage.py llm_baseline: the paper's LLM comparison (Table 3; the appendix's few-shot table) on a
published release, from the command line, in this process (docs/llm.md)."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.releases.selectors import release_get
from core.errors import DomainError
from llm import selectors, services
from llm.models import Backend, LocalScoring, PromptTemplate

BACKENDS = {"openai": Backend.OPENAI, "local": Backend.LOCAL}


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Command(BaseCommand):
    help = ("Score a release's test split with an LLM, R runs, zero- or few-shot (the paper's prompt by default); "
            "prints the estimate first, then accuracy and macro-F1 per dimension, mean +- std.")

    def add_arguments(self, parser):
        parser.add_argument("--release", type=int, required=True, help="release number")
        parser.add_argument("--endpoint", required=True,
                            help="base URL an OpenAI client takes (e.g. http://127.0.0.1:8080/v1); with --backend local, "
                                 "the checkpoint directory (under /models)")
        parser.add_argument("--model", required=True, help="model name the endpoint knows")
        parser.add_argument("--backend", default="openai", choices=sorted(BACKENDS))
        parser.add_argument("--shots", type=int, default=0, help="few-shot examples from the training split (paper: 1, 5, 10)")
        parser.add_argument("--runs", type=int, default=5, help="independent runs (paper: 5)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--api-key-env", default="", help="NAME of the environment variable holding the API key")
        parser.add_argument("--template", default="", help="prompt template as NAME or NAME:VERSION (default: the paper's)")
        parser.add_argument("--concurrency", type=int, default=None, help="requests in flight (default LLM_CONCURRENCY)")
        parser.add_argument("--timeout", type=float, default=60.0, help="seconds per request")
        parser.add_argument("--retries", type=int, default=6, help="retries per request (429, 5xx, timeouts)")
        parser.add_argument("--max-tokens", type=int, default=256)
        parser.add_argument("--local-scoring", default=LocalScoring.LIKELIHOOD, choices=LocalScoring.values)
        parser.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
        parser.add_argument("--json", dest="json_path", default="", help="write the results as JSON to this file")

    def handle(self, *args, **opts):
        try:
            release = release_get(number=opts["release"])
            template_id = self._template(opts["template"])
            settings = dict(release_id=release.pk, endpoint=opts["endpoint"], model_name=opts["model"],
                            backend=BACKENDS[opts["backend"]], shots=opts["shots"], runs=opts["runs"], seed=opts["seed"],
                            temperature=opts["temperature"], api_key_env=opts["api_key_env"], template_id=template_id,
                            max_tokens=opts["max_tokens"], local_scoring=opts["local_scoring"])
            estimate = services.llm_run_estimate(**settings)
            self._print_estimate(release.number, estimate)
            run = services.llm_run_launch(created_by=None, concurrency=opts["concurrency"],
                                          timeout_seconds=opts["timeout"], max_retries=opts["retries"],
                                          device=opts["device"], enqueue=False, **settings)
        except DomainError as exc:
            raise CommandError(str(exc))
        self.stdout.write(f"LLM run {run.pk} started ({run.runs} runs x {estimate['n_test']} test posts).")
        try:
            run = services.llm_run_execute(run_id=run.pk)
        except Exception as exc:
            run.refresh_from_db()
            raise CommandError(f"LLM run {run.pk} failed: {run.error or exc}. Answers already received are cached; "
                               "run the same command again to send only the rest.")
        if run.status != run.Status.SUCCEEDED:
            raise CommandError(f"LLM run {run.pk} ended {run.status}: {run.error}")
        summary = selectors.llm_run_summary(run)
        self._print_results(run, summary)
        if opts["json_path"]:
            out = {"dimensions": summary["dimensions"], "requests": run.requests_sent, "unparsed": run.unparsed,
                   "runs": run.runs, "answers": run.runs * run.n_test, "cache_hits": run.cache_hits,
                   "retries": run.retries, "per_run": summary["per_run"], "run_id": run.pk, "release": release.number,
                   "model": run.model_name, "endpoint": run.endpoint, "backend": run.backend, "shots": run.shots,
                   "seed": run.seed, "temperature": run.temperature, "template": str(run.template),
                   "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens, "cost": run.cost,
                   "n_test": run.n_test}
            write_atomic(Path(opts["json_path"]), json.dumps(out, ensure_ascii=False, indent=2) + "\n")
            self.stdout.write(f"Wrote {opts['json_path']}")

    @staticmethod
    def _template(spec: str) -> int | None:
        if not spec:
            return None
        name, _, version = spec.partition(":")
        qs = PromptTemplate.objects.filter(name=name)
        if version:
            if not version.isdigit():
                raise DomainError(f"Template version {version!r} is not a number; write NAME:VERSION.")
            qs = qs.filter(version=int(version))
        template = qs.order_by("-version").first()
        if template is None:
            raise DomainError(f"No prompt template {spec!r}.")
        return template.pk

    def _print_estimate(self, number: int, e: dict) -> None:
        where = (f"posts LEAVE this machine for {e['host']}" if e["leaves_machine"]
                 else "the endpoint is on this machine" if e["host"] else "the checkpoint runs on this machine")
        self.stdout.write(
            f"Estimate for release {number}: {e['n_test']} test posts, {e['requests']} answers, {e['cached']} in the "
            f"cache, {e['to_send']} to ask for; about {e['prompt_tokens']:,} prompt + {e['completion_tokens']:,} answer "
            f"tokens, cost about {e['cost']:.4f} {e['currency']}; {where}.")
        gone = e.get("taken_down") or {}
        if any(gone.values()):
            self.stdout.write(f"Left out: {sum(gone.values())} posts taken down since the release was published "
                              f"({gone.get('test', 0)} test, {gone.get('train', 0)} training); their text is not sent.")

    def _print_results(self, run, summary: dict) -> None:
        self.stdout.write(f"LLM run {run.pk}: {run.model_name}, {run.shots}-shot, {run.runs} runs, "
                          f"{run.requests_sent} requests sent ({run.retries} retries), {run.cache_hits} answers from "
                          f"the cache, {run.unparsed} unparsed.")
        for d, row in summary["dimensions"].items():
            self.stdout.write(f"  {d:<10} acc {row['acc_mean']:.3f} ± {row['acc_std']:.3f}   "
                              f"macro-F1 {row['f1_mean']:.3f} ± {row['f1_std']:.3f}")
