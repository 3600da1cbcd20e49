"""Word Chaining: the allowed words, as a player reads them from the instructions."""

from __future__ import annotations

import re

_LEXICON_RE = re.compile(r"Allowed words:\s*(.+)")


def lexicon_from_instructions(observation: str) -> tuple[str, ...]:
    """The allowed words listed in Word Chaining instructions."""
    match = _LEXICON_RE.search(observation)
    if match is None:
        raise ValueError("no Word Chaining word list in this observation")
    return tuple(w.strip() for w in match.group(1).split(","))
