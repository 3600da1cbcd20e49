"""Route Taken (graph, abductive): which route explains the observed arrival of a {message}?

The rules show a connected {network} on the {nodes} ``1..n`` (its {links}) and an observed
outcome: a {message} sent from {node} ``s`` arrived at {node} ``t`` after exactly ``L``
{hops}, never visiting a {node} twice. The hidden cause is the route it took: one of the
simple ``s``-``t`` paths with exactly ``L`` {links}, all of which explain the observation
equally. The agent asks ``visited(x)`` (did the {message} pass through {node} ``x``?),
``below(x)`` (the sum of the numbers of the route's {nodes}, both ends included, that are at
most ``x``) and ``used(a, b)`` (did it travel the {link} ``a-b``, in either direction?) and
submits the route: backward reasoning from an observed effect to its cause.

Configurations: a random connected {network}, then random ``s`` and ``t`` and the shortest
``L`` from ``min_hops`` to ``max_hops`` with ``r`` to ``3r`` simple paths of that length (the
hidden route is uniform among them). Levels grow ``(n nodes, links, r, hops)``: (7, 11, 5,
2-5), (52, 130, 40, 4-5), (56, 140, 100, 5-6), (60, 150, 200, 6-7), (64, 160, 400, 7-8).

From level 2 no reasoning-free sweep fits the budget: the {network} is large and well
connected, so the candidate routes spread over dozens of {nodes} and over a hundred {links},
each on a small share of them; ``visited`` (or ``below``) asked {node} by {node} in order, or
``used`` {link} by {link}, mostly hears "no" and in most configurations needs about twice the
budget or more (and the {nodes} alone may leave the order open). A ``below`` sum aimed at the
{nodes} still in doubt tells apart most of the routes left at once: the oracle takes 2.5 to 3
turns on average, the answer included.

Version History: v0 (issue 25) ``below`` added and levels 2-5 rebuilt around large, well
connected {networks} (were 8 to 12 {nodes} with 10 to 240 routes: a sweep of ``used`` fit
the budget).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games._graph import (
    Edge,
    ShownGraphGame,
    adjacency,
    bfs_distances,
    edge,
    parse_ints,
    random_connected_graph,
)
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.domains import Story, nouns

Route = tuple[int, ...]


def _paths(n: int, edges: tuple[Edge, ...], s: int, t: int, length: int, cap: int | None) -> list[Route]:
    """The paths ``s -> t`` of exactly ``length`` edges without a repeated node, in DFS order
    (neighbours in increasing order); with ``cap``, stop once there are more than ``cap``."""
    adj = {v: sorted(ws) for v, ws in adjacency(n, edges).items()}
    dist = bfs_distances(adj, t)  # a lower bound on the hops still needed: prunes dead ends
    to_t = [dist.get(v, n + 1) for v in range(n + 1)]
    # the neighbours one hop from t, per node, in order: the last two hops in one loop
    via = {v: [w for w in ws if to_t[w] == 1] for v, ws in adj.items()}
    on = [False] * (n + 1)
    out: list[Route] = []
    path = [s]
    stop_at = -1 if cap is None else cap + 1  # len(out) never reaches -1

    def extend(v: int, left: int) -> bool:
        """Continue ``path`` (ending at ``v``) by ``left`` more hops; ``True``: stop (cap)."""
        if left == 0:
            if v == t:
                out.append(tuple(path))
            return len(out) == stop_at
        if left == 1:
            if to_t[v] == 1:  # v is next to t, never on the path before the last hop
                out.append((*path, t))
            return len(out) == stop_at
        if left == 2:
            for w in via[v]:
                if not on[w] and w != t:
                    out.append((*path, w, t))
                    if len(out) == stop_at:
                        return True
            return False
        on[v] = True
        if left == 3:  # the last three hops in one loop: no call per path
            for w in adj[v]:
                if not on[w] and to_t[w] <= 2 and w != t:
                    for x in via[w]:
                        if not on[x] and x != t:
                            out.append((*path, w, x, t))
                            if len(out) == stop_at:
                                on[v] = False
                                return True
            on[v] = False
            return False
        left -= 1
        for w in adj[v]:
            if not on[w] and to_t[w] <= left and w != t:
                path.append(w)
                stop = extend(w, left)
                path.pop()
                if stop:
                    on[v] = False
                    return True
        on[v] = False
        return False

    extend(s, length)
    return out


#: The complete path lists that a draw of a public part just enumerated (its count was within
#: the cap), handed to :func:`simple_paths` so that the hidden route's draw does not list them again.
_DRAWN: dict[tuple[int, tuple[Edge, ...], int, int, int], tuple[Route, ...]] = {}


@lru_cache(maxsize=256)
def simple_paths(n: int, edges: tuple[Edge, ...], s: int, t: int, length: int) -> tuple[Route, ...]:
    """Every path ``s -> t`` with exactly ``length`` edges and no repeated node, in DFS order."""
    drawn = _DRAWN.pop((n, edges, s, t, length), None)
    return drawn if drawn is not None else tuple(_paths(n, edges, s, t, length, None))


class RouteTaken(ShownGraphGame):
    """Route Taken (graph, abductive): which route did a message take from ``s`` to ``t``?

    Shown: a network and the outcome: a message sent from ``s`` arrived at ``t`` after exactly
    ``L`` hops, never visiting a node twice. Hidden: its route, one of the simple paths of that
    length. Queries: ``visited(x)`` (Yes/No), ``below(x)`` (the sum of the route's node numbers up
    to ``x``) and ``used(a, b)`` (did it cross link ``a-b``?, Yes/No). Answer: the route, node by
    node. Levels: 7, 52, 56, 60 and 64 nodes with ``r`` to ``3r`` routes, ``r`` = 5, 40, 100, 200, 400.
    """

    name = "RouteTaken"
    structure = "graph"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "min_routes": r, "max_routes": 3 * r, "min_hops": h, "max_hops": h + k}
        for n, m, r, h, k in (
            (7, 11, 5, 2, 3),
            (52, 130, 40, 4, 1),
            (56, 140, 100, 5, 1),
            (60, 150, 200, 6, 1),
            (64, 160, 400, 7, 1),
        )
    )
    budgets = (7, 7, 7, 8, 8)
    queries = (
        QuerySpec("visited", (int,), "did the {message} pass through this {node}?"),
        QuerySpec(
            "below",
            (int,),
            "what is the sum of the numbers of the {nodes} on its route (both ends included) that are at most this number?",
        ),
        QuerySpec(
            "used",
            (int, int),
            "did the {message} travel along the {link} between these two {nodes} (smaller number first)?",
        ),
    )
    vocabulary = {
        "node": "node",
        "nodes": "nodes",
        "link": "link",
        "links": "links",
        "network": "network",
        "message": "message",
        "hops": "hops",
    }
    rules_template = (
        "A {network} joins the {nodes} numbered 1 to {n}; its {links} are: {edge_list}.\n"
        "A {message} sent from {node} {s} arrived at {node} {t} after exactly {L} {hops}: it moved "
        "along one {link} per hop and never visited a {node} twice.\n"
        "Your goal is to find the route it took. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the answer, submit the route as the list of {nodes} in travel order, from "
        "{s} to {t}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "node nodes link links network message hops",
        education={
            "node": "classroom",
            "nodes": "classrooms",
            "link": "corridor",
            "links": "corridors",
            "network": "corridor network",
            "message": "note",
            "hops": "handovers",
        },
        healthcare={
            "node": "ward",
            "nodes": "wards",
            "link": "corridor",
            "links": "corridors",
            "network": "hospital corridor network",
            "message": "specimen",
            "hops": "transfers",
        },
        transportation={"message": "train", "hops": "legs"},
        manufacturing={"node": "workstation", "nodes": "workstations", "message": "work order", "hops": "transfers"},
        law={
            "node": "court office",
            "nodes": "court offices",
            "link": "secure line",
            "links": "secure lines",
            "network": "court communication network",
            "message": "sealed document",
            "hops": "handovers",
        },
    )
    story = Story(
        setting="The {nodes} are numbered 1 to {n}, and the {network} between them consists of these {links}: "
        "{edge_list}.\nSomeone sent a {message} out from {node} {s}, and it turned up at {node} {t} after "
        "exactly {L} {hops}; each of them took it across a single {link}, and it never came back to a {node} "
        "it had already left. Nobody wrote down which way it went: trace it.",
        answer="its route, every {node} it was at, in order, from {s} at the start to {t} at the end",
        queries={
            "visited": "was the {message} ever at this {node}?",
            "below": "add up the numbers of the {nodes} it was at, its start and end included, leaving out "
            "those numbered above this one: what is the total?",
            "used": "did the {message} cross the {link} joining these two {nodes} (smaller number first)?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        if not self.public:
            return "<answer>1, 2, 3</answer>"
        # a route of the shown network, picked without looking at the hidden one
        return f"<answer>{self.format_answer(self.target(self.candidate_states()[0]))}</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        n, lo, hi = p["n"], p["min_routes"], p["max_routes"]
        while True:
            edges = random_connected_graph(n, p["m"], rng)
            adj = adjacency(n, edges)
            s, t = (int(v) + 1 for v in rng.choice(n, size=2, replace=False))
            for length in range(max(p["min_hops"], bfs_distances(adj, s)[t]), p["max_hops"] + 1):
                paths = _paths(n, edges, s, t, length, hi)
                if len(paths) > hi:
                    break
                if len(paths) >= lo:
                    if len(_DRAWN) >= 16:
                        _DRAWN.clear()
                    _DRAWN[n, edges, s, t, length] = tuple(paths)  # all of them: fewer than the cap
                    return {"edges": edges, "s": s, "t": t, "L": length}

    def candidate_states(self) -> tuple[Route, ...]:
        p = self.public
        return simple_paths(self.params["n"], self.edges, p["s"], p["t"], p["L"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name in ("visited", "below"):
            return [(v,) for v in range(1, n + 1)]
        return [tuple(e) for e in self.public["edges"]]

    def example_args(self, name: str) -> tuple:
        if name == "used":
            return tuple(self.public["edges"][0])
        return (2,) if name == "visited" else (self.params["n"] // 2,)

    def respond(self, hidden: Route, name: str, args: tuple) -> Hashable:
        if name == "visited":
            return args[0] in hidden
        if name == "below":
            return sum(v for v in hidden if v <= args[0])
        return any(edge(a, b) == args for a, b in zip(hidden, hidden[1:]))

    def parse_answer(self, text: str) -> Route:
        route = tuple(parse_ints(text))
        p = self.public
        if len(route) != p["L"] + 1 or not all(1 <= v <= self.params["n"] for v in route):
            raise InvalidAction(
                f"submit {p['L'] + 1} {self.vocab['nodes']} from {p['s']} to {p['t']} in travel order, as {self.answer_format}."
            )
        return route

    def format_answer(self, target: Route) -> str:
        return ", ".join(str(v) for v in target)
