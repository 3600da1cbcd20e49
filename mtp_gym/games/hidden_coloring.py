"""Hidden Coloring (graph, deductive): find a hidden proper 3-colouring of a shown graph.

The rules show a connected graph on the {nodes} ``1..n`` (its {edges}). The env has split the
{nodes} into at most 3 {groups} so that no {edge} joins two {nodes} of the same {group} (a
proper 3-colouring, {groups} unlabelled). Queries: ``same(a, b)`` (are ``a`` and ``b`` in the
same {group}?) and ``size(a)`` (how many {nodes} are in ``a``'s {group}, ``a`` included?). The
agent submits the partition; it follows deductively from the replies and the {edge}
constraints (asking every ``same`` always suffices; a {node} differs from its neighbours and
only 3 {groups} exist, so far fewer questions do: constraint propagation).

Levels grow the graph, ``(n nodes, m edges)``: (5, 4), (7, 7), (9, 10), (11, 12), (13, 15)
(a random spanning tree plus random extra edges, resampled until 3-colourable); the hidden
space is every proper partition into at most 3 {groups}: 8, 16-24, 32-80, 128-288, 256-1024
states over the benchmark split.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games._graph import ShownGraphGame, adjacency, all_pairs, parse_ints, random_connected_graph
from mtp_gym.games.base import QuerySpec

Labels = tuple[int, ...]

COLOURS = 3


@lru_cache(maxsize=256)
def proper_partitions(n: int, edges: tuple[tuple[int, int], ...], colours: int = COLOURS) -> tuple[Labels, ...]:
    """Every proper colouring of nodes ``1..n`` with at most ``colours`` unlabelled colours.

    A partition is its canonical label tuple: node 1 has label 0 and each new label is the
    next unused one (restricted growth), so each partition appears exactly once.
    """
    adj = adjacency(n, edges)
    out: list[Labels] = []
    labels = [0] * (n + 1)

    def extend(v: int, used: int) -> None:
        if v > n:
            out.append(tuple(labels[1:]))
            return
        for c in range(min(used + 1, colours)):
            if all(labels[w] != c for w in adj[v] if w < v):
                labels[v] = c
                extend(v + 1, max(used, c + 1))

    extend(1, 0)
    return tuple(out)


def groups_of(labels: Labels) -> tuple[tuple[int, ...], ...]:
    """The partition as sorted groups of node numbers, sorted by smallest node."""
    groups: dict[int, list[int]] = {}
    for v, c in enumerate(labels, start=1):
        groups.setdefault(c, []).append(v)
    return tuple(tuple(g) for g in sorted(groups.values()))


def canonical(groups: list[list[int]], n: int) -> Labels:
    """Canonical label tuple of a partition of ``1..n`` given as groups."""
    owner = {v: i for i, g in enumerate(groups) for v in g}
    relabel: dict[int, int] = {}
    return tuple(relabel.setdefault(owner[v], len(relabel)) for v in range(1, n + 1))


class HiddenColoring(ShownGraphGame):
    name = "HiddenColoring"
    structure = "graph"
    inference = "deductive"
    levels = tuple({"n": n, "m": m} for n, m in ((5, 4), (7, 7), (9, 10), (11, 12), (13, 15)))
    budgets = (8, 9, 10, 14, 16)
    queries = (
        QuerySpec("same", (int, int), "are these two {nodes} in the same {group} (smaller number first)?"),
        QuerySpec("size", (int,), "how many {nodes} are in this {node}'s {group}, itself included?"),
    )
    vocabulary = {
        "node": "node",
        "nodes": "nodes",
        "edge": "edge",
        "edges": "edges",
        "graph": "graph",
        "group": "colour group",
        "groups": "colour groups",
    }
    rules_template = (
        "Here is a {graph} on the {nodes} numbered 1 to {n}; its {edges} are: {edge_list}.\n"
        "I have split the {nodes} into at most 3 hidden {groups} so that no {edge} joins two {nodes} "
        "of the same {group} (the {groups} have no names or order). Your goal is to find the {groups}. "
        "You may ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {groups}, {nodes} separated by commas and {groups} "
        "by a vertical bar:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        if self.public:  # a proper colouring of the shown graph, picked without looking at the hidden one
            return f"<answer>{self.format_answer(self.target(self.candidate_states()[0]))}</answer>"
        n = self.params["n"]
        third = max(1, n // 3)
        parts = [range(1, third + 1), range(third + 1, 2 * third + 1), range(2 * third + 1, n + 1)]
        return "<answer>" + " | ".join(", ".join(str(v) for v in p) for p in parts) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        while True:
            edges = random_connected_graph(p["n"], p["m"], rng)
            if proper_partitions(p["n"], edges):
                return {"edges": edges}

    def candidate_states(self) -> tuple[Labels, ...]:
        return proper_partitions(self.params["n"], self.edges)

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        return all_pairs(n) if name == "same" else [(a,) for a in range(1, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (1, 3) if name == "same" else (2,)

    def respond(self, hidden: Labels, name: str, args: tuple) -> Hashable:
        if name == "same":
            return hidden[args[0] - 1] == hidden[args[1] - 1]
        c = hidden[args[0] - 1]
        return sum(x == c for x in hidden)

    def parse_answer(self, text: str) -> Labels:
        n = self.params["n"]
        groups = [parse_ints(part) for part in re.split(r"[|;]", text)]
        groups = [g for g in groups if g]
        nodes = sorted(v for g in groups for v in g)
        if nodes != list(range(1, n + 1)):
            raise InvalidAction(
                f"list every {self.vocab['node']} 1 to {n} exactly once, {self.vocab['groups']} "
                f"separated by '|', as {self.answer_format}."
            )
        labels = canonical(groups, n)
        if labels not in self.candidate_states():
            raise InvalidAction(
                f"submit a proper colouring: at most {COLOURS} {self.vocab['groups']}, no {self.vocab['edge']} "
                f"inside one, separated by '|', as {self.answer_format}."
            )
        return labels

    def format_answer(self, target: Hashable) -> str:
        return " | ".join(", ".join(str(v) for v in g) for g in groups_of(target))
