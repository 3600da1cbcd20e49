"""Word Chaining oracle: an exact game-tree solver over the letter graph.

Two words that share their first and their last letter are interchangeable for the rest of
the game (each can follow and be followed by exactly the same words), so a position is the
letter to continue from, the number of words left before the turn cap, and the 26 x 26
matrix of unused-word counts per (first letter, last letter). :class:`WordChainSolver`
runs a memoized negamax with alpha-beta over those positions (at most 26 distinct moves
each, the moves that leave the opponent fewest replies first). Values are for the side to
move: +1 a forced win, 0 the game ends without a loss, -1 a forced loss.

Under the paper's rules (the env's rules) a player loses only by breaking a rule, and a
player with no legal word ends the game without a loss, so EVERY position has value 0: no
game has a forced loss for the side to move; the solver proves it in O(1) per position, and
the oracle (the solver's move: the legal word that leaves the opponent fewest replies) never
loses. The random-legal-word agent never loses either; the benchmark measures what an LLM gets
wrong (remembering the used words, finding a word that fits), not game strategy.
``python benchmarks/word_chain.py`` prints the figures.

``dead_end="loss"`` (the classic rule: a stuck player loses) makes the game a real
generalized-geography game. The solver handles it exactly (``tests/test_word_chain.py``
checks it against a plain exhaustive search on small lexicons, both rules), but it is an
analysis tool, not an env rule: under it many opening positions of the benchmark games are
forced wins for the opener, and proving a draw under a 40-word cap is expensive. The envs
implement the paper's rule only.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mtp_gym.inference.word_chain import lexicon_from_instructions

N_LETTERS = 26
_EXACT, _LOWER, _UPPER = 0, 1, 2


def _code(c: str) -> int:
    return ord(c) - ord("a")


class WordChainSolver:
    """Exact values of Word Chaining positions for one lexicon (memo shared across calls)."""

    def __init__(self, lexicon: tuple[str, ...], dead_end: str = "draw") -> None:
        self.lexicon = tuple(lexicon)
        self.dead_end = dead_end
        self._stuck = -1 if dead_end == "loss" else 0
        self._best = 1 if dead_end == "loss" else 0  # no position is worth more than this
        self._full = [0] * (N_LETTERS * N_LETTERS)
        self._words: dict[int, list[str]] = {}
        for w in self.lexicon:
            e = _code(w[0]) * N_LETTERS + _code(w[-1])
            self._full[e] += 1
            self._words.setdefault(e, []).append(w)
        self._memo: dict[tuple[int, int, tuple[int, ...]], tuple[int, int]] = {}
        self._cnt: list[int] = []
        self._played: list[int] = []
        self.nodes = 0

    # ------------------------------------------------------------------ public
    def best_move(
        self, used: set[str] | frozenset[str] | tuple[str, ...], previous: str | None, plies_left: int
    ) -> tuple[int, str | None]:
        """(value for the side to move, a word achieving it); ``(stuck value, None)`` without a move."""
        self._load(used)
        edges = self._moves(None if previous is None else _code(previous[-1]))
        if not edges or plies_left <= 0:
            return (0 if plies_left <= 0 else self._stuck), None
        best_v, best_e = -2, edges[0]
        for e in edges:
            v = -self._child(e, plies_left, -1, -best_v if best_v > -2 else 1)
            if v > best_v:
                best_v, best_e = v, e
            if best_v >= self._best:
                break
        used_set = set(used)
        word = next(w for w in self._words[best_e] if w not in used_set)
        return best_v, word

    def value(self, used: set[str] | frozenset[str] | tuple[str, ...], previous: str | None, plies_left: int) -> int:
        """Game value for the side to move (+1 win, 0 no loss, -1 loss)."""
        return self.best_move(used, previous, plies_left)[0]

    # ------------------------------------------------------------------ search
    def _load(self, used: Any) -> None:
        cnt = list(self._full)
        played = []
        for w in used:
            e = _code(w[0]) * N_LETTERS + _code(w[-1])
            cnt[e] -= 1
            played.append(e)
        self._cnt, self._played = cnt, played

    def _replies(self, letter: int) -> int:
        row = letter * N_LETTERS
        return sum(self._cnt[row : row + N_LETTERS])

    def _moves(self, letter: int | None) -> list[int]:
        """Edge codes playable from ``letter`` (any at the start), fewest opponent replies first."""
        cnt = self._cnt
        if letter is None:
            edges = [e for e in range(N_LETTERS * N_LETTERS) if cnt[e] > 0]
        else:
            row = letter * N_LETTERS
            edges = [row + j for j in range(N_LETTERS) if cnt[row + j] > 0]
        keyed = []
        for e in edges:
            cnt[e] -= 1
            keyed.append((self._replies(e % N_LETTERS), e))
            cnt[e] += 1
        keyed.sort()
        return [e for _, e in keyed]

    def _child(self, edge: int, plies_left: int, alpha: int, beta: int) -> int:
        """Value for the opponent after the side to move plays ``edge``."""
        self._cnt[edge] -= 1
        self._played.append(edge)
        try:
            return self._negamax(edge % N_LETTERS, plies_left - 1, alpha, beta)
        finally:
            self._cnt[edge] += 1
            self._played.pop()

    def _negamax(self, letter: int, plies_left: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if plies_left <= 0:
            return 0
        cnt, row = self._cnt, letter * N_LETTERS
        if not any(cnt[row : row + N_LETTERS]):
            return self._stuck
        if self._best == 0:
            return 0  # a legal move exists and nobody can be forced into a violation
        key = (letter, plies_left, tuple(sorted(self._played)))
        hit = self._memo.get(key)
        if hit is not None:
            v, flag = hit
            if flag == _EXACT or (flag == _LOWER and v >= beta) or (flag == _UPPER and v <= alpha):
                return v
        alpha0, best = alpha, -2
        for e in self._moves(letter):
            v = -self._child(e, plies_left, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
            if alpha >= beta or best >= self._best:
                break
        if best >= self._best or (alpha0 < best < beta):
            flag = _EXACT
        elif best <= alpha0:
            flag = _EXACT if best == -1 else _UPPER
        else:
            flag = _LOWER
        self._memo[key] = (best, flag)
        return best


@lru_cache(maxsize=8)
def solver_for(lexicon: tuple[str, ...], dead_end: str) -> WordChainSolver:
    """One solver (and memo) per game, shared by the moves of an episode."""
    return WordChainSolver(lexicon, dead_end)


class WordChainOracle:
    """Plays the solver's move (paper rules). Reads the word list from the instructions and the chain
    and turn cap from ``info`` (``chain``, ``max_turns``), so it plays both ``MTP/WordChain-v0`` and
    either seat of ``mtp_gym.word_chain_v0``."""

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self._solver: WordChainSolver | None = None
        self._value: int | None = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self._solver is None:
            self._solver = solver_for(lexicon_from_instructions(observation), "draw")
        chain = tuple(info["chain"])
        plies_left = 2 * int(info["max_turns"]) - len(chain)
        self._value, word = self._solver.best_move(chain, chain[-1] if chain else None, plies_left)
        return f"'{word}'" if word is not None else "I have no word left."

    def plan(self) -> dict[str, Any]:
        """The oracle's planned policy state: the solver's value of its last move
        (+1 forced win, 0 no loss, -1 forced loss; always 0 under the paper's rules)."""
        return {"value": self._value}
