"""Reference players that bound what a query game's clean success measures (issue 25).

A level measures query *planning* only if the strategies that need none lose within its
budget, while a sound player that wastes turns still wins:

* :class:`SweepPlayer`: asks one query type of every argument in a fixed order (all of them,
  or one item at a time: ``member(3)``, ``sum(3, 3)``) and keeps exact books: it skips what the
  replies already settle and answers as soon as they determine the target (or, when the sweep
  runs out, the most common target left). A read-off of every pair is the sweep of a pair
  query; a scan with exact bookkeeping is the one-item sweep. It plans nothing.
* :class:`WastefulOracle`: the oracle (maximum information gain), except that each turn, with
  probability ``waste``, it asks a redundant question (one the replies already answer) instead:
  a verbose but sound model.

Both see only what a player sees. :func:`sweep_turns` and :func:`wasteful_win_rate` compute
the same outcomes directly (the first from the hidden state, the second exactly from the
oracle's turns), for the level audit in ``benchmarks/query_levels.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator
from math import comb
from typing import Any

import numpy as np

from mtp_gym.agents.oracles.query_games import QueryGameOracle, VersionSpace, game_from_info
from mtp_gym.games.base import Game

__all__ = ["SweepPlayer", "WastefulOracle", "budget_rule", "sweep_orders", "sweep_turns", "wasteful_win_rate"]

#: The budget rule's targets: (waste, share of episodes won), margins over the tests' 90% / 75%.
WASTE_TARGETS = ((0.3, 0.93), (0.5, 0.80))


def sweep_orders(game: Game) -> list[tuple[str, bool]]:
    """Every sweep of ``game``: ``(query, one_item)`` for each query type with arguments, and
    the one-item scan of each query that takes two or more (``count(a, a)``)."""
    out = []
    for spec in game.queries:
        if not spec.args:
            continue
        out.append((spec.name, False))
        if len(spec.args) > 1 and any(len(set(a)) == 1 for a in game.query_args(spec.name)):
            out.append((spec.name, True))
    return out


def _sweep_args(game: Game, query: str, one_item: bool) -> list[tuple]:
    args = [tuple(a) for a in game.query_args(query)]
    return [a for a in args if len(set(a)) == 1] if one_item else args


class SweepPlayer:
    """Asks ``query`` of every argument in order with exact books (see the module docstring)."""

    def __init__(self, game_cls: type[Game], query: str, one_item: bool = False) -> None:
        self.game_cls, self.query, self.one_item = game_cls, query, one_item
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.space: VersionSpace | None = None
        self.evidence: dict[tuple[str, tuple], Hashable] = {}

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.space is None:
            self.space = VersionSpace(game_from_info(self.game_cls, info))
            self.order: Iterator[tuple] = iter(_sweep_args(self.space.game, self.query, self.one_item))
        feedback = info.get("feedback") or {}
        if "query" in feedback:
            self.evidence[(feedback["query"], tuple(feedback["args"]))] = feedback["answer"]
        space = self.space
        alive = space.consistent(self.evidence)
        targets = Counter(space.targets[i] for i in alive)
        if len(targets) > 1:
            for args in self.order:  # an answer settled now stays settled: the candidates only shrink
                row, _ = space.codes(space.index[(self.query, args)])
                if len(set(row[alive].tolist())) > 1:
                    return space.game.describe_query(self.query, args)
        target = targets.most_common(1)[0][0] if targets else space.targets[0]
        return f"<answer>{space.game.format_answer(target)}</answer>"


class WastefulOracle:
    """The oracle, asking a redundant question instead with probability ``waste`` each turn."""

    def __init__(self, game_cls: type[Game], waste: float, seed: int | None = None) -> None:
        if not 0 <= waste < 1:
            raise ValueError(f"waste must be in [0, 1), got {waste!r}")
        self.oracle = QueryGameOracle(game_cls)
        self.waste, self._seed = waste, seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.oracle.reset()
        self.rng = np.random.default_rng(self._seed if seed is None else seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if self.rng.random() >= self.waste:
            return self.oracle.act(observation, info)
        oracle = self.oracle
        oracle.act(observation, info)  # takes in the last reply (its move is asked on a later turn)
        space = oracle.space
        assert space is not None
        alive = space.consistent(oracle.evidence)
        settled = [
            q for qi, q in enumerate(space.queries) if len(alive) and len(set(space.codes(qi)[0][alive].tolist())) == 1
        ]
        name, args = settled[int(self.rng.integers(len(settled)))] if settled else space.queries[0]
        return space.game.describe_query(name, args)


def sweep_turns(game: Game, query: str, one_item: bool, space: VersionSpace | None = None) -> tuple[bool, int]:
    """``(won, turns)`` of :class:`SweepPlayer` on ``game`` (hidden state known) with no turn
    limit: the queries it asks plus the answer. ``space``: the game's version space, to share."""
    space = space or VersionSpace(game)
    truth = game.target(game.hidden)
    alive = np.arange(len(space.states))
    turns = 0
    for args in _sweep_args(game, query, one_item):
        if space.one_target(alive):
            break
        row, values = space.codes(space.index[(query, args)])
        if len(set(row[alive].tolist())) == 1:
            continue
        turns += 1
        alive = alive[row[alive] == values[game.respond(game.hidden, query, args)]]
    guess = Counter(space.targets[i] for i in alive).most_common(1)[0][0]
    return guess == truth, turns + 1


def wasteful_win_rate(oracle_turns: list[int], budget: int, waste: float) -> float:
    """The exact share of episodes :class:`WastefulOracle` wins within ``budget`` turns, over
    configurations on which the oracle needs ``oracle_turns`` (each of its turns is preceded by
    a negative-binomial number of wasted ones)."""
    if waste == 0:
        return sum(t <= budget for t in oracle_turns) / len(oracle_turns)
    rate = 0.0
    for t in oracle_turns:
        rate += sum(comb(t - 1 + w, w) * (1 - waste) ** t * waste**w for w in range(max(0, budget - t + 1)))
    return rate / len(oracle_turns)


def budget_rule(oracle_turns: list[int], previous: int = 0) -> int:
    """A level's budget (``mtp_gym/games/README.md``): the smallest number of turns within which
    :class:`WastefulOracle` meets :data:`WASTE_TARGETS` on configurations where the oracle needs
    ``oracle_turns``, and at least ``previous`` (the previous level's budget)."""
    budget = max(previous, max(oracle_turns))
    while any(wasteful_win_rate(oracle_turns, budget, w) < share for w, share in WASTE_TARGETS):
        budget += 1
    return budget
