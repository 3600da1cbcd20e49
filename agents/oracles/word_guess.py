"""Word Guess oracle: the exact minimum-expected-attempts strategy.

:class:`WordGuessSolver` finds, by exhaustive branch-and-bound search over every guess in
the vocabulary (candidates and non-candidates alike), the decision tree that minimizes the
total number of attempts summed over all possible secrets, i.e. the expected number of
attempts for a uniformly drawn secret. :class:`WordGuessOracle` plays that tree, so its
average number of attempts on each benchmark vocabulary **is the exact optimum**.

The optimum per benchmark vocabulary: ``python benchmarks/word_guess.py``.
``tests/test_word_guess.py`` checks that the oracle's attempts equal the solver's optimum
on every vocabulary, and that the bounded search equals a plain unbounded exhaustive
recursion on sub-vocabularies.

The bound that drives the search: a set of ``m > 1`` candidates needs at least ``2m - 1``
more attempts (one of them can be solved by the next guess, the others need two or more).
Vocabularies larger than ``exact_limit`` words fall back to a greedy guess that minimizes
the expected size of the remaining candidate set (no optimality claim there).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from mtp_gym.envs.word_guess import feedback, feedback_code, vocabulary_in


def _lower_bound(m: int) -> int:
    return 1 if m == 1 else 2 * m - 1


class WordGuessSolver:
    """Optimal guessing over a fixed vocabulary (memoized on candidate sets)."""

    def __init__(self, words: tuple[str, ...]) -> None:
        self.words = tuple(words)
        length = len(self.words[0])
        self.solved_code = 3**length - 1
        self.codes = np.array([[feedback_code(feedback(g, s)) for s in self.words] for g in self.words], dtype=np.int32)
        self._memo: dict[tuple[int, ...], tuple[int, int]] = {}

    def partition(self, guess: int, cands: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
        """Candidates grouped by the feedback code ``guess`` would get."""
        groups: dict[int, list[int]] = {}
        for c, code in zip(cands, self.codes[guess, list(cands)].tolist()):
            groups.setdefault(code, []).append(c)
        return {code: tuple(v) for code, v in groups.items()}

    def best(self, cands: tuple[int, ...]) -> tuple[int, int]:
        """(minimum total attempts summed over ``cands``, the guess that achieves it)."""
        n = len(cands)
        if n <= 2:
            return (1 if n == 1 else 3), cands[0]
        hit = self._memo.get(cands)
        if hit is not None:
            return hit
        members = set(cands)
        options = []
        for g in range(len(self.words)):
            groups = self.partition(g, cands)
            if len(groups) == 1 and g not in members:
                continue  # tells nothing
            parts = sorted((p for code, p in groups.items() if code != self.solved_code), key=len, reverse=True)
            options.append((n + sum(_lower_bound(len(p)) for p in parts), g, parts))
        options.sort(key=lambda o: (o[0], o[1]))
        best_total, best_guess = 1 << 30, options[0][1]
        for bound, g, parts in options:
            if bound >= best_total:
                break
            total, remaining = n, bound - n
            for p in parts:
                remaining -= _lower_bound(len(p))
                total += self.best(p)[0]
                if total + remaining >= best_total:
                    break
            else:
                best_total, best_guess = total, g
        self._memo[cands] = (best_total, best_guess)
        return best_total, best_guess

    def greedy(self, cands: tuple[int, ...]) -> int:
        """Guess minimizing the expected remaining candidates (ties: a candidate, low index)."""
        members = set(cands)
        return min(
            range(len(self.words)),
            key=lambda g: (sum(len(p) ** 2 for p in self.partition(g, cands).values()), g not in members, g),
        )

    def expected_attempts(self) -> float:
        """Optimal mean attempts over a uniformly drawn secret."""
        return self.best(tuple(range(len(self.words))))[0] / len(self.words)


@cache
def solver_for(words: tuple[str, ...]) -> WordGuessSolver:
    """One shared solver per vocabulary, so a split of 400 episodes solves 10 trees."""
    return WordGuessSolver(words)


class WordGuessOracle:
    """Plays the optimal tree, reading the vocabulary from the instructions and the colours
    from ``info["feedback"]``; exact below ``exact_limit`` words, greedy above."""

    def __init__(self, exact_limit: int = 100) -> None:
        self.exact_limit = exact_limit
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self._solver: WordGuessSolver | None = None
        self._cands: tuple[int, ...] = ()
        self._last: int | None = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._solver is None:
            self._solver = solver_for(vocabulary_in(observation))
            self._cands = tuple(range(len(self._solver.words)))
        else:
            colors = info.get("feedback", {}).get("colors")
            if colors is not None and self._last is not None:
                groups = self._solver.partition(self._last, self._cands)
                self._cands = groups.get(feedback_code(colors), self._cands)
        if len(self._solver.words) <= self.exact_limit:
            self._last = self._solver.best(self._cands)[1]
        else:
            self._last = self._solver.greedy(self._cands)
        return f"<attempt>{self._solver.words[self._last]}</attempt>"
