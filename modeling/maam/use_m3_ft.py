"""`use-m3-ft`: USE-m3 fine-tuned end to end (modeling/maam/use_m3_torch.py) with Myopia's
weighted pooling over its token states (Algorithm 1) and a linear head, trained with the shared
recipe (finetune.py). CPU by default, CUDA when present (`device="auto"`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from .finetune import DevHoldout, FineTuneRecipe, fine_tune, recipe_from

N_CLASSES = 5
HEAD_SCALE = 16.0  # the sentence vector is L2-normalised; scaled so a linear head starts with usable logits


class UseM3FtBackbone(DevHoldout):
    name = "use-m3-ft"

    def __init__(self, seed: int = 0, device: str = "auto", n_classes: int = N_CLASSES, max_tokens: int = 128,
                 **recipe):
        from .backbones import pick_device

        self.seed, self.device_pref, self.n_classes, self.max_tokens = seed, device, n_classes, max_tokens
        self.recipe: FineTuneRecipe = recipe_from(recipe)
        self.device = pick_device(device)
        self.history: dict = {}
        self._module = None
        self._head = None
        self._batcher = None

    def _build(self) -> None:
        import torch

        from .use_m3_torch import UseM3Batcher, UseM3Module

        torch.manual_seed(self.seed)
        self._module = UseM3Module().to(self.device)
        self._head = torch.nn.Linear(512, self.n_classes).to(self.device)
        torch.nn.init.zeros_(self._head.weight)
        torch.nn.init.zeros_(self._head.bias)
        self._batcher = UseM3Batcher(max_tokens=self.max_tokens)

    def _logits(self, items: Sequence):
        pairs = [i.pooling_input() for i in items]
        ids, mask, weights = self._batcher([t for t, _ in pairs], [w for _, w in pairs])
        vectors = self._module(ids.to(self.device), mask.to(self.device), weights.to(self.device))
        return self._head(vectors * HEAD_SCALE)

    def fit(self, inputs, labels, progress=None) -> None:
        import torch

        self._build()
        items = list(inputs)
        wrapper = torch.nn.ModuleDict({"encoder": self._module, "head": self._head})
        history = fine_tune(wrapper, lambda idx: self._logits([items[i] for i in idx]), labels, self.recipe,
                            list(self._module.parameters()), list(self._head.parameters()), self.device,
                            self.seed, self.n_classes, progress)
        self.history = history.to_dict()
        self.remember_dev(labels)

    def predict_proba(self, inputs) -> np.ndarray:
        import torch

        if self._module is None:
            raise RuntimeError("the backbone is not trained")
        items = list(inputs)
        out = []
        use_bf16 = self.recipe.bf16 and self.device == "cuda"
        with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=use_bf16):
            for start in range(0, len(items), 64):
                logits = self._logits(items[start:start + 64]).float()
                out.append(torch.softmax(logits, dim=-1).cpu().numpy())
        return np.concatenate(out).astype(np.float64) if out else np.zeros((0, self.n_classes))

    def save(self, directory: Path) -> None:
        import torch

        directory.mkdir(parents=True, exist_ok=True)
        # The frozen embedding table is not saved: it is rebuilt from the installed package at load.
        torch.save({"encoder": self._module.state_dict(), "head": self._head.state_dict()}, directory / "weights.pt")
        (directory / "backbone.json").write_text(json.dumps(
            {"name": self.name, "seed": self.seed, "device": self.device_pref, "n_classes": self.n_classes,
             "max_tokens": self.max_tokens, **self.recipe.to_dict(), "history": self.history}))

    @classmethod
    def load(cls, directory: Path, device: str = "auto") -> UseM3FtBackbone:
        import torch

        cfg = json.loads((directory / "backbone.json").read_text())
        cfg.pop("name")
        history = cfg.pop("history", {})
        cfg["device"] = device
        obj = cls(**cfg)
        obj.history = history
        obj._build()
        state = torch.load(directory / "weights.pt", map_location=obj.device, weights_only=True)
        obj._module.load_state_dict(state["encoder"])
        obj._head.load_state_dict(state["head"])
        obj._module.eval()
        return obj
