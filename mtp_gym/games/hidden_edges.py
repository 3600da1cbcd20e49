"""Hidden Edges (graph, deductive): find the hidden edge set of a graph from edge and degree facts.

The env hides a graph on the {nodes} ``1..n`` with exactly ``m`` {edges} (``n`` and ``m`` are
told). Queries: ``edge(a, b)`` (are ``a`` and ``b`` joined?) and ``degree(a)`` (how many
{edges} touch ``a``?). The agent submits the whole edge set; it follows deductively from the
replies (asking every ``edge(a, b)`` always suffices). Levels grow ``(n, m)``: (4, 2), (5, 3),
(6, 3), (6, 4), (7, 4), i.e. C(C(n,2), m) = 15, 120, 455, 1365, 5985 states.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import combinations

from mtp_gym.games._graph import Edge, all_pairs, format_edges, parse_edges
from mtp_gym.games.base import Game, QuerySpec


@cache
def _edge_sets(n: int, m: int) -> tuple[tuple[Edge, ...], ...]:
    return tuple(combinations(all_pairs(n), m))


class HiddenEdges(Game):
    name = "HiddenEdges"
    structure = "graph"
    inference = "deductive"
    levels = tuple({"n": n, "m": m} for n, m in ((4, 2), (5, 3), (6, 3), (6, 4), (7, 4)))
    budgets = (9, 11, 15, 17, 19)
    queries = (
        QuerySpec("edge", (int, int), "is there an {edge} between these two {nodes} (smaller number first)?"),
        QuerySpec("degree", (int,), "how many {edges} touch this {node}?"),
    )
    vocabulary = {"node": "node", "nodes": "nodes", "edge": "edge", "edges": "edges", "graph": "graph"}
    rules_template = (
        "I have drawn a hidden {graph} on the {nodes} numbered 1 to {n}, with exactly {m} {edges}; "
        "an {edge} joins two different {nodes} and no two {edges} join the same pair. Your goal is to "
        "find every {edge} of the hidden {graph}. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the answer, submit all {m} {edges} as pairs of {nodes}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + format_edges(all_pairs(self.params["n"])[: self.params["m"]]) + "</answer>"

    def candidate_states(self) -> tuple[tuple[Edge, ...], ...]:
        return _edge_sets(self.params["n"], self.params["m"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name == "edge":
            return all_pairs(n)
        return [(a,) for a in range(1, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (1, 3) if name == "edge" else (2,)

    def respond(self, hidden: tuple[Edge, ...], name: str, args: tuple) -> Hashable:
        if name == "edge":
            return args in hidden
        return sum(args[0] in e for e in hidden)

    def parse_answer(self, text: str) -> tuple[Edge, ...]:
        return parse_edges(text, all_pairs(self.params["n"]), self.params["m"], self.answer_format)

    def format_answer(self, target: Hashable) -> str:
        return format_edges(target)
