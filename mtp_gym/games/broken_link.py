"""Broken Link (graph, abductive): which broken {links} explain the {nodes} cut off from the {hub}?

The rules show a connected {network} on the {nodes} ``1..n`` (its {links}), its {hub} ``1``,
and an observed outcome: exactly ``k`` {links} have broken, and after the failure these
{nodes} can no longer reach the {hub} (the others still can). The hidden cause is the set of
``k`` broken {links}. The outcome pins part of it: every {link} between a cut-off {node} and
one that still reaches the {hub} is broken. The other ``extra`` broken {links} left no trace
in it: each lies inside the cut-off part, or inside the rest where the {network} routes around
it (never two that together cut the rest apart). So many causes explain the same outcome, and
the agent tests them with ``working(a, b)`` (is this one {link} still working?), ``reach(a, b)``
(can ``a`` still reach ``b``?) and ``broken(a, b)`` (how many broken {links} have an end among
the {nodes} numbered ``a`` to ``b``; ``broken(v, v)``: how many of the {links} at {node} ``v``
are broken), then submits the ``k`` broken {links}: backward reasoning from an observed effect
to its cause.

Configurations: a cut-off part of 1 to ``part`` {nodes} (random numbers, never the {hub}) and
the rest, each a random connected {network}, joined by exactly ``k - extra`` {links}, ``m``
{links} in all; the hidden cause is drawn uniformly among all the causes of this outcome.
Levels ``(n, m, k, extra, part)``: (5, 6, 2, 1, 1), (16, 42, 4, 2, 2), (16, 46, 4, 2, 2),
(16, 52, 5, 2, 3), (16, 58, 5, 2, 3): the outcome leaves 5, 40, 44, 49 and 55 {links} open,
and the hidden space (the causes of the shown outcome) has 5, 741-780, 903-946, 1175-1176 and
1485 states over the benchmark split.

No linear scan from level 2 on: the open {links} are more than twice the turn budget, so one
``working`` query per {link} cannot finish (it wins 1-2 of 20 configurations per level, when
both other breaks come early in the list), while the ``broken`` counts over ranges of {nodes}
split the causes: the oracle wins every configuration, in about ``log2(causes)`` turns (8.2 to
9.1 on average for 9.6 to 10.5 bits; ``tests/test_broken_link.py``). Level 1 stays small: 5 causes, a scan fits.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cached_property, lru_cache, partial
from itertools import combinations
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


@lru_cache(maxsize=256)
def causes(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> tuple[tuple[Edge, ...], ...]:
    """Every ``k``-set of links whose failure cuts off exactly ``outcome``, sorted.

    Such a set breaks the boundary of the cut-off part and ``k - len(boundary)`` more links:
    any inside the cut-off part, and inside the rest only ones whose loss keeps it connected.
    """
    lost = set(outcome)
    cut = boundary(edges, outcome)
    extra = k - len(cut)
    if not lost or HUB in lost or extra < 0:
        return ()
    inside = [e for e in edges if e[0] in lost and e[1] in lost]
    rest = [e for e in edges if e[0] not in lost and e[1] not in lost]
    found = []
    for r in range(min(extra, len(rest)) + 1):
        for gone in combinations(rest, r):
            kept = [e for e in rest if e not in gone]
            if len(bfs_distances(adjacency(n, kept), HUB)) != n - len(lost):
                continue
            found.extend(tuple(sorted(cut + gone + more)) for more in combinations(inside, extra - r))
    return tuple(sorted(found))


def _components(n: int, edges: tuple[Edge, ...], broken: tuple[Edge, ...]) -> tuple[int, ...]:
    """Component label of every node (index ``v - 1``) in the network without ``broken``."""
    gone = set(broken)
    adj = adjacency(n, [e for e in edges if e not in gone])
    label = [0] * n
    for v in range(1, n + 1):
        if not label[v - 1]:
            for w in bfs_distances(adj, v):
                label[w - 1] = v
    return tuple(label)


def _range_counts(n: int, broken: tuple[Edge, ...]) -> list[int]:
    """``broken(a, b)`` of every range ``a <= b`` at index ``(a - 1) * n + b - 1``: how many
    links of ``broken`` have an end among the nodes ``a..b``."""
    at: list[list[int]] = [[] for _ in range(n + 1)]
    for i, (a, b) in enumerate(broken):
        at[a].append(i)
        at[b].append(i)
    counts = [0] * (n * n)
    for a in range(1, n + 1):
        seen: set[int] = set()
        for b in range(a, n + 1):
            seen.update(at[b])
            counts[(a - 1) * n + b - 1] = len(seen)
    return counts


class BrokenLink(ShownGraphGame):
    name = "BrokenLink"
    structure = "graph"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "k": k, "extra": x, "part": p, "min_causes": c}
        for n, m, k, x, p, c in (
            (5, 6, 2, 1, 1, 4),
            (16, 42, 4, 2, 2, 700),
            (16, 46, 4, 2, 2, 850),
            (16, 52, 5, 2, 3, 1100),
            (16, 58, 5, 2, 3, 1400),
        )
    )
    budgets = (7, 17, 17, 18, 19)
    transient = ("_tables",)
    queries = (
        QuerySpec(
            "working", (int, int), "is the {link} between these two {nodes} still working (smaller number first)?"
        ),
        QuerySpec("reach", (int, int), "can these two {nodes} still reach each other (smaller number first)?"),
        QuerySpec(
            "broken",
            (int, int),
            "how many broken {links} have an end among the {nodes} numbered from the first to the second "
            "(inclusive; the same {node} twice: how many of its {links} are broken)?",
        ),
    )
    vocabulary = {
        "node": "node",
        "nodes": "nodes",
        "link": "link",
        "links": "links",
        "network": "network",
        "hub": "hub",
    }
    rules_template = (
        "A {network} joins the {nodes} numbered 1 to {n}; its {links} are: {edge_list}. "
        "{node_cap} 1 is the {hub}. Exactly {k} {links} have broken, and now {node_plural} {lost_list} "
        "can no longer reach the {hub}; every other {node} still can.\n"
        "Your goal is to find the {k} broken {links}. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the answer, submit the {k} broken {links} as pairs of {nodes}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        edges = self.public.get("edges") or all_pairs(self.params["n"])
        return "<answer>" + format_edges(tuple(edges)[: self.params["k"]]) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        """A cut-off part of 1..``part`` nodes and the rest, each a random connected network,
        joined by exactly ``k - extra`` links (no rejection but a guard on ``min_causes``)."""
        p = cls.levels[level - 1]
        n, m, across = p["n"], p["m"], p["k"] - p["extra"]
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
            public = {"edges": tuple(sorted(edges)), "lost": tuple(lost)}
            if len(causes(n, public["edges"], p["k"], public["lost"])) >= p["min_causes"]:
                return public

    def rules_fields(self) -> dict[str, Any]:
        lost = self.public["lost"]
        return {
            **super().rules_fields(),
            "lost_list": ", ".join(str(v) for v in lost),
            "node_cap": self.vocab["node"][:1].upper() + self.vocab["node"][1:],
            "node_plural": self.vocab["node"] if len(lost) == 1 else self.vocab["nodes"],
        }

    def _key(self) -> tuple[tuple[Edge, ...], tuple[int, ...]]:
        """The public graph and outcome as hashable tuples (computed once per instance)."""
        return self.edges, tuple(self.public["lost"])

    def candidate_states(self) -> tuple[tuple[Edge, ...], ...]:
        edges, lost = self._key()
        return causes(self.params["n"], edges, self.params["k"], lost)

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name == "working":
            return [tuple(e) for e in self.public["edges"]]
        if name == "broken":
            return [(a, b) for a in range(1, n + 1) for b in range(a, n + 1)]
        return all_pairs(n)

    def example_args(self, name: str) -> tuple:
        if name == "working":
            return tuple(self.public["edges"][0])
        return (2, 3) if name == "reach" else (2, self.params["n"] // 2)

    @cached_property
    def _tables(self) -> dict[str, dict[tuple[Edge, ...], Any]]:
        """Per state, the ``broken`` counts of every range and the component label of every
        node, built on the first question about that state (the oracle asks every query of
        every candidate); left out of pickles."""
        return {"broken": {}, "reach": {}}

    def respond(self, hidden: tuple[Edge, ...], name: str, args: tuple) -> Hashable:
        if name == "working":
            return args not in hidden
        n = self.params["n"]
        table = self._tables[name].get(hidden)
        if table is None:
            build = _range_counts if name == "broken" else partial(_components, edges=self._key()[0])
            table = self._tables[name][hidden] = build(n, broken=hidden)
        if name == "broken":
            return table[(args[0] - 1) * n + args[1] - 1]
        return table[args[0] - 1] == table[args[1] - 1]

    def parse_answer(self, text: str) -> tuple[Edge, ...]:
        edges = [tuple(e) for e in self.public["edges"]]
        return parse_edges(text, edges, self.params["k"], self.answer_format)

    def format_answer(self, target: Hashable) -> str:
        return format_edges(target)
