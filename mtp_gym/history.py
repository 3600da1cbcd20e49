"""Capping the conversation a model is sent.

The papers send the whole history every turn, and so do our agents and adapters by
default. ``max_history=K`` keeps the system prompt, the first user message (the task's
rules and, for most puzzles, everything given at the start) and the last ``K`` turns (a
turn: the model's reply and the env's answer to it), so the prompt stops growing. The
dropped turns are gone for the model: it can no longer reread earlier feedback, which
lowers scores on puzzles whose feedback must be combined over many turns (Circuit
Decoding, Twenty Questions, the query games), so numbers run with a cap are not the
papers' (a run records ``max_history`` in its agent kwargs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

__all__ = ["cap_history", "check_max_history"]

M = TypeVar("M")


def check_max_history(max_history: Any) -> int | None:
    """``None`` (the whole history) or a positive int (``ValueError`` naming the argument)."""
    if max_history is None:
        return None
    if isinstance(max_history, bool) or not isinstance(max_history, int) or max_history < 1:
        raise ValueError(f"max_history must be None (whole history) or a positive int of turns, got {max_history!r}")
    return max_history


def _role(message: Any) -> str:
    return message["role"] if isinstance(message, dict) else message.role


def cap_history(messages: Sequence[M], max_history: int | None) -> list[M]:
    """``messages`` (dicts with ``role``, or objects with a ``role`` attribute) with only the
    leading system messages, the first user message and the last ``max_history`` turns."""
    messages = list(messages)
    if max_history is None:
        return messages
    head = 0
    while head < len(messages) and _role(messages[head]) == "system":
        head += 1
    head += 1  # the first user message: the rules
    tail = 2 * max_history
    if len(messages) <= head + tail:
        return messages
    return messages[:head] + messages[-tail:]
