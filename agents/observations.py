"""Readers that recover what a player can see from an env's observation text."""

from __future__ import annotations

import re

_VOCAB_RE = re.compile(r"following vocabulary:\s*(.+?)\.\s*\n")


def word_guess_vocabulary(observation: str) -> tuple[str, ...]:
    """The vocabulary listed in Word Guess instructions, in the order shown."""
    match = _VOCAB_RE.search(observation)
    if match is None:
        raise ValueError("no Word Guess vocabulary in this observation")
    return tuple(w.strip() for w in match.group(1).split(","))
