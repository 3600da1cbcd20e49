"""Hidden Node (graph, deductive): find the hidden {node} of a shown graph from distance facts.

The rules show a connected {graph} on the {nodes} ``1..n`` (its {edges}); the env hides one
{node}. The only query is ``within(d, x)``: is the hidden {node} at most ``d`` {steps} from
{node} ``x`` (``d`` = 0 to ``D``; a {step} follows one {edge}; the number of {steps} comes
first)? The agent submits the {node}; it follows deductively from the replies and the shown
{edges} (``within(0, x)`` for every ``x`` always suffices; intersecting neighbourhoods needs far
fewer).

The {graph} is a random tree with an extra {edge} at every leaf (so no {node} hangs alone off
another: two leaves of one {node} could only be told apart one by one) and a few more random
{edges}. Levels ``(n, m, D)``: (6, 7, 2), then 90 to 140 {nodes} with ``D`` = 3: (90, 112),
(105, 131), (120, 150), (140, 175). The hidden space is the ``n`` {nodes}. From level 2 the
{nodes} far outnumber the turns: the questions in their natural order start with the 0-{step}
ones ("is it this {node}?"), so a sweep in that order fits the budget only when the hidden
{node} comes among the first fifth (14-19% of the draws), while a ball of the right size
around the right {node} halves the candidates: the oracle needs about ``log2(n) + 1`` turns.

Only log2(n) bits are hidden and a ball question splits almost any set of candidates, so the
lever is that order: a sweep asking the largest balls first (``within(3, x)`` for every ``x``,
then 2, ...) asks about as many useful questions as the oracle and fits the budget in every
configuration of the split; one asking every radius around a {node} before the next {node}
fits in about half of them.

Version History: v0 (issue 25) the number of {steps} comes first (was the {node}), ``D`` = 3
from level 2, and levels 2-5 rebuilt on 90 to 140 {nodes} (were 9 to 25: a sweep of the
questions in order fit the budget).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from mtp_gym.games._draws import ExactDraws
from mtp_gym.games._graph import (
    Edge,
    ShownGraphGame,
    add_other_pairs,
    adjacency,
    bfs_distances,
    edge,
    random_connected_graph,
)
from mtp_gym.games.base import QuerySpec, answer_number
from mtp_gym.games.domains import Story, nouns


def graph_without_leaves(n: int, m: int, rng: np.random.Generator) -> tuple[Edge, ...]:
    """A connected graph on ``1..n`` with ``m`` edges and no node of degree 1: a random tree
    (:func:`~mtp_gym.games._graph.random_connected_graph`), an edge from every leaf to a random
    other node, then random extra edges up to ``m`` (more if the leaves needed them)."""
    edges = set(random_connected_graph(n, n - 1, rng))
    adj = adjacency(n, edges)
    with ExactDraws(rng) as draws:  # rng.integers(n - 2) per leaf
        for v in range(1, n + 1):
            if len(adj[v]) == 1:
                u = draws.integers(n - 2) + 1  # that index of the nodes but v and its neighbour, in order
                for skipped in sorted((v, adj[v][0])):
                    u += u >= skipped
                edges.add(edge(u, v))
                adj[u].append(v)
                adj[v].append(u)
    if len(edges) < m:
        add_other_pairs(n, edges, m - len(edges), rng)
    return tuple(sorted(edges))


@lru_cache(maxsize=256)
def _distance_table(n: int, edges: tuple[Edge, ...]) -> tuple[dict[int, list[int]], dict[int, dict[int, int]]]:
    """A graph's adjacency and its hop distances by source, empty at first:
    :meth:`HiddenNode.respond` fills a source's row when it first needs it."""
    return adjacency(n, edges), {}


