"""Hidden Coloring (graph, deductive): find a hidden proper 3-colouring of a shown graph.

The rules show a connected graph on the {nodes} ``1..n`` (its {edges}). The env has split the
{nodes} into 3 {groups} numbered 1 to 3 so that no {edge} joins two {nodes} of the same
{group} (a proper 3-colouring). The rules name one {node} of each {group} (three {nodes} that
form a triangle) and tell how many {nodes} each {group} holds. The query is ``count(v)``: how
many {nodes} numbered ``v`` or lower are in {group} 3? The agent submits the three {groups};
they follow deductively from the replies, the {edges} and the sizes (asking every ``count(v)``
always suffices).

The {graph}: a chain of triangles (each {node} of the chain joined to the next two) that starts
at the named triangle, so the named {nodes} force the {group} of every chain {node}, one
triangle after the other; a few more {edges} between chain {nodes} of different {groups};
``f`` {nodes} joined to two chain {nodes} of different {groups} (forced too); and ``L`` {nodes}
joined only to chain {nodes} of {group} 1 (all numbers drawn at random). Each of these ``L`` may
be in {group} 2 or 3, and the sizes say how many are in {group} 3: ``k``. The hidden space is
which ``k``, C(L, k) colourings. Constraint propagation tells the player which {nodes} are open;
a count up to the middle of the open {nodes} still in doubt splits the candidates, so the
oracle needs about ``log2 C(L, k)`` turns, while reading the counts off one number after the
other must reach both open {nodes} of {group} 3.

Levels ``(chain, f, L, k)``: (3, 0, 4, 1), (8, 3, 62, 2), (9, 3, 66, 2), (10, 4, 72, 2),
(11, 4, 78, 2), i.e. 7, 73, 78, 86 and 93 {nodes} and 4, 1891, 2145, 2556, 3003 colourings.

Version History: v0 (issue 25) {groups} numbered and anchored, their sizes told, one query
``count`` (were ``same(a, b)``/``size(a)`` on the unlabelled {groups} of a random 3-colourable
graph: every answer carried about a bit wherever it was asked, so reading off the pairs in
order fit the budget at every level).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Hashable
from functools import cached_property, lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games._draws import ExactDraws
from mtp_gym.games._graph import Edge, ShownGraphGame, adjacency, edge, parse_ints
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.domains import Story, nouns

Labels = tuple[int, ...]

GROUPS = (1, 2, 3)


def chain_graph(
    chain: int, forced: int, free: int, extra: int, rng: np.random.Generator
) -> tuple[tuple[Edge, ...], tuple[int, int, int], dict[int, int]]:
    """A configuration's graph on ``chain + forced + free`` randomly numbered nodes: the edges,
    the named triangle (one node of group 1, 2, 3) and the group of every chain and forced
    node (the free nodes, joined only to group-1 chain nodes, are left out)."""
    n = chain + forced + free
    number = [int(v) + 1 for v in rng.permutation(n)]
    core, rest = number[:chain], number[chain:]
    group = {v: i % 3 + 1 for i, v in enumerate(core)}
    edges = {edge(core[i], core[j]) for i in range(chain) for j in (i + 1, i + 2) if j < chain}
    pairs = [edge(a, b) for a, b in combinations(core, 2) if group[a] != group[b] and edge(a, b) not in edges]
    members = {g: [u for u in core if group[u] == g] for g in GROUPS}
    ones = members[1]
    with ExactDraws(rng) as draws:  # rng.choice and rng.integers, about 170 calls at level 5
        edges.update(pairs[i] for i in draws.choice(len(pairs), min(extra, len(pairs))))
        for v in rest[:forced]:
            g1, g2 = (GROUPS[i] for i in draws.choice(len(GROUPS), 2))
            for g in (g1, g2):
                same = members[g]
                edges.add(edge(v, same[draws.integers(len(same))]))
            group[v] = 6 - g1 - g2
        for v in rest[forced:]:
            edges.update(edge(v, ones[i]) for i in draws.choice(len(ones), min(len(ones), 1 + draws.integers(2))))
    return tuple(sorted(edges)), (core[0], core[1], core[2]), group


@lru_cache(maxsize=256)
def open_structure(
    n: int, edges: tuple[Edge, ...], named: tuple[int, int, int], sizes: tuple[int, int, int]
) -> tuple[Labels, tuple[int, ...], int]:
    """What the shown configuration forces: the group of every node as far as propagation from
    the named triangle goes (a node with neighbours in two groups is in the third; 0 where
    open), the open nodes, and how many of them are in group 3 (from the sizes; -1 when no
    colouring has these sizes).

    The graphs of :func:`chain_graph` leave open only nodes that are pairwise apart, each with
    neighbours in group 1 only (so in group 2 or 3): every proper colouring with these named
    nodes and sizes puts exactly that many open nodes in group 3, any of them.
    """
    adj = adjacency(n, edges)
    label = dict(zip(named, GROUPS))
    todo = True
    while todo:
        todo = False
        for v in range(1, n + 1):
            seen = {label[u] for u in adj[v] if u in label}
            if v not in label and len(seen) == 2:
                label[v] = 6 - sum(seen)
                todo = True
    open_nodes = tuple(v for v in range(1, n + 1) if v not in label)
    if any(u not in label or label[u] != 1 for v in open_nodes for u in adj[v]):
        raise ValueError("every open node must have neighbours in group 1 only")
    if any(label[a] == label[b] for a, b in edges if a in label and b in label):
        raise ValueError("the forced part is not a proper colouring")
    forced = tuple(label.get(v, 0) for v in range(1, n + 1))
    k = sizes[2] - forced.count(3)
    if (
        sizes[0] != forced.count(1)
        or sizes[1] != forced.count(2) + len(open_nodes) - k
        or not 0 <= k <= len(open_nodes)
    ):
        k = -1  # sizes that no colouring has
    return forced, open_nodes, k


@lru_cache(maxsize=256)
def _choices(open_nodes: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations(open_nodes, k))


def groups_of(labels: Labels) -> tuple[tuple[int, ...], ...]:
    """The colouring as the sorted nodes of group 1, 2 and 3."""
    return tuple(tuple(v for v, g in enumerate(labels, start=1) if g == group) for group in GROUPS)


class HiddenColoring(ShownGraphGame):
    """Hidden Coloring (graph, deductive): find a hidden proper 3-colouring of a shown graph.

    Shown: the graph, one node of each of the 3 numbered colour groups and each group's size.
    Hidden: the colouring (no edge inside a group). Query: ``count(v)`` (how many nodes numbered
    ``v`` or lower are in group 3?). Answer: the nodes of groups 1, 2 and 3. Levels: 7, 73, 78, 86
    and 93 nodes, 4 to 3003 colourings.
    """

    name = "HiddenColoring"
    structure = "graph"
    inference = "deductive"
    levels = tuple(
        {"n": c + f + L, "chain": c, "forced": f, "free": L, "k": k, "extra": x}
        for c, f, L, k, x in ((3, 0, 4, 1, 0), (8, 3, 62, 2, 3), (9, 3, 66, 2, 3), (10, 4, 72, 2, 4), (11, 4, 78, 2, 4))
    )
    budgets = (8, 26, 27, 28, 28)
    transient = ("_tables",)
    queries = (QuerySpec("count", (int,), "how many {nodes} numbered this or lower are in {group} 3?"),)
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
        "I have split the {nodes} into 3 hidden {groups}, numbered 1 to 3, so that no {edge} joins two "
        "{nodes} of the same {group}. {node_cap} {a1} is in {group} 1, {node} {a2} in {group} 2 and "
        "{node} {a3} in {group} 3; in all, {groups} 1, 2 and 3 hold {s1}, {s2} and {s3} {nodes}. "
        "Your goal is to find the {groups}. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the answer, submit the {nodes} of {group} 1, {group} 2 and {group} 3 in this order, "
        "{nodes} separated by commas and {groups} by a vertical bar:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns("node nodes edge edges graph group groups")
    story = Story(
        setting="A {graph} joins the {nodes} numbered 1 to {n} by these {edges}: {edge_list}.\n"
        "Out of sight, the {nodes} were sorted into 3 {groups}, labelled 1 to 3, and no {edge} runs between "
        "two {nodes} of one {group}. {node_cap} {a1} belongs to {group} 1, {node} {a2} to {group} 2 and "
        "{node} {a3} to {group} 3; counted up, {groups} 1, 2 and 3 have {s1}, {s2} and {s3} members. "
        "Recover who belongs where.",
        answer="the members of {group} 1, {group} 2 and {group} 3, in that order, with commas between "
        "{nodes} and a vertical bar between {groups}",
        queries={
            "count": "among the {nodes} whose number is at most this one, how many belong to {group} 3?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        if self.public:  # a colouring of the instance, picked without looking at the hidden one
            return f"<answer>{self.format_answer(self.target(self.candidate_states()[0]))}</answer>"
        n = self.params["n"]
        third = max(1, n // 3)
        parts = [range(1, third + 1), range(third + 1, 2 * third + 1), range(2 * third + 1, n + 1)]
        return "<answer>" + " | ".join(", ".join(str(v) for v in p) for p in parts) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        edges, named, group = chain_graph(p["chain"], p["forced"], p["free"], p["extra"], rng)
        sizes = [sum(g == x for g in group.values()) for x in GROUPS]
        sizes[1] += p["free"] - p["k"]
        sizes[2] += p["k"]
        return {"edges": edges, "named": named, "sizes": tuple(sizes)}

    def rules_fields(self) -> dict[str, Any]:
        a1, a2, a3 = self.public["named"]
        s1, s2, s3 = self.public["sizes"]
        node_cap = self.vocab["node"][:1].upper() + self.vocab["node"][1:]
        return {
            **super().rules_fields(),
            "a1": a1,
            "a2": a2,
            "a3": a3,
            "s1": s1,
            "s2": s2,
            "s3": s3,
            "node_cap": node_cap,
        }

    @cached_property
    def _tables(self) -> tuple[Labels, tuple[int, ...], tuple[int, ...], int]:
        """The forced groups (0: open), the open nodes, how many forced nodes numbered ``v`` or
        lower are in group 3 (index ``v``), and how many open nodes are in group 3 (computed once
        per instance; left out of pickles)."""
        forced, open_nodes, k = open_structure(
            self.params["n"], self.edges, tuple(self.public["named"]), tuple(self.public["sizes"])
        )
        threes = [0]
        for g in forced:
            threes.append(threes[-1] + (g == 3))
        return forced, open_nodes, tuple(threes), k

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        """The open nodes in group 3, sorted (the rest of the colouring is forced)."""
        _, open_nodes, _, k = self._tables
        return _choices(open_nodes, k) if k >= 0 else ()

    def target(self, hidden: tuple[int, ...]) -> Labels:
        forced = self._tables[0]
        chosen = set(hidden)
        return tuple(g or (3 if v in chosen else 2) for v, g in enumerate(forced, start=1))

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (self.params["n"] // 2,)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        return self._tables[2][args[0]] + bisect_right(hidden, args[0])

    def parse_answer(self, text: str) -> Labels:
        n = self.params["n"]
        groups = [parse_ints(part) for part in re.split(r"[|;]", text)]
        nodes = sorted(v for g in groups for v in g)
        if len(groups) != 3 or nodes != list(range(1, n + 1)):
            raise InvalidAction(
                f"list every {self.vocab['node']} 1 to {n} exactly once, in 3 {self.vocab['groups']} "
                f"(1, 2, 3 in this order) separated by '|', as {self.answer_format}."
            )
        owner = {v: g for g, members in zip(GROUPS, groups) for v in members}
        labels = tuple(owner[v] for v in range(1, n + 1))
        if any(labels[a - 1] == labels[b - 1] for a, b in self.edges):
            raise InvalidAction(
                f"submit a proper colouring: no {self.vocab['edge']} inside a {self.vocab['group']}, "
                f"{self.vocab['groups']} 1, 2, 3 in this order separated by '|', as {self.answer_format}."
            )
        return labels

    def format_answer(self, target: Labels) -> str:
        return " | ".join(", ".join(str(v) for v in g) for g in groups_of(target))
