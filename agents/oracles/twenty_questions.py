"""Twenty Questions answerers that never contradict themselves (the ceiling: score 1.0).

* :class:`TwentyQuestionsOracle` commits to a secret word (drawn with its seeded generator
  from the lexicon in the instructions) and answers every question truthfully from the
  listed hypernyms: the secret stays consistent, so no contradiction can occur.
* :class:`TwentyQuestionsAdversary` commits to nothing: it tracks the words consistent with
  its answers and gives, to each question, the answer that keeps that set larger (ties: the
  answer that keeps the words *without* the asked attribute, i.e. "no"). Never empty, so
  never inconsistent; it is the hardest answerer for a questioner (a guess of a word is
  "no" while any other word remains).

Both read only the observation text (lexicon and question), like a player.
``tests/test_twenty_questions.py`` checks that both win every game of a CI sample; the full
split: ``pytest -m slow tests/test_twenty_questions.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mtp_gym.envs.twenty_questions import GUESS, parse_instructions, parse_question


class _Answerer:
    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)
        self.lexicon: dict[str, frozenset[str]] | None = None

    def _yes_words(self, observation: str) -> frozenset[str]:
        """The lexicon words for which the last question's true answer is "yes"."""
        if self.lexicon is None:
            self.lexicon = lexicon = {w: frozenset(h) for w, h in parse_instructions(observation).items()}
            self._start(lexicon)
        kind, subject = parse_question(observation)
        if kind == GUESS:
            return frozenset({subject}) & self.lexicon.keys()
        return frozenset(w for w, hyps in self.lexicon.items() if subject in hyps)

    def _start(self, lexicon: dict[str, frozenset[str]]) -> None:
        pass


class TwentyQuestionsOracle(_Answerer):
    """Truthful answerer for a secret word it picks at the first observation."""

    def _start(self, lexicon: dict[str, frozenset[str]]) -> None:
        words = sorted(lexicon)
        self.secret = words[int(self.rng.integers(len(words)))]

    def act(self, observation: str, info: dict[str, Any]) -> str:
        yes = self._yes_words(observation)  # picks the secret at the first observation
        return "yes" if self.secret in yes else "no"


class TwentyQuestionsAdversary(_Answerer):
    """Answers so that as many words as possible stay consistent with all its answers."""

    def _start(self, lexicon: dict[str, frozenset[str]]) -> None:
        self.consistent = frozenset(lexicon)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        yes = self._yes_words(observation)
        keep_yes, keep_no = self.consistent & yes, self.consistent - yes
        if len(keep_yes) > len(keep_no):
            self.consistent = keep_yes
            return "yes"
        self.consistent = keep_no
        return "no"
