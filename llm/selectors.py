"""Reads for LLM runs: lists, per-post scores (for the rater view), the Table 3 summary, and per-post
correctness vectors for a paired test against a MAAM run on the same release."""
from __future__ import annotations

from collections import Counter, defaultdict

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from core.errors import NotFound

from . import metrics
from .models import LLMAnswer, LLMRun, LLMRunScore, PromptTemplate

DIMENSIONS = metrics.DIMENSIONS


def llm_runs_recent(limit: int = 100) -> QuerySet[LLMRun]:
    return LLMRun.objects.select_related("release", "template", "created_by").order_by("-created_at", "-id")[:limit]


def llm_run_get(run_id: int) -> LLMRun:
    run = LLMRun.objects.select_related("release", "template").filter(pk=run_id).first()
    if run is None:
        raise NotFound(_("No such LLM run."))
    return run


def templates_current() -> list[PromptTemplate]:
    """The newest version of each template name."""
    newest: dict[str, PromptTemplate] = {}
    for template in PromptTemplate.objects.order_by("name", "-version"):
        newest.setdefault(template.name, template)
    return list(newest.values())


def llm_run_scores(run: LLMRun) -> dict[str, dict]:
    """Per post: {"post_id", "explicit", "implicit", "emotional"} - per dimension the most frequent
    parsed score over the run indexes (a tie goes to the score of the lowest run index among the
    tied ones); None where no run index parsed."""
    by_post: dict[str, list[LLMAnswer]] = defaultdict(list)
    for answer in LLMAnswer.objects.filter(run=run).order_by("post_key", "run_index"):
        by_post[answer.post_key].append(answer)
    out = {}
    for key, answers in by_post.items():
        row: dict = {"post_id": answers[0].post_id}
        for d in DIMENSIONS:
            values = [getattr(a, d) for a in answers if getattr(a, d) is not None]
            if not values:
                row[d] = None
                continue
            counts = Counter(values)
            top = max(counts.values())
            row[d] = next(v for v in values if counts[v] == top)
        out[key] = row
    return out


def llm_run_summary(run: LLMRun) -> dict:
    """The run's Table 3 row and its parts: per dimension mean/std of accuracy and macro-F1 (and the
    mean Brier/ECE where every run index has them), each run index's values, and the counts."""
    per_run: dict[int, dict] = defaultdict(dict)
    for s in LLMRunScore.objects.filter(run=run).order_by("run_index", "dimension"):
        per_run[s.run_index][s.dimension] = {"accuracy": s.accuracy, "macro_f1": s.macro_f1, "brier": s.brier,
                                             "ece": s.ece, "n": s.n, "unparsed": s.unparsed}
    ordered = [per_run[r] for r in sorted(per_run) if len(per_run[r]) == len(DIMENSIONS)]
    return {"dimensions": metrics.summarise(ordered) if ordered else {},
            "per_run": [{"run_index": r, **per_run[r]} for r in sorted(per_run)],
            "requests": run.requests_sent, "unparsed": run.unparsed, "runs": run.runs, "cache_hits": run.cache_hits,
            "retries": run.retries, "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
            "cost": run.cost, "n_test": run.n_test}


def llm_run_correctness(run: LLMRun, dimension: str) -> dict:
    """{"post_keys": [...], "per_run": [[1/0 per post] per run index]}: whether each answer equals the
    gold label (unparsed = 0), posts in post_key order - what a paired test against MAAM needs."""
    if dimension not in DIMENSIONS:
        raise ValueError(f"dimension must be one of {DIMENSIONS}")
    rows = defaultdict(dict)
    keys: set[str] = set()
    for answer in LLMAnswer.objects.filter(run=run).only("run_index", "post_key", "gold", dimension):
        rows[answer.run_index][answer.post_key] = int(
            metrics.predicted({dimension: getattr(answer, dimension)}, dimension) == int(answer.gold[dimension]))
        keys.add(answer.post_key)
    ordered = sorted(keys)
    return {"post_keys": ordered, "per_run": [[rows[r].get(k, 0) for k in ordered] for r in sorted(rows)]}
