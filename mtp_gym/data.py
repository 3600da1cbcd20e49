"""Access to the data shipped in ``assets/`` (installed as ``mtp_gym/assets``)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["asset_path", "load_json", "scowl_words"]

_HERE = Path(__file__).resolve().parent


@cache
def _assets_root() -> Path:
    installed = _HERE / "assets"  # a wheel maps the top-level assets/ here
    if installed.is_dir():
        return installed
    checkout = _HERE.parent / "assets"  # running from a source checkout
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"mtp_gym assets not found in {installed} or {checkout}; reinstall mtp-gym")


def asset_path(*parts: str) -> Path:
    """Path of a shipped data file, e.g. ``asset_path("word_guess", "vocabularies.json")``."""
    return _assets_root().joinpath(*parts)


@cache
def load_json(*parts: str) -> Any:
    """Parsed JSON asset (cached: treat the result as read-only)."""
    return json.loads(asset_path(*parts).read_text(encoding="utf-8"))


@cache
def scowl_words() -> tuple[str, ...]:
    """Common English words (SCOWL sizes <= 35, lowercase, 3-10 letters), sorted."""
    return tuple(asset_path("words", "scowl-35.txt").read_text(encoding="utf-8").split())
