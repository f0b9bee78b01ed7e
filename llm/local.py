"""A local causal-LM checkpoint as the LLM (transformers; a directory under /models, as for MAAM
backbones - never downloaded), on CUDA when torch sees a GPU (modeling.maam.backbones.pick_device).

Two ways to score a post:
* "likelihood": for each dimension in the prompt's order, the answer so far in the paper's dict
  format (`{”显性歧视“: `) is appended to the prompt and the five answers "1".."5" are scored by their
  log-likelihood; their softmax is the dimension's probabilities (Brier and ECE become possible) and
  the most likely answer is written into the prefix for the next dimension. Always parsed.
* "generate": the model writes an answer (greedy at temperature 0, else sampled with the seed),
  which is parsed like any endpoint's.
No Django here."""
from __future__ import annotations

import math
import os
import threading

from .client import Completion
from .prompts import DIMENSIONS, PAPER_KEYS

SCORES = ("1", "2", "3", "4", "5")


class LocalModelError(RuntimeError):
    pass


def chat_text(tokenizer, messages: list[dict]) -> str:
    """The messages as one prompt: the tokenizer's chat template where it has one, else plain turns."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    turns = [f"{'User' if m['role'] == 'user' else 'Assistant'}: {m['content']}\n" for m in messages]
    return "".join(turns) + "Assistant: "


class LocalChatModel:
    def __init__(self, path: str, *, device: str = "auto", mode: str = "likelihood"):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from modeling.maam.backbones import pick_device

        if not os.path.isdir(path):
            raise LocalModelError(f"{path!r} is not a directory; put the checkpoint under /models (mounted read-only) "
                                  "and give its path. Nothing is downloaded.")
        if mode not in ("likelihood", "generate"):
            raise LocalModelError(f"Unknown scoring {mode!r}; use likelihood or generate.")
        self.mode = mode
        self.device = pick_device(device)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            self.model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise LocalModelError(f"Could not load a causal LM from {path!r}: {exc}") from exc
        self.model.to(self.device).eval()
        self._torch = torch
        self._lock = threading.Lock()  # one forward at a time: the runner may call from a worker thread

    def complete(self, messages: list[dict], *, temperature: float, seed: int | None, max_tokens: int,
                 stop: threading.Event | None = None) -> Completion:
        with self._lock, self._torch.inference_mode():
            prompt = chat_text(self.tokenizer, messages)
            if self.mode == "generate":
                return self._generate(prompt, temperature=temperature, seed=seed, max_tokens=max_tokens)
            return self._likelihood(prompt)

    def _ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _likelihood(self, prompt: str) -> Completion:
        torch = self._torch
        prefix = prompt + "{"
        probabilities: dict[str, list[float]] = {}
        chosen: dict[str, int] = {}
        for i, dim in enumerate(DIMENSIONS):
            prefix += ("" if i == 0 else ", ") + f"”{PAPER_KEYS[dim]}“: "
            base = self._ids(prefix)
            sequences, starts = [], []
            for answer in SCORES:
                full = self._ids(prefix + answer)
                common = 0
                while common < min(len(base), len(full)) and base[common] == full[common]:
                    common += 1
                sequences.append(full)
                starts.append(max(common, 1))
            if all(len(seq) == len(base) + 1 and seq[:-1] == base for seq in sequences):
                # Each answer is one token after the prefix: one forward pass scores all five.
                logits = self.model(input_ids=torch.tensor([base], device=self.device)).logits[0, -1].float()
                logprobs = torch.log_softmax(logits, dim=-1)
                scores = [float(logprobs[seq[-1]]) for seq in sequences]
            else:
                scores = self._continuations(sequences, starts)
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total = sum(weights)
            probabilities[dim] = [w / total for w in weights]
            chosen[dim] = 1 + max(range(5), key=lambda k: (probabilities[dim][k], -k))
            prefix += str(chosen[dim])
        text = "{" + ", ".join(f"”{PAPER_KEYS[d]}“: {chosen[d]}" for d in DIMENSIONS) + "}"
        return Completion(text=text, prompt_tokens=len(self._ids(prompt)), completion_tokens=0,
                          model="local", probabilities=probabilities)

    def _continuations(self, sequences: list[list[int]], starts: list[int]) -> list[float]:
        """Log-likelihood of each sequence's tokens from its start on (answers of several tokens)."""
        torch = self._torch
        width = max(len(s) for s in sequences)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        ids = torch.tensor([s + [pad] * (width - len(s)) for s in sequences], device=self.device)
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in sequences], device=self.device)
        logprobs = torch.log_softmax(self.model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
        return [sum(float(logprobs[row, t - 1, seq[t]]) for t in range(start, len(seq)))
                for row, (seq, start) in enumerate(zip(sequences, starts))]

    def _generate(self, prompt: str, *, temperature: float, seed: int | None, max_tokens: int) -> Completion:
        torch = self._torch
        ids = torch.tensor([self._ids(prompt)], device=self.device)
        generator_seed = 0 if seed is None else int(seed)
        torch.manual_seed(generator_seed)
        if self.device == "cuda":
            torch.cuda.manual_seed_all(generator_seed)
        kwargs = {"max_new_tokens": max_tokens, "attention_mask": torch.ones_like(ids)}
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature)
        else:
            kwargs.update(do_sample=False)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        out = self.model.generate(ids, pad_token_id=pad, **kwargs)[0, ids.shape[1]:]
        text = self.tokenizer.decode(out, skip_special_tokens=True)
        return Completion(text=text, prompt_tokens=int(ids.shape[1]), completion_tokens=int(out.shape[0]), model="local")

    def close(self) -> None:
        pass
