"""Broken Link (graph, abductive): which broken {links} explain the {nodes} cut off from the {hub}?

The rules show a connected {network} on the {nodes} ``1..n`` (its {links}), its {hub} ``1``,
and an observed outcome: exactly ``k`` {links} have broken, and after the failure these
{nodes} can no longer reach the {hub} (the others still can). The hidden cause is the set of
``k`` broken {links}; several sets usually explain the same outcome (a break inside the
cut-off part, or one the rest of the {network} routes around, changes nothing observed), so
the agent tests hypotheses with ``working(a, b)`` (is this {link} still working?) and
``reach(a, b)`` (can ``a`` still reach ``b``?) and submits the broken {links}: backward
reasoning from an observed effect to its cause.

Configurations: a random connected {network} and a random failure of ``k`` {links} with a
non-empty cut-off set (the outcome shown); the hidden cause is then drawn uniformly among all
``k``-sets of {links} that produce exactly this outcome, resampling until there are at least
``min_causes`` of them. Levels grow ``(n, links, k)``: (5, 6, 2), (6, 8, 2), (7, 10, 3),
(8, 12, 3), (10, 15, 4); the hidden space (the causes of the shown outcome) has 5, 6-7, 27-36,
36-55, 53-364 states over the benchmark split.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from mtp_gym.games._graph import (
    Edge,
    ShownGraphGame,
    adjacency,
    all_pairs,
    bfs_distances,
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


@lru_cache(maxsize=256)
def causes(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> tuple[tuple[Edge, ...], ...]:
    """Every ``k``-set of links whose failure cuts off exactly ``outcome``."""
    return tuple(s for s in combinations(edges, k) if cut_off(n, edges, s) == outcome)


@lru_cache(maxsize=1 << 16)
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


class BrokenLink(ShownGraphGame):
    name = "BrokenLink"
    structure = "graph"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "k": k, "min_causes": c}
        for n, m, k, c in ((5, 6, 2, 3), (6, 8, 2, 5), (7, 10, 3, 10), (8, 12, 3, 20), (10, 15, 4, 40))
    )
    budgets = (9, 11, 15, 17, 21)
    queries = (
        QuerySpec(
            "working", (int, int), "is the {link} between these two {nodes} still working (smaller number first)?"
        ),
        QuerySpec("reach", (int, int), "can these two {nodes} still reach each other (smaller number first)?"),
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
        p = cls.levels[level - 1]
        while True:
            edges = random_connected_graph(p["n"], p["m"], rng)
            pick = rng.choice(len(edges), size=p["k"], replace=False)
            outcome = cut_off(p["n"], edges, tuple(sorted(edges[int(i)] for i in pick)))
            if outcome and len(causes(p["n"], edges, p["k"], outcome)) >= p["min_causes"]:
                return {"edges": edges, "lost": outcome}

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
        if name == "working":
            return [tuple(e) for e in self.public["edges"]]
        return all_pairs(self.params["n"])

    def example_args(self, name: str) -> tuple:
        return tuple(self.public["edges"][0]) if name == "working" else (2, 3)

    def respond(self, hidden: tuple[Edge, ...], name: str, args: tuple) -> Hashable:
        if name == "working":
            return args not in hidden
        label = _components(self.params["n"], self._key()[0], hidden)
        return label[args[0] - 1] == label[args[1] - 1]

    def parse_answer(self, text: str) -> tuple[Edge, ...]:
        edges = [tuple(e) for e in self.public["edges"]]
        return parse_edges(text, edges, self.params["k"], self.answer_format)

    def format_answer(self, target: Hashable) -> str:
        return format_edges(target)
