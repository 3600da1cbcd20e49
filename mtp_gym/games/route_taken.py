"""Route Taken (graph, abductive): which route explains the observed arrival of a {message}?

The rules show a connected {network} on the {nodes} ``1..n`` (its {links}) and an observed
outcome: a {message} sent from {node} ``s`` arrived at {node} ``t`` after exactly ``L``
{hops}, never visiting a {node} twice. The hidden cause is the route it took: one of the
simple ``s``-``t`` paths with exactly ``L`` {links}, all of which explain the observation
equally. The agent asks ``visited(x)`` (did the {message} pass through {node} ``x``?) and
``used(a, b)`` (did it travel the {link} ``a-b``, in either direction?) and submits the
route: backward reasoning from an observed effect to its cause.

Configurations: a random connected {network}, then random ``s``, ``t`` and ``L`` until
there are ``r`` to ``3r`` simple paths of that length (the hidden route is uniform among
them), ``L`` at most ``max_hops``. Levels grow ``(n nodes, links, r, max_hops)``: (7, 11, 5, 5),
(8, 13, 10, 5), (9, 16, 20, 6), (11, 22, 40, 6), (12, 25, 80, 7); so level 1 offers 5 to 15
candidate routes and level 5 80 to 240.
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

Route = tuple[int, ...]


def _paths(n: int, edges: tuple[Edge, ...], s: int, t: int, length: int, cap: int | None) -> list[Route]:
    adj = {v: sorted(ws) for v, ws in adjacency(n, edges).items()}
    to_t = bfs_distances(adj, t)  # a lower bound on the hops still needed: prunes dead ends
    out: list[Route] = []
    path = [s]

    def extend(v: int) -> bool:
        if len(path) - 1 == length:
            if v == t:
                out.append(tuple(path))
            return cap is not None and len(out) > cap
        for w in adj[v]:
            if w not in path and (w != t or len(path) == length) and to_t[w] <= length - len(path):
                path.append(w)
                stop = extend(w)
                path.pop()
                if stop:
                    return True
        return False

    extend(s)
    return out


@lru_cache(maxsize=256)
def simple_paths(n: int, edges: tuple[Edge, ...], s: int, t: int, length: int) -> tuple[Route, ...]:
    """Every path ``s -> t`` with exactly ``length`` edges and no repeated node, in DFS order."""
    return tuple(_paths(n, edges, s, t, length, None))


class RouteTaken(ShownGraphGame):
    name = "RouteTaken"
    structure = "graph"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "min_routes": r, "max_routes": 3 * r, "max_hops": h}
        for n, m, r, h in ((7, 11, 5, 5), (8, 13, 10, 5), (9, 16, 20, 6), (11, 22, 40, 6), (12, 25, 80, 7))
    )
    budgets = (8, 9, 11, 14, 16)
    queries = (
        QuerySpec("visited", (int,), "did the {message} pass through this {node}?"),
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

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        if not self.public:
            return "<answer>1, 2, 3</answer>"
        # a route of the shown network, picked without looking at the hidden one
        return f"<answer>{self.format_answer(self.target(self.candidate_states()[0]))}</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        n = p["n"]
        lo, hi = p["min_routes"], p["max_routes"]
        while True:
            edges = random_connected_graph(n, p["m"], rng)
            options = [
                (s, t, length)
                for s in range(1, n + 1)
                for t in range(s + 1, n + 1)
                for length in range(2, p["max_hops"] + 1)
                if lo <= len(_paths(n, edges, s, t, length, hi)) <= hi
            ]
            if options:
                s, t, length = options[int(rng.integers(len(options)))]
                if rng.integers(2):
                    s, t = t, s
                return {"edges": edges, "s": s, "t": t, "L": length}

    def candidate_states(self) -> tuple[Route, ...]:
        p = self.public
        return simple_paths(self.params["n"], self.edges, p["s"], p["t"], p["L"])

    def query_args(self, name: str) -> list[tuple]:
        if name == "visited":
            return [(v,) for v in range(1, self.params["n"] + 1)]
        return [tuple(e) for e in self.public["edges"]]

    def example_args(self, name: str) -> tuple:
        return (2,) if name == "visited" else tuple(self.public["edges"][0])

    def respond(self, hidden: Route, name: str, args: tuple) -> Hashable:
        if name == "visited":
            return args[0] in hidden
        return any(edge(a, b) == args for a, b in zip(hidden, hidden[1:]))

    def parse_answer(self, text: str) -> Route:
        route = tuple(parse_ints(text))
        p = self.public
        if len(route) != p["L"] + 1 or not all(1 <= v <= self.params["n"] for v in route):
            raise InvalidAction(
                f"submit {p['L'] + 1} {self.vocab['nodes']} from {p['s']} to {p['t']} in travel order, as {self.answer_format}."
            )
        return route

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(v) for v in target)
