"""LLM baselines and LLMs as raters (issue 28): the paper's zero-/few-shot LLM comparison (Table 3 and
the appendix's few-shot table) run from the workbench. docs/llm.md is the user's guide.

Modules (one job each; the library modules import no Django):
  prompts.py   the paper's prompt verbatim (PAPER_PROMPT), template checks, chat messages with K shots
  fewshot.py   K demonstrations from the release's TRAINING split, stratified by label, seeded
  parsing.py   answer -> {explicit, implicit, emotional} or Unparsed (never guessed)
  client.py    OpenAI-compatible client: concurrency, retries honouring Retry-After, timeouts, tokens
  local.py     local causal-LM checkpoint through transformers (likelihood of 1-5, or generation)
  metrics.py   accuracy / macro-F1 / Brier / ECE per run, mean +- std, the unparsed scoring rule
  privacy.py   endpoint allowlist (settings.LLM_ENDPOINT_ALLOWLIST) and the API key from its env var
  cache.py     the response cache key (sha256; never the API key)
  runner.py    runs one LLMRun: R runs over the test split, cache first, progress, cancel
  models.py    PromptTemplate, LLMRun (a core.jobs.Job), LLMAnswer, LLMRunScore, LLMResponseCache
  services.py  writes (below)   selectors.py  reads (below)   tasks.py  the Celery task (default queue)

API for views/admin/rater (LLM-UI owns views.py, urls.py, admin.py, forms.py, rater.py, results.py):

  services.llm_run_launch(*, created_by, release_id, endpoint, model_name, backend="openai", shots=0,
                          runs=5, seed=0, temperature=0.0, api_key_env="", template_id=None,
                          max_tokens=256, concurrency=None, timeout_seconds=60.0, device="auto",
                          local_scoring="likelihood") -> LLMRun
      Validates (release split, allowlist, key variable present, template), records the estimate,
      enqueues on the default queue (local backend: the gpu queue). DomainError with a translated,
      actionable message on bad input; nothing created then.
  services.llm_run_estimate(**same arguments, no created_by) -> dict
      {"requests", "cached", "to_send", "prompt_tokens", "completion_tokens", "cost", "currency",
       "n_test", "leaves_machine": bool, "host": str} - for the launch page's notice.
  services.llm_run_cancel(*, run_id) -> LLMRun          (DomainError when already finished)
  services.llm_run_rerun(*, run_id, created_by) -> LLMRun  (same settings, same template text; cache makes it cheap)
  services.llm_run_execute(*, run_id) -> LLMRun         (what the task calls)
  services.template_add(*, name, text, description="", created_by=None) -> PromptTemplate (next version)
  selectors.llm_runs_recent(limit=100), selectors.llm_run_get(run_id)
  selectors.llm_run_scores(run) -> {post_key: {"post_id", "explicit", "implicit", "emotional"}}
      per post, the majority over the run indexes of the parsed answers (ties: the first run's);
      None where no run index parsed.
  selectors.llm_run_summary(run) -> {"dimensions": {dim: {"acc_mean", "acc_std", "f1_mean", "f1_std",
      "brier_mean", "ece_mean" (None without probabilities)}}, "per_run": [{run_index, dim: {...}}],
      "requests", "unparsed", "runs", "cache_hits", "prompt_tokens", "completion_tokens", "cost"}
  selectors.llm_run_correctness(run, dimension) -> {"post_keys": [...], "per_run": [[0/1, ...], ...]}
      per-post correctness vectors (unparsed = 0) in post_key order, for a paired test against MAAM.
  selectors.templates_current() -> list of the newest version of each template name.

Fields for the rater integration: LLMRun.rater_enabled, LLMRun.rater_in_aggregation (both off by default).
"""
