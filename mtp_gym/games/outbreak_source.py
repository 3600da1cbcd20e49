"""Outbreak Source (graph, abductive): which {person} started the observed outbreak?

The rules show a {contact} network on the {people} ``1..n`` and an observed outcome: the
{people} who fell ill (a connected group; everyone else was immune). The hidden cause is the
{source}, the one {person} who fell ill on day 0; the illness then spread day by day, each
ill {person} passing it on the next day to every {contact} who was not immune, so a
{person}'s day of illness is their distance to the {source} through ill {people}. Every ill
{person} could have started this outbreak and no immune one could, so the observed outcome
narrows the causes to the ill group without deciding; the agent asks ``by_day(d, a)`` (by day
``d``, 0 to 3, had {person} ``a``, one of the ill, fallen ill?) and submits the {source}:
backward reasoning from an observed effect to its cause. The rules are told symbolically (a
signal spreading over linked nodes, step by step); the isomorphic probe tells them as an
outbreak story in each domain.

Networks: every {person} after the first two (in a random order) has {contacts} with two
earlier ones, so the network is sparse (``2n - 3`` {contacts}) with no two {people} hanging
off the same {contact} alone (such twins could only be told apart one by one). Levels grow
the network and the outbreak, ``(n people, ill)``: (6, 4), (105, 80), (130, 100), (175, 140),
(210, 170); the hidden space is the ill group.

No reasoning-free sweep fits the budget from level 2 on: asked in the listed order (day 0 for
every ill {person}, then day 1, ...), the questions read off ``is it this one?`` one {person} at
a time, which needs about half the ill group (40 to 80 turns); a question aimed at a central
{person} and a later day splits the ill group about in half, so the oracle needs about
``log2(ill) + 1`` turns (7.4 to 8.5 on average). Asking every day of one {person} before the
next (not the listed order) is a better sweep: 3 days of a {person} rule out everyone within
3 {contacts} of them, and it fits the budget in about half of the configurations.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Hashable
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from mtp_gym.games._draws import ExactDraws
from mtp_gym.games._graph import Edge, ShownGraphGame, adjacency, bfs_distances, edge
from mtp_gym.games.base import QuerySpec, answer_number
from mtp_gym.games.domains import Story, nouns

MAX_DAY = 3


def two_contact_network(n: int, rng: np.random.Generator) -> tuple[Edge, ...]:
    """A connected network on ``1..n``: in a random order, every node after the first two links
    to two distinct earlier ones (``2n - 3`` links; the first two are linked)."""
    order = [int(v) + 1 for v in rng.permutation(n)]
    edges = {edge(order[0], order[1])} if n > 1 else set()
    with ExactDraws(rng) as draws:  # rng.choice(i, size=2, replace=False) per node after the first two
        for i in range(2, n):
            for j in draws.choice(i, 2):
                edges.add(edge(order[i], order[j]))
    return tuple(sorted(edges))


def grow_group(n: int, edges: tuple[Edge, ...], size: int, rng: np.random.Generator) -> tuple[int, ...]:
    """A random connected group of ``size`` nodes, grown from a random node."""
    adj = adjacency(n, edges)
    start = int(rng.integers(1, n + 1))
    frontier = sorted(set(adj[start]) - {start})  # the group's neighbours outside it, in order
    group, seen = [start], {start, *frontier}  # seen: the group and its frontier
    while len(group) < size:
        added = frontier.pop(int(rng.integers(len(frontier))))
        group.append(added)
        for w in adj[added]:
            if w not in seen:
                insort(frontier, w)
                seen.add(w)
    return tuple(sorted(group))


@lru_cache(maxsize=1 << 12)
def illness_days(edges: tuple[Edge, ...], ill: tuple[int, ...], source: int) -> dict[int, int]:
    """The day each ill person fell ill, when ``source`` started it (spread only among ``ill``)."""
    return bfs_distances(_ill_adjacency(edges, ill), source)


def _ill_adjacency(edges: tuple[Edge, ...], ill: tuple[int, ...]) -> dict[int, list[int]]:
    members = set(ill)
    adj: dict[int, list[int]] = {v: [] for v in ill}
    for a, b in edges:
        if a in members and b in members:
            adj[a].append(b)
            adj[b].append(a)
    return adj


class OutbreakSource(ShownGraphGame):
    """Outbreak Source (graph, abductive): which node started the spread of a signal?

    Shown: a network and the outcome: the nodes the signal reached, one step further each step
    (every other node was blocked). Hidden: the source. Query: ``by_day(d, a)`` (had node ``a``,
    one of those reached, got the signal by step ``d``, 0 to 3?, Yes/No). Answer: the source.
    Levels ``(nodes, reached)``: (6, 4), (105, 80), (130, 100), (175, 140), (210, 170).
    """

    name = "OutbreakSource"
    structure = "graph"
    inference = "abductive"
    levels = tuple({"n": n, "ill": k} for n, k in ((6, 4), (105, 80), (130, 100), (175, 140), (210, 170)))
    budgets = (8, 18, 19, 20, 20)
    transient = ("_days", "_ill_adj")
    queries = (
        QuerySpec(
            "by_day",
            (int, int),
            "by this {day} (0 to {max_day}), had this {person} already got the {illness}? (the {day} first)",
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

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(  # the rules say "An {illness}"
        "person people contact contacts illness source day immune",
        education={
            "person": "student",
            "people": "students",
            "contact": "friend",
            "contacts": "friends",
            "illness": "eye infection",
            "source": "index student",
            "day": "day",
            "immune": "vaccinated",
        },
        healthcare={
            "person": "patient",
            "people": "patients",
            "contact": "ward contact",
            "contacts": "ward contacts",
            "illness": "infection",
            "source": "index patient",
            "day": "day",
            "immune": "immune",
        },
        transportation={
            "person": "passenger",
            "people": "passengers",
            "contact": "fellow traveller",
            "contacts": "fellow travellers",
            "illness": "intestinal virus",
            "source": "first carrier",
            "day": "day",
            "immune": "vaccinated",
        },
        manufacturing={
            "person": "worker",
            "people": "workers",
            "contact": "shift partner",
            "contacts": "shift partners",
            "illness": "airborne virus",
            "source": "first case",
            "day": "shift",
            "immune": "vaccinated",
        },
        law={
            "person": "inmate",
            "people": "inmates",
            "contact": "cell mate",
            "contacts": "cell mates",
            "illness": "itchy rash",
            "source": "index inmate",
            "day": "week",
            "immune": "vaccinated",
        },
    )
    story = Story(
        setting="Here are the {contacts} among {people} numbered 1 to {n} (pairs of {people}): "
        "{edge_list}.\nAn {illness} broke out. One {person}, the {source}, had it on {day} 0; on each "
        "{day} after, everyone who had the {illness} passed it on to each of their {contacts} who was "
        "not {immune}, and it spread in no other way. By the end, the {people} who had caught it were "
        "exactly {ill_list}; all the others were {immune}.\nFind the {source}. Questions may only be "
        "about {people} who caught the {illness}.",
        answer="the number of the {source}",
        queries={
            "by_day": "name a {day} (from 0 to {max_day}) and then a {person}: had that {person} caught the "
            "{illness} by then?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        ill = self.public.get("ill_people") or (1,)
        return f"<answer>{ill[0]}</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        edges = two_contact_network(p["n"], rng)
        return {"edges": edges, "ill_people": grow_group(p["n"], edges, p["ill"], rng)}

    def rules_fields(self) -> dict[str, Any]:
        return {
            **super().rules_fields(),
            "ill_list": ", ".join(str(v) for v in self.public["ill_people"]),
            "people_cap": self.vocab["people"][:1].upper() + self.vocab["people"][1:],
            "max_day": MAX_DAY,
        }

    def candidate_states(self) -> tuple[int, ...]:
        return tuple(self.public["ill_people"])

    def query_args(self, name: str) -> list[tuple]:
        return [(d, a) for d in range(MAX_DAY + 1) for a in self.candidate_states()]

    def example_args(self, name: str) -> tuple:
        return (2, self.candidate_states()[1])

    @cached_property
    def _days(self) -> dict[int, dict[int, int]]:
        """Per source (filled on the first question about it), the day each ill person fell ill;
        left out of pickles."""
        return {}

    @cached_property
    def _ill_adj(self) -> dict[int, list[int]]:
        return _ill_adjacency(self.edges, self.candidate_states())

    def respond(self, hidden: int, name: str, args: tuple) -> Hashable:
        days = self._days.get(hidden)
        if days is None:
            days = self._days[hidden] = bfs_distances(self._ill_adj, hidden)
        return days[args[1]] <= args[0]

    def _why_illegal(self, name: str, args: tuple) -> str:
        day, person = args
        if day not in range(MAX_DAY + 1):
            return f"argument 1 must be 0 to {MAX_DAY}, not {day!r} (it is the {self.vocab['day']})"
        ill = self.candidate_states()
        shown = ", ".join(map(str, ill[:12])) + (", ..." if len(ill) > 12 else "")
        return (
            f"argument 2 must be one of {shown}, not {person!r} (the {self.vocab['people']} that got "
            f"the {self.vocab['illness']}; the {self.vocab['day']} comes first)"
        )

    def parse_answer(self, text: str) -> int:
        n = self.params["n"]
        message = f"submit one {self.vocab['person']} number from 1 to {n}, as {self.answer_format}."
        return answer_number(text, range(1, n + 1), message)