class HiddenNode(ShownGraphGame):
    """Hidden Node (graph, deductive): find a hidden node of a shown graph from distance facts.

    Shown: a connected graph. Hidden: one node. Query: ``within(d, x)`` (is the hidden node at
    most ``d`` steps from node ``x``?, ``d`` from 0 to ``D``, Yes/No). Answer: the node. Levels
    ``(nodes, D)``: (6, 2), (90, 3), (105, 3), (120, 3), (140, 3).
    """

    name = "HiddenNode"
    structure = "graph"
    inference = "deductive"
    levels = tuple(
        {"n": n, "m": m, "D": d} for n, m, d in ((6, 7, 2), (90, 112, 3), (105, 131, 3), (120, 150, 3), (140, 175, 3))
    )
    budgets = (9, 18, 19, 19, 21)
    transient = ("_dist_cache",)
    queries = (
        QuerySpec(
            "within",
            (int, int),
            "is the hidden {node} at most this many {steps} (0 to {D}) away from this {node}?",
        ),
    )
    vocabulary = {
        "node": "node",
        "nodes": "nodes",
        "edges": "edges",
        "graph": "graph",
        "step": "step",
        "steps": "steps",
    }
    rules_template = (
        "Here is a {graph} on the {nodes} numbered 1 to {n}; its {edges} are: {edge_list}. "
        "A {step} goes along one of these {edges}, in either direction.\n"
        "I have selected a hidden {node}. Your goal is to find it. You may ask one question per turn "
        "using the following format (first the number of {steps}, then the {node}):\n{query_formats}\n"
        "When you know the answer, submit the hidden {node}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>3</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "node nodes edges graph step steps",
        education={"step": "handshake", "steps": "handshakes"},
        healthcare={"step": "transmission step", "steps": "transmission steps"},
        transportation={"step": "ride", "steps": "rides"},
        manufacturing={"step": "transfer", "steps": "transfers"},
        law={"step": "degree of separation", "steps": "degrees of separation"},
    )
    story = Story(
        setting="A {graph} has the {nodes} numbered 1 to {n}, joined by these {edges}: {edge_list}. "
        "One {step} crosses a single one of them, either way.\nOne of its {nodes} was picked out of sight; find "
        "which one. A question gives a number of {steps} first and a {node} second.",
        answer="the picked {node}",
        queries={
            "within": "taking this many {steps} (0 to {D}) or fewer from that {node}, could one arrive at the "
            "picked {node}?"
        },
    )

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        return {"edges": graph_without_leaves(p["n"], p["m"], rng)}

    def _distances(self) -> tuple[dict[int, list[int]], dict[int, dict[int, int]]]:
        """Hop distances of the shown graph by source node, filled one source at a time as
        replies need them and shared by every instance of the same graph (a cycled split
        resets to the same graphs; an episode asks about a few sources, not all ``n``)."""
        dist = getattr(self, "_dist_cache", None)
        if dist is None:
            dist = self._dist_cache = _distance_table(self.params["n"], tuple(map(tuple, self.public["edges"])))
        return dist

    def candidate_states(self) -> tuple[int, ...]:
        return tuple(range(1, self.params["n"] + 1))

    def query_args(self, name: str) -> list[tuple]:
        return [(d, x) for d in range(self.params["D"] + 1) for x in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (1, 2)

    def respond(self, hidden: int, name: str, args: tuple) -> Hashable:
        adj, rows = self._distances()
        row = rows.get(args[1])
        if row is None:
            row = rows[args[1]] = bfs_distances(adj, args[1])
        return row[hidden] <= args[0]

    def _why_illegal(self, name: str, args: tuple) -> str:
        why = super()._why_illegal(name, args)
        d, x = args
        if 0 <= x <= self.params["D"] and 1 <= d <= self.params["n"]:  # the node given first, it seems
            why += (
                f" (first the number of {self.vocab['steps']}, 0 to {self.params['D']}, then the {self.vocab['node']})"
            )
        return why

    def parse_answer(self, text: str) -> int:
        n = self.params["n"]
        message = f"submit one {self.vocab['node']} number from 1 to {n}, as {self.answer_format}."
        return answer_number(text, range(1, n + 1), message)
