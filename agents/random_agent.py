"""Random agents: well-formed random moves, the floor every report prints."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.observations import word_guess_vocabulary


class RandomAgent:
    """Base of the random agents: a seeded generator, reset per episode."""

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        raise NotImplementedError


class WordGuessRandomAgent(RandomAgent):
    """Guesses vocabulary words uniformly at random, never repeating one."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._remaining: list[str] | None = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._remaining is None:
            self._remaining = list(word_guess_vocabulary(observation))
        word = self._remaining.pop(int(self.rng.integers(len(self._remaining))))
        return f"<attempt>{word}</attempt>"
