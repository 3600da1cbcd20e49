"""Buttons and inputs for a person playing in the browser: each env class says its own
(:meth:`mtp_gym.core.TextPuzzleEnv.play_controls`)."""

from __future__ import annotations

from typing import Any

from mtp_gym import puzzle_class

__all__ = ["controls"]


def controls(env_id: str, seen: list[str]) -> list[dict[str, Any]]:
    """The controls for ``env_id`` given the env's messages so far (``seen``, oldest first): only
    the moves the game's current stage takes (e.g. the Turing Machine's code at a proposal,
    a verifier or SKIP while testing), so a click never costs a format error."""
    return puzzle_class(env_id).play_controls(seen)
