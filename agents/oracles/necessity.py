"""Reference solver of the necessity-judgment probe (``mtp_gym.wrappers.probes.necessity``).

Phase 1: from the full evidence pool (``info["necessity"]["evidence"]``, the numbered
observations the text shows) and the public instance (``info["game"]``) it derives the
target, then keeps a smallest subset of the pool that still determines it and names every
other observation ``<unnecessary>``: the probe's own minimum
(:func:`~mtp_gym.wrappers.probes.necessity.minimum_sufficient_subset`, a minimum set cover
of the candidate states whose target differs, "rivals", each observation covering the
rivals it contradicts), so it scores 1.0 by the probe's measure (removed / max removable).
Phase 2: it answers from the kept observations alone.

Enumerable games are solved exactly. Games with ``enumerable = False``, or pools larger
than ``exact_limit`` state x observation checks, fall back to :func:`irreducible_subset` on
samples of ``Game.sample_consistent``: greedy set cover of the rivals found in the samples,
then a backward pass dropping every chosen observation the others make redundant (stated,
not guaranteed, sufficiency; not necessarily smallest).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mtp_gym.agents.oracles.query_games import QueryGameOracle, game_from_info
from mtp_gym.games.base import Evidence, Game

__all__ = ["GameOracle", "NecessityOracle", "irreducible_subset"]


def _consistent_target(game: Game, evidence: Sequence[Evidence], rng: np.random.Generator, n: int) -> Hashable:
    """The most common target among (a sample of) the states consistent with ``evidence``."""
    states = game.sample_consistent(list(evidence), rng, n)
    if not states:
        states = [game.sample_hidden(rng)]
    return Counter(game.target(s) for s in states).most_common(1)[0][0]


def irreducible_subset(
    game: Game,
    evidence: Sequence[Evidence],
    target: Hashable,
    rng: np.random.Generator,
    sample_size: int = 2048,
    exact_limit: int = 20_000_000,
) -> list[int]:
    """Indices into ``evidence`` of a sufficient subset none of whose members can be dropped."""
    if game.enumerable and len(game.candidate_states()) * len(evidence) <= exact_limit:
        rivals = [s for s in game.candidate_states() if game.target(s) != target]
    else:
        rivals = [s for s in game.sample_consistent([], rng, sample_size) if game.target(s) != target]
    if not rivals:
        return []
    # covers[i, j]: observation i contradicts rival j
    covers = np.array([[game.respond(s, q, a) != v for s in rivals] for q, a, v in evidence], dtype=bool)
    if not covers.any(axis=0).all():  # the pool itself does not rule out every rival (ill-posed)
        covers = covers[:, covers.any(axis=0)]
    left = np.ones(covers.shape[1], dtype=bool)
    chosen: list[int] = []
    while left.any():
        gains = covers[:, left].sum(axis=1)
        best = int(np.argmax(gains))
        chosen.append(best)
        left &= ~covers[best]
    counts = covers[chosen].sum(axis=0)
    for i in reversed(list(chosen)):  # backward pass: drop what the others already cover
        if (counts - covers[i] > 0).all():
            counts = counts - covers[i]
            chosen.remove(i)
    return sorted(chosen)


class NecessityOracle:
    """Answers, names every observation outside a smallest sufficient subset as unnecessary,
    then answers again from the kept ones (see the module docstring)."""

    def __init__(
        self, game_cls: type[Game], sample_size: int = 2048, exact_limit: int = 20_000_000, seed: int | None = None
    ) -> None:
        self.game_cls = game_cls
        self.sample_size = sample_size
        self.exact_limit = exact_limit
        self._seed = seed
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        necessity = info.get("necessity")
        if not necessity:
            raise ValueError(
                f"the necessity oracle plays {self.game_cls.name} under the 'necessity' probe; "
                "info has no 'necessity' entry"
            )
        game = game_from_info(self.game_cls, info)
        numbers = [row[0] for row in necessity["evidence"]]
        evidence = [(row[1], tuple(row[2]), row[3]) for row in necessity["evidence"]]
        target = _consistent_target(game, evidence, self.rng, self.sample_size)
        answer = f"<answer>{game.format_answer(target)}</answer>"
        if necessity["phase"] != 1:
            return answer
        # lazy: keeps the registry light
        from mtp_gym.wrappers.probes.necessity import format_numbers, minimum_sufficient_subset

        smallest = minimum_sufficient_subset(game, evidence, target, self.exact_limit)
        if smallest is None:
            keep = set(irreducible_subset(game, evidence, target, self.rng, self.sample_size, self.exact_limit))
        else:
            keep = set(smallest[0])
        drop = [n for i, n in enumerate(numbers) if i not in keep]
        return f"{answer}\n<unnecessary>{format_numbers(drop)}</unnecessary>"


class GameOracle:
    """The query games' registered ``oracle``: the necessity solver on an episode under the
    necessity probe (its observations carry ``info["necessity"]``), else the query oracle
    (:class:`QueryGameOracle`, which takes ``kwargs``). So ``--probe necessity --agent
    oracle`` reports the ceiling of that protocol, not format errors."""

    def __init__(self, game_cls: type[Game], **kwargs: Any) -> None:
        self.query = QueryGameOracle(game_cls, **kwargs)
        self.necessity = NecessityOracle(game_cls, seed=kwargs.get("seed"))

    def reset(self, seed: int | None = None) -> None:
        self.query.reset(seed)
        self.necessity.reset(seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return (self.necessity if info.get("necessity") else self.query).act(observation, info)
