"""Broken Link (graph, abductive): which broken {links} explain the {nodes} cut off from the {hub}?

The rules show a connected {network} on the {nodes} ``1..n``, its {links} numbered ``#1..#m``
(in order), its {hub} ``1``, and an observed outcome: exactly ``k`` {links} have broken, and
after the failure these {nodes} can no longer reach the {hub} (the others still can). The
hidden cause is the set of ``k`` broken {links}. The outcome forces part of it: every {link}
between a cut-off {node} and one that still reaches the {hub} is broken. The other ``extra``
breaks left no visible trace, and that is what the outcome says about them: they lie inside
the cut-off part, or in the rest where the {network} routes around them, never on a bridge of
the rest nor on two {links} that together cut it apart (either would have cut off more
{nodes}). The {network} is sparse, so the outcome rules out many explanations: in every
configuration of the benchmark split from level 2, 10% to 40% of the ways to place the
hidden breaks once the forced {links} are known would have cut off other {nodes}
(``tests/test_broken_link.py`` counts them). The agent asks ``broken(j)`` (how many of the
{links} ``#1`` to ``#j`` are broken?) and submits the ``k`` broken {links}: backward reasoning
from an observed effect to its cause.

Configurations: a cut-off part of 1 to ``part`` {nodes} (random numbers, never the {hub}) and
the rest, each a random connected {network}, joined by exactly ``k - extra`` {links}, ``m``
{links} in all; the hidden cause is drawn uniformly among the causes of the outcome. Levels
``(n, m, k, extra, part)``: (5, 6, 2, 1, 1), (60, 96, 4, 2, 2), (64, 102, 4, 2, 2),
(68, 108, 5, 2, 3), (72, 114, 5, 2, 3), with 5, about 3450, 4000, 4500 and 4850 causes.

No reasoning-free sweep fits the budget from level 2 on: asking ``broken(1)``, ``broken(2)``,
... in turn (the same as checking the {links} one by one) finds the two hidden breaks only when
it reaches the later one, about two thirds of the way through the 85 to 100 {links} the
outcome leaves open, while a count at the middle of the {links} still in doubt halves them:
the oracle needs about ``log2(causes)`` turns (11 to 13). Level 1 stays small: 5 causes, a
scan fits.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from functools import cached_property, lru_cache
from itertools import combinations
from math import comb
from operator import itemgetter
from typing import Any

import numpy as np

from mtp_gym.games._graph import (
    Edge,
    ShownGraphGame,
    adjacency,
    all_pairs,
    bfs_distances,
    edge,
    format_edges,
    parse_edges,
    random_connected_graph,
)
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.domains import Story, nouns

HUB = 1


def cut_off(n: int, edges: tuple[Edge, ...], broken: tuple[Edge, ...]) -> tuple[int, ...]:
    """The nodes that cannot reach the hub once ``broken`` links fail."""
    gone = set(broken)
    reached = bfs_distances(adjacency(n, [e for e in edges if e not in gone]), HUB)
    return tuple(v for v in range(1, n + 1) if v not in reached)


def boundary(edges: tuple[Edge, ...], outcome: tuple[int, ...]) -> tuple[Edge, ...]:
    """The links with exactly one end cut off: every cause of ``outcome`` breaks all of them."""
    lost = set(outcome)
    return tuple(e for e in edges if (e[0] in lost) != (e[1] in lost))


def cycle_labels(n: int, links: list[Edge], root: int) -> dict[Edge, int]:
    """A bit mask per link of a connected network: bit ``i`` is set when the link lies on the
    ``i``-th fundamental cycle of a BFS tree from ``root``. Removing a set of links disconnects
    the network exactly when the masks of some non-empty subset of it XOR to 0 (the set holds a
    cut), so a bridge has mask 0 and two links with equal masks cut the network together."""
    adj = adjacency(n, links)
    parent = {root: 0}
    order = [root]
    for v in order:
        for w in adj[v]:
            if w not in parent:
                parent[w] = v
                order.append(w)
    tree = {edge(v, p) for v, p in parent.items() if p}
    below = dict.fromkeys(parent, 0)  # XOR of the cycle bits of the non-tree links at the node
    labels: dict[Edge, int] = {}
    for i, e in enumerate(x for x in links if x not in tree):
        labels[e] = 1 << i
        below[e[0]] ^= 1 << i
        below[e[1]] ^= 1 << i
    for v in reversed(order):  # a tree link's cycles: those with one end in the subtree below it
        p = parent[v]
        if p:
            labels[edge(v, p)] = below[v]
            below[p] ^= below[v]
    return labels


def _independent(links: list[Edge], labels: dict[Edge, int], r: int) -> list[tuple[Edge, ...]]:
    """Every ``r``-set of ``links`` whose masks are independent over GF(2) (no subset XORs to
    0: removing them all keeps the network connected), in ``combinations`` order."""
    if r == 0:
        return [()]
    if r == 1:
        return [(e,) for e in links if labels[e]]
    if r == 2:  # two links cut the network together exactly when their masks are equal
        return [(e, f) for e, f in combinations([e for e in links if labels[e]], 2) if labels[e] != labels[f]]
    out: list[tuple[Edge, ...]] = []
    chosen: list[Edge] = []

    def grow(start: int, basis: list[int]) -> None:
        if len(chosen) == r:
            out.append(tuple(chosen))
            return
        for i in range(start, len(links)):
            v = labels[links[i]]
            for b in basis:  # reduce by the basis (sorted by leading bit, high first)
                v = min(v, v ^ b)
            if v:
                chosen.append(links[i])
                grow(i + 1, sorted([*basis, v], reverse=True))
                chosen.pop()

    grow(0, [])
    return out


@lru_cache(maxsize=256)
def causes(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> tuple[tuple[Edge, ...], ...]:
    """Every ``k``-set of links whose failure cuts off exactly ``outcome``, sorted.

    Such a set breaks the boundary of the cut-off part and ``k - len(boundary)`` more links:
    any inside the cut-off part, and inside the rest only sets whose loss keeps it connected.
    """
    lost = set(outcome)
    cut = boundary(edges, outcome)
    extra = k - len(cut)
    if not lost or HUB in lost or extra < 0:
        return ()
    inside = [e for e in edges if e[0] in lost and e[1] in lost]
    rest = [e for e in edges if e[0] not in lost and e[1] not in lost]
    if len(bfs_distances(adjacency(n, rest), HUB)) != n - len(lost):
        return ()  # the rest is cut apart with no link broken at all
    labels = cycle_labels(n, rest, HUB)
    order = sorted(edges)
    index = {e: i for i, e in enumerate(order)}
    cut_at = [index[e] for e in cut]
    found: list[list[int]] = []
    for r in range(min(extra, len(rest)) + 1):
        inner = [tuple(index[e] for e in more) for more in combinations(inside, extra - r)]
        for gone in _independent(rest, labels, r):
            gone_at = [*cut_at, *(index[e] for e in gone)]
            found.extend(sorted(gone_at + list(more)) for more in inner)
    found.sort()
    return tuple(tuple(order[i] for i in cause) if k == 1 else itemgetter(*cause)(order) for cause in found)


def ruled_out(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> float:
    """The share of the ``k``-sets that break the forced boundary (what the outcome forces) that
    the outcome rules out: they would have cut off other nodes too."""
    cut = boundary(edges, outcome)
    total = comb(len(edges) - len(cut), k - len(cut)) if k >= len(cut) else 0
    return 1 - len(causes(n, edges, k, outcome)) / total if total else 0.0


class _Index:
    """Answer tables of one public part: a bit per link, a mask per cause, and the masks of the
    links with both ends at most / at least each node number."""

    def __init__(self, n: int, edges: tuple[Edge, ...], states: tuple[tuple[Edge, ...], ...]) -> None:
        self.bit: dict[tuple[int, ...], int] = {e: 1 << i for i, e in enumerate(edges)}
        self.masks = {s: self.mask(s) for s in states}
        self.first = [(1 << j) - 1 for j in range(len(edges) + 1)]  # the links #1 to #j

    def mask(self, links: Iterable[Sequence[int]]) -> int:
        """The bits of ``links`` (pairs as tuples or, from JSON, lists)."""
        return sum(self.bit.get(tuple(e), 0) for e in links)


@lru_cache(maxsize=64)
def _index(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> _Index:
    return _Index(n, edges, causes(n, edges, k, outcome))


class BrokenLink(ShownGraphGame):
    """Broken Link (graph, abductive): which broken links cut nodes off from the hub?

    Shown: a network with numbered links, its hub, ``k`` and the outcome: the nodes that can no
    longer reach the hub. Hidden: the ``k`` broken links (one of the causes of that outcome).
    Query: ``broken(j)`` (how many of the links ``#1..#j`` are broken?). Answer: the ``k`` broken
    links. Levels ``(n, links, k)``: (5, 6, 2), (60, 96, 4), (64, 102, 4), (68, 108, 5),
    (72, 114, 5): 5 to about 4850 causes.
    """

    name = "BrokenLink"
    structure = "graph"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "k": k, "extra": x, "part": p, "min_causes": lo, "max_causes": hi, "min_ruled_out": r}
        for n, m, k, x, p, lo, hi, r in (
            (6, 7, 2, 1, 1, 4, 5, 0.1),
            (60, 96, 4, 2, 2, 3200, 3700, 0.1),
            (64, 102, 4, 2, 2, 3750, 4250, 0.1),
            (68, 108, 5, 2, 3, 4250, 4700, 0.1),
            (72, 114, 5, 2, 3, 4700, 5200, 0.1),
        )
    )
    budgets = (9, 27, 29, 29, 30)
    transient = ("_table",)
    queries = (QuerySpec("broken", (int,), "how many of the {links} numbered from #1 up to this number are broken?"),)
    vocabulary = {
        "node": "node",
        "nodes": "nodes",
        "link": "link",
        "links": "links",
        "network": "network",
        "hub": "hub",
    }
    rules_template = (
        "A {network} joins the {nodes} numbered 1 to {n}; its {links}, numbered, are: {link_list}. "
        "{node_cap} 1 is the {hub}. Exactly {k} {links} have broken, and now {node_plural} {lost_list} "
        "can no longer reach the {hub}; every other {node} still can.\n"
        "Your goal is to find the {k} broken {links}. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the answer, submit the {k} broken {links} as pairs of {nodes}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "node nodes link links network hub",
        education={
            "node": "school building",
            "nodes": "school buildings",
            "link": "footpath",
            "links": "footpaths",
            "network": "campus path network",
            "hub": "main hall",
        },
        healthcare={
            "node": "clinic",
            "nodes": "clinics",
            "link": "courier route",
            "links": "courier routes",
            "network": "courier network",
            "hub": "central hospital",
        },
        transportation={"hub": "central station"},
        manufacturing={"node": "workstation", "nodes": "workstations", "hub": "loading dock"},
        law={
            "node": "court office",
            "nodes": "court offices",
            "link": "secure line",
            "links": "secure lines",
            "network": "court communication network",
            "hub": "central registry",
        },
    )
    story = Story(
        setting="In a {network}, the {nodes} numbered 1 to {n} are connected by these {links}, each with "
        "its own tag: {link_list}. {node_cap} 1 serves as the {hub}. {k} of the {links}, no more and no "
        "fewer, have failed; as a result {node_plural} {lost_list} can no longer get to the {hub}, while every "
        "other {node} still can.\nTrack down the {k} failed {links}.",
        answer="those {k} failed {links}, each written as a pair of {nodes}",
        queries={
            "broken": "among the {links} tagged #1 through the tag given here, how many failed?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        edges = self.public.get("edges") or all_pairs(self.params["n"])
        return "<answer>" + format_edges(tuple(edges)[: self.params["k"]]) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        """A cut-off part of 1..``part`` nodes and the rest, each a random connected network,
        joined by exactly ``k - extra`` links; kept when the outcome has ``min_causes`` to
        ``max_causes`` causes and rules out at least ``min_ruled_out`` of the ways to place the
        hidden breaks beside the forced ones (the outcome must constrain the cause)."""
        p = cls.levels[level - 1]
        n, m, k, across = p["n"], p["m"], p["k"], p["k"] - p["extra"]
        while True:
            size = int(rng.integers(1, p["part"] + 1))
            order = [HUB] + [int(v) + 2 for v in rng.permutation(n - 1)]
            lost, rest = sorted(order[n - size :]), order[: n - size]
            inner = size - 1 + int(rng.integers((size - 1) * (size - 2) // 2 + 1))
            edges = set()
            if size > 1:
                edges |= {edge(lost[a - 1], lost[b - 1]) for a, b in random_connected_graph(size, inner, rng)}
            edges |= {
                edge(rest[a - 1], rest[b - 1]) for a, b in random_connected_graph(n - size, m - across - inner, rng)
            }
            pairs = [edge(a, b) for a in lost for b in rest]
            edges |= {pairs[int(i)] for i in rng.choice(len(pairs), size=across, replace=False)}
            shown, cut_off = tuple(sorted(edges)), tuple(lost)
            found = len(causes(n, shown, k, cut_off))
            if p["min_causes"] <= found <= p["max_causes"] and ruled_out(n, shown, k, cut_off) >= p["min_ruled_out"]:
                return {"edges": shown, "lost": cut_off}

    def rules_fields(self) -> dict[str, Any]:
        lost = self.public["lost"]
        return {
            **super().rules_fields(),
            "link_list": ", ".join(f"#{j} {a}-{b}" for j, (a, b) in enumerate(self.edges, 1)),
            "lost_list": ", ".join(str(v) for v in lost),
            "node_cap": self.vocab["node"][:1].upper() + self.vocab["node"][1:],
            "node_plural": self.vocab["node"] if len(lost) == 1 else self.vocab["nodes"],
        }

    def _key(self) -> tuple[int, tuple[Edge, ...], int, tuple[int, ...]]:
        """The level's size and the public graph and outcome as hashable tuples."""
        return self.params["n"], self.edges, self.params["k"], tuple(self.public["lost"])

    def candidate_states(self) -> tuple[tuple[Edge, ...], ...]:
        return causes(*self._key())

    @cached_property
    def _table(self) -> _Index:
        """The answer tables of this public part (shared by instances; left out of pickles)."""
        return _index(*self._key())

    def query_args(self, name: str) -> list[tuple]:
        return [(j,) for j in range(1, len(self.public["edges"]) + 1)]

    def example_args(self, name: str) -> tuple:
        return (len(self.public["edges"]) // 2,)

    def respond(self, hidden: tuple[Edge, ...], name: str, args: tuple) -> Hashable:
        table = self._table
        mask = table.masks.get(hidden)
        if mask is None:  # a set of links that is no cause of this outcome (tests, probes)
            mask = table.mask(hidden)
        return (mask & table.first[args[0]]).bit_count()

    def parse_answer(self, text: str) -> tuple[Edge, ...]:
        edges = [tuple(e) for e in self.public["edges"]]
        return parse_edges(text, edges, self.params["k"], self.answer_format)

    def format_answer(self, target: tuple[Edge, ...]) -> str:
        return format_edges(target)
