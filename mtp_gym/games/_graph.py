"""Shared helpers of the graph query games: random graphs, BFS, edge-list text in and out.

Nodes are numbered ``1..n``; an undirected edge is a pair ``(a, b)`` with ``a < b``; an edge
set is a sorted tuple of such pairs (hashable, JSON-friendly).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games._draws import ExactDraws
from mtp_gym.games.base import Game
from mtp_gym.parsing import ints

Edge = tuple[int, int]


def edge(a: int, b: int) -> Edge:
    """The undirected edge ``{a, b}`` as an ordered pair."""
    return (a, b) if a < b else (b, a)


def all_pairs(n: int) -> list[Edge]:
    """Every pair ``(a, b)``, ``1 <= a < b <= n``."""
    return [(a, b) for a in range(1, n + 1) for b in range(a + 1, n + 1)]


def random_connected_graph(n: int, m: int, rng: np.random.Generator) -> tuple[Edge, ...]:
    """A connected graph on ``1..n`` with ``m`` edges: a random spanning tree plus random extra edges."""
    if not n - 1 <= m <= n * (n - 1) // 2:
        raise ValueError(f"m must be in {n - 1}..{n * (n - 1) // 2} for n={n}, got {m}")
    order = [int(x) + 1 for x in rng.permutation(n)]
    with ExactDraws(rng) as draws:  # rng.integers(i) per node
        edges = {edge(order[i], order[draws.integers(i)]) for i in range(1, n)}
    add_other_pairs(n, edges, m - (n - 1), rng)
    return tuple(sorted(edges))


def add_other_pairs(n: int, edges: set[Edge], count: int, rng: np.random.Generator) -> None:
    """Add to ``edges`` ``count`` distinct pairs of ``1..n`` not in it, drawn as
    ``rng.choice(len(rest), size=count, replace=False)`` picks them from
    ``rest = [p for p in all_pairs(n) if p not in edges]``, without building ``rest``."""
    taken = sorted(_pair_rank(n, a, b) for a, b in edges)
    for i in rng.choice(n * (n - 1) // 2 - len(taken), size=count, replace=False):
        index = rank = int(i)
        while (moved := index + bisect_right(taken, rank)) != rank:  # the index-th rank not taken
            rank = moved
        edges.add(_pair_of_rank(n, rank))


def _pair_rank(n: int, a: int, b: int) -> int:
    """The index of ``(a, b)``, ``a < b``, in :func:`all_pairs` ``(n)``."""
    return (a - 1) * n - (a - 1) * a // 2 + b - a - 1


def _pair_of_rank(n: int, rank: int) -> Edge:
    starts = _pair_starts(n)
    a = bisect_right(starts, rank)
    return a, a + 1 + rank - starts[a - 1]


@lru_cache(maxsize=64)
def _pair_starts(n: int) -> tuple[int, ...]:
    """The rank of ``(a, a + 1)`` for ``a`` in ``1..n - 1``."""
    return tuple(_pair_rank(n, a, a + 1) for a in range(1, n))


def adjacency(n: int, edges: Iterable[Sequence[int]]) -> dict[int, list[int]]:
    adj: dict[int, list[int]] = {v: [] for v in range(1, n + 1)}
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    return adj


def bfs_distances(adj: dict[int, list[int]], source: int) -> dict[int, int]:
    """Hop distance from ``source`` to every node it reaches."""
    dist = {source: 0}
    todo = deque([source])
    while todo:
        v = todo.popleft()
        for w in adj[v]:
            if w not in dist:
                dist[w] = dist[v] + 1
                todo.append(w)
    return dist


def format_edges(edges: Iterable[Sequence[int]]) -> str:
    """``1-2, 3-4`` (``none`` for no edge)."""
    text = ", ".join(f"{a}-{b}" for a, b in edges)
    return text or "none"


def parse_edges(text: str, allowed: Iterable[Edge], count: int | None, example: str) -> tuple[Edge, ...]:
    """An edge list like ``1-2, 3-4`` or ``(1,2) (3,4)`` as a sorted tuple of edges.

    Raises :class:`InvalidAction` for an odd number of integers, a pair outside ``allowed``,
    a repeated edge or (when ``count`` is given) a wrong number of edges.
    """
    numbers = ints(text)
    if not numbers or len(numbers) % 2:
        raise InvalidAction(f"the answer {text[:60]!r} is not a list of node pairs; submit as {example}.")
    pairs = [edge(numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2)]
    allowed = set(allowed)
    bad = [p for p in pairs if p not in allowed]
    if bad:
        raise InvalidAction(f"{bad[0][0]}-{bad[0][1]} is not a possible pair here; submit as {example}.")
    if len(set(pairs)) != len(pairs):
        raise InvalidAction(f"a pair is repeated in {text[:60]!r}; submit as {example}.")
    if count is not None and len(pairs) != count:
        raise InvalidAction(f"submit exactly {count} pair(s), as {example}.")
    return tuple(sorted(pairs))


def parse_ints(text: str) -> list[int]:
    """Every integer in ``text``, in order, signs kept (:func:`mtp_gym.parsing.ints`)."""
    return ints(text)


class ShownGraphGame(Game):
    """A game on a random connected graph shown in the rules (public ``edges``;
    ``{edge_list}`` in the rules template). Levels need ``n`` and ``m``."""

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        return {"edges": random_connected_graph(p["n"], p["m"], rng)}

    @cached_property
    def edges(self) -> tuple[Edge, ...]:
        """The public edges as a hashable tuple (computed once per instance)."""
        return tuple(tuple(e) for e in self.public["edges"])

    def rules_fields(self) -> dict[str, Any]:
        return {"edge_list": format_edges(self.edges)}
