"""Outbreak Source (graph, abductive): which {person} started the observed outbreak?

The rules show a {contact} network on the {people} ``1..n`` and an observed outcome: the
{people} who fell ill (a connected group; everyone else was immune). The hidden cause is the
{source}, the one {person} who fell ill on day 0; the illness then spread day by day, each
ill {person} passing it on the next day to every {contact} who was not immune, so a
{person}'s day of illness is their distance to the {source} through ill {people}. Every ill
{person} could have started this outbreak, so the observed outcome alone does not decide;
the agent asks ``earlier(a, b)`` (did ``a`` fall ill strictly before ``b``?) and
``by_day(a, d)`` (was ``a`` already ill on day ``d``?) about ill {people} and submits the
{source}: backward reasoning from an observed effect to its cause. The rules are told
symbolically (a signal spreading over linked nodes, step by step); the isomorphic probe tells
them as an outbreak story in each domain.

Levels grow the network and the outbreak, ``(n people, contacts, ill)``: (6, 7, 4), (9, 11, 7),
(13, 17, 10), (18, 23, 14), (24, 31, 20); the hidden space is the ill group (4 to 20 states).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from mtp_gym.games._graph import Edge, ShownGraphGame, adjacency, bfs_distances, random_connected_graph
from mtp_gym.games.base import QuerySpec, answer_number

MAX_DAY = 3


def grow_group(n: int, edges: tuple[Edge, ...], size: int, rng: np.random.Generator) -> tuple[int, ...]:
    """A random connected group of ``size`` nodes, grown from a random node."""
    adj = adjacency(n, edges)
    group = {int(rng.integers(1, n + 1))}
    while len(group) < size:
        frontier = sorted({w for v in group for w in adj[v]} - group)
        group.add(frontier[int(rng.integers(len(frontier)))])
    return tuple(sorted(group))


@lru_cache(maxsize=1 << 12)
def illness_days(edges: tuple[Edge, ...], ill: tuple[int, ...], source: int) -> dict[int, int]:
    """The day each ill person fell ill, when ``source`` started it (spread only among ``ill``)."""
    members = set(ill)
    adj: dict[int, list[int]] = {v: [] for v in ill}
    for a, b in edges:
        if a in members and b in members:
            adj[a].append(b)
            adj[b].append(a)
    return bfs_distances(adj, source)


class OutbreakSource(ShownGraphGame):
    name = "OutbreakSource"
    structure = "graph"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "ill": k} for n, m, k in ((6, 7, 4), (9, 11, 7), (13, 17, 10), (18, 23, 14), (24, 31, 20))
    )
    budgets = (6, 8, 9, 10, 11)
    queries = (
        QuerySpec("earlier", (int, int), "did the first {person} get the {illness} strictly before the second?"),
        QuerySpec(
            "by_day", (int, int), f"did this {{person}} already have the {{illness}} at this {{day}} (0 to {MAX_DAY})?"
        ),
    )
    vocabulary = {
        "person": "node",
        "people": "nodes",
        "contact": "link",
        "contacts": "links",
        "illness": "signal",
        "source": "source",
        "day": "step",
        "immune": "blocked",
    }
    rules_template = (
        "{people_cap} numbered 1 to {n} are joined by these {contacts} (pairs of {people}): {edge_list}.\n"
        "A {illness} spread through them. At {day} 0 exactly one {person}, the {source}, had it; at each "
        "{day}, every {person} that had the {illness} passed it on, by the next {day}, to every {person} "
        "it shares a {contact} with that was not {immune}, and it spread in no other way. In the end exactly these {people} had the {illness}: "
        "{ill_list}; every other {person} was {immune}.\nYour goal is to find the {source}. You may ask "
        "one question per turn about {people} that got the {illness}, using the following format:\n"
        "{query_formats}\n"
        "When you know the answer, submit the number of the {source}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        ill = self.public.get("ill_people") or (1,)
        return f"<answer>{ill[0]}</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        edges = random_connected_graph(p["n"], p["m"], rng)
        return {"edges": edges, "ill_people": grow_group(p["n"], edges, p["ill"], rng)}

    def rules_fields(self) -> dict[str, Any]:
        return {
            **super().rules_fields(),
            "ill_list": ", ".join(str(v) for v in self.public["ill_people"]),
            "people_cap": self.vocab["people"][:1].upper() + self.vocab["people"][1:],
        }

    def _key(self) -> tuple[tuple[Edge, ...], tuple[int, ...]]:
        """The public graph and outcome as hashable tuples (computed once per instance)."""
        return self.edges, tuple(self.public["ill_people"])

    def candidate_states(self) -> tuple[int, ...]:
        return tuple(self.public["ill_people"])

    def query_args(self, name: str) -> list[tuple]:
        ill = self.candidate_states()
        if name == "earlier":
            return [(a, b) for a in ill for b in ill if a != b]
        return [(a, d) for a in ill for d in range(MAX_DAY + 1)]

    def example_args(self, name: str) -> tuple:
        ill = self.candidate_states()
        return (ill[0], ill[1]) if name == "earlier" else (ill[1], 2)

    def respond(self, hidden: int, name: str, args: tuple) -> Hashable:
        days = illness_days(*self._key(), hidden)
        if name == "earlier":
            return days[args[0]] < days[args[1]]
        return days[args[0]] <= args[1]

    def parse_answer(self, text: str) -> int:
        n = self.params["n"]
        message = f"submit one {self.vocab['person']} number from 1 to {n}, as {self.answer_format}."
        return answer_number(text, range(1, n + 1), message)
