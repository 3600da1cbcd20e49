"""Hidden Edges (graph, deductive): find the hidden edge set of a graph from edge facts and edge counts.

The env hides a graph on the {nodes} ``1..n`` with exactly ``m`` {edges} (``n`` and ``m`` are
told). Queries: ``edge(a, b)`` (are ``a`` and ``b`` joined?), ``below(v)`` (how many {edges}
join two {nodes} both numbered ``v`` or lower?) and ``above(v)`` (... both numbered ``v`` or
higher?). The agent submits the whole edge set; it follows deductively from the replies (asking
every ``edge(a, b)`` always suffices).

Levels grow ``(n, m)``: (4, 2), (12, 2), (14, 2), (16, 2), (18, 2), i.e. C(C(n,2), m) = 15, 2145,
4095, 7140 and 11628 states. From level 2 no reasoning-free sweep fits the budget: the graph is
sparse, so a read-off of the pairs in order meets a hidden {edge} about once in 30 to 75 pairs;
a ``below`` count per {node} number in order reads off the larger end of each {edge} one number
at a time and leaves the smaller ends open (``above`` the other way round). A count aimed at the
middle of the numbers still in doubt halves them, and a pair is asked only when both its ends
are pinned down: the oracle needs about ``log2(states)`` turns.

Version History: v0 (issue 25) ``degree(a)`` replaced by the ``below``/``above`` counts (a
degree per {node} lists the ends of the {edges}, leaving only their pairing open) and levels
2-5 rebuilt around sparse graphs on more {nodes} (were (5, 3) to (7, 4): a read-off of every
pair fit the budget).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import combinations

from mtp_gym.games._graph import Edge, all_pairs, format_edges, parse_edges
from mtp_gym.games.base import Game, QuerySpec
from mtp_gym.games.domains import Story, nouns


@cache
def _edge_sets(n: int, m: int) -> tuple[tuple[Edge, ...], ...]:
    return tuple(combinations(all_pairs(n), m))


class HiddenEdges(Game):
    """Hidden Edges (graph, deductive): find the hidden edges of a graph on ``1..n``.

    Hidden: a graph with exactly ``m`` edges (``n`` and ``m`` told). Queries: ``edge(a, b)`` (are
    ``a`` and ``b`` joined?, Yes/No), ``below(v)`` and ``above(v)`` (how many edges join two nodes
    both numbered at most / at least ``v``?). Answer: the ``m`` edges. Levels ``(n, m)``: (4, 2),
    (12, 2), (14, 2), (16, 2), (18, 2): 15 to 11628 graphs.
    """

    name = "HiddenEdges"
    structure = "graph"
    inference = "deductive"
    levels = tuple({"n": n, "m": m} for n, m in ((4, 2), (12, 2), (14, 2), (16, 2), (18, 2)))
    budgets = (11, 25, 27, 29, 31)
    queries = (
        QuerySpec("edge", (int, int), "is there an {edge} between these two {nodes} (smaller number first)?"),
        QuerySpec("below", (int,), "how many {edges} join two {nodes} that are both numbered this or lower?"),
        QuerySpec("above", (int,), "how many {edges} join two {nodes} that are both numbered this or higher?"),
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

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "node nodes edge edges graph",
        # the rules say "an {edge}": nouns starting with a vowel sound
        education={"edge": "acquaintance", "edges": "acquaintances"},
        healthcare={"edge": "exposure", "edges": "exposures"},
        transportation={"edge": "express line", "edges": "express lines"},
        manufacturing={"edge": "assembly link", "edges": "assembly links"},
        law={"edge": "affiliation", "edges": "affiliations"},
    )
    story = Story(
        setting="Out of sight, a {graph} was drawn on the {nodes} numbered 1 to {n}. It has {m} "
        "{edges} in all, each between two different {nodes}, and no pair of {nodes} is joined twice. "
        "Recover every one of its {edges}.",
        answer="all {m} {edges}, each written as a pair of {nodes}",
        queries={
            "edge": "do these two {nodes} share an {edge}? (give the smaller number first)",
            "below": "how many {edges} run between two {nodes} whose numbers are both at most this one?",
            "above": "how many {edges} run between two {nodes} whose numbers are both at least this one?",
        },
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
        return [(v,) for v in range(1, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (1, 3) if name == "edge" else (self.params["n"] // 2,)

    def respond(self, hidden: tuple[Edge, ...], name: str, args: tuple) -> Hashable:
        if name == "edge":
            return args in hidden
        v = args[0]
        if name == "below":
            return sum(b <= v for _, b in hidden)
        return sum(a >= v for a, _ in hidden)

    def parse_answer(self, text: str) -> tuple[Edge, ...]:
        return parse_edges(text, all_pairs(self.params["n"]), self.params["m"], self.answer_format)

    def format_answer(self, target: tuple[Edge, ...]) -> str:
        return format_edges(target)
