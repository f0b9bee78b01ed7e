"""device="auto" reaches the fine-tuned backbones (review 23, finding 9): CUDA when torch sees a GPU,
else the CPU, decided at construction without building or loading any network."""
from __future__ import annotations

import pytest
import torch

from modeling.maam.backbones import TransformerBackbone, make_backbone


@pytest.mark.parametrize("available, expected", [(True, "cuda"), (False, "cpu")])
def test_auto_device_follows_torch_cuda(monkeypatch, available, expected):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: available)
    ft = make_backbone("use-m3-ft", device="auto")
    assert ft.device == expected and ft._module is None and ft._head is None  # nothing built
    direct = TransformerBackbone("no/such-model", device="auto")
    assert direct.device == expected and direct._encoder is None and direct._tokenizer is None
    via_factory = make_backbone("no/such-model", device="auto")
    assert isinstance(via_factory, TransformerBackbone) and via_factory.device == expected
    assert make_backbone("use-m3-ft", device="cpu").device == "cpu"  # an explicit choice wins


def test_asking_for_cuda_without_a_gpu_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="no GPU"):
        make_backbone("use-m3-ft", device="cuda")
