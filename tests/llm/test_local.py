"""The local-checkpoint backend: a tiny randomly initialised GPT-2 and a character tokenizer built by
the test in tmp_path (no download), scored by the likelihood of the answers 1-5 (probabilities, so
Brier and ECE) and by generation, through manage.py llm_baseline --backend local; on the CPU here
and on CUDA where torch sees one."""
from __future__ import annotations

import json

import pytest
import torch
from django.core.management import call_command

from llm.local import LocalChatModel
from llm.models import LLMAnswer, LLMRun, LLMRunScore
from llm.parsing import parse_answer
from llm.prompts import PAPER_PROMPT, messages_build


def build_tiny_lm(folder, extra_text: str = "") -> str:
    """A character-level tokenizer over the prompt, the answer format and the posts, and a 2-layer
    GPT-2 with random weights; both saved as a checkpoint directory."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    chars = sorted(set(PAPER_PROMPT + extra_text + "评分返回字典0123456789{}:, ”“\"'UserAssistant\n！？。，测试帖子条第同性恋"))
    vocab = {"<unk>": 0, "<eos>": 1, **{c: i + 2 for i, c in enumerate(chars)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", eos_token="<eos>", pad_token="<eos>")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=4096, n_embd=32, n_layer=2, n_head=2,
                                       bos_token_id=1, eos_token_id=1))
    path = folder / "tiny-lm"
    fast.save_pretrained(path)
    model.save_pretrained(path)
    return str(path)


def test_likelihood_scoring_gives_a_distribution_over_1_to_5_per_dimension(tmp_path):
    path = build_tiny_lm(tmp_path)
    model = LocalChatModel(path, device="cpu")
    assert model.device == "cpu"
    out = model.complete(messages_build(PAPER_PROMPT, "测试帖子第1条"), temperature=0.0, seed=0, max_tokens=8)
    assert set(out.probabilities) == {"explicit", "implicit", "emotional"}
    for probs in out.probabilities.values():
        assert len(probs) == 5 and abs(sum(probs) - 1) < 1e-6 and all(p > 0 for p in probs)
    parsed = parse_answer(out.text)
    assert parsed.ok
    for d, probs in out.probabilities.items():
        assert parsed.scores[d] == 1 + max(range(5), key=lambda k: probs[k])  # the most likely answer is given
    again = model.complete(messages_build(PAPER_PROMPT, "测试帖子第1条"), temperature=0.0, seed=0, max_tokens=8)
    assert again.probabilities == out.probabilities  # deterministic
    # The one-pass shortcut for single-token answers scores as the general path does.
    prefix = model._ids("测试{”显性歧视“: ")
    sequences = [prefix + model._ids(str(k)) for k in range(1, 6)]
    with torch.inference_mode():
        general = model._continuations(sequences, [len(prefix)] * 5)
        logprobs = torch.log_softmax(model.model(input_ids=torch.tensor([prefix])).logits[0, -1].float(), dim=-1)
    assert general == pytest.approx([float(logprobs[s[-1]]) for s in sequences], abs=1e-5)


def test_a_missing_checkpoint_is_a_clear_error(tmp_path):
    from llm.local import LocalModelError

    with pytest.raises(LocalModelError, match="not a directory"):
        LocalChatModel(str(tmp_path / "nowhere"))


def run_local(release, path, tmp_path, *extra) -> dict:
    """Through the command, with a short template (the paper's, 400 characters, is scored in the test
    above; here it would only make a CPU shared with other work slower)."""
    from llm.models import PromptTemplate
    from llm.services import template_add

    if not PromptTemplate.objects.filter(name="short").exists():
        template_add(name="short", text="评分：{text}\n返回字典")
    out = tmp_path / "local.json"
    call_command("llm_baseline", "--template", "short", "--release", str(release.number), "--endpoint", path, "--model", "tiny",
                 "--backend", "local", "--runs", "2", "--json", str(out), *extra)
    return json.loads(out.read_text())


def posts_text(release) -> str:
    from modeling.splits import run_split

    data = run_split(release, 0)
    return "".join(r["text"] for r in data["train"] + data["test"])


def check_local_run(result: dict, device: str) -> None:
    run = LLMRun.objects.get(pk=result["run_id"])
    assert run.status == "succeeded" and run.device_used == device
    assert result["unparsed"] == 0 and result["requests"] == result["answers"] == 2 * result["n_test"]
    answers = LLMAnswer.objects.filter(run=run)
    assert answers.count() == 2 * result["n_test"] and all(a.probabilities for a in answers)
    for d in ("explicit", "implicit", "emotional"):
        assert result["dimensions"][d]["brier_mean"] is not None and result["dimensions"][d]["ece_mean"] is not None
        assert 0 <= LLMRunScore.objects.filter(run=run, dimension=d).first().brier <= 2


def test_llm_baseline_with_a_local_checkpoint_on_the_cpu(release, tmp_path):
    path = build_tiny_lm(tmp_path, posts_text(release))
    result = run_local(release, path, tmp_path, "--device", "cpu")
    check_local_run(result, "cpu")
    # Generation: the random model writes whatever it writes; the answer is kept and parsed or counted.
    generated = run_local(release, path, tmp_path, "--device", "cpu", "--local-scoring", "generate", "--max-tokens", "6",
                          "--runs", "1")
    run = LLMRun.objects.get(pk=generated["run_id"])
    assert run.status == "succeeded"
    assert generated["unparsed"] == LLMAnswer.objects.filter(run=run, parsed=False).count()
    assert all(a.completion_tokens <= 6 for a in LLMAnswer.objects.filter(run=run))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_llm_baseline_with_a_local_checkpoint_on_cuda(release, tmp_path):
    path = build_tiny_lm(tmp_path, posts_text(release))
    result = run_local(release, path, tmp_path, "--device", "auto")
    check_local_run(result, "cuda")
