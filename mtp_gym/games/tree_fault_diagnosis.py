"""Tree Fault Diagnosis (tree, abductive): which hidden {marked} {nodes} explain the {covered} leaves?

The rules show a rooted {tree} (a random shape per configuration, public; numbers grow
downwards, breadth first). Exactly ``k`` non-root {nodes} are {marked} (hidden). A {node} is
{covered} when it or one of the {nodes} above it is {marked}, so a {marked} {node} below
another {marked} {node} leaves no visible trace. The observed outcome is public: which leaves
are {covered}. The hidden cause is the set of ``k`` {marked} {nodes}, drawn uniformly among
every ``k``-set that explains the outcome (every {covered} leaf has a {marked} {node} on its
path from the {root}, and no {marked} {node} has an uncovered leaf below it); the outcome
rules out every other ``k``-set. (The story of the isomorphic probe: a power network whose
faulty stations leave the end stations below them without power.)

The outcome shows the top of the cause (the {covered} parts of the {tree}) and nothing of the
{marked} {nodes} hidden below the top ones. Queries: ``marked(v)`` (is ``v`` {marked}?) and
``count(v)`` (how many {marked} {nodes} are numbered ``v`` or lower?: a group count over the
numbers, as in Broken Link); the agent submits the ``k`` {marked} {nodes}, which the ``marked``
answers determine.

Configurations: a random {tree} of ``rest`` {nodes} (depth ``depth``, at most 3 children) with
two random subtrees of ``grafts`` {nodes} each hung under two of its inner {nodes}; the roots of
the two subtrees and two more {nodes} inside them are {marked} (``k`` = 4), and the draw is kept
when the number of explanations lies in the level's range (their count is exact, by dynamic
programming; the hidden cause is then drawn from the counts). Level 1: 12 {nodes}, ``k`` 2, 4 to
12 explanations. Levels 2 to 5: 76, 88, 98 and 106 {nodes}, {covered} parts of 56, 68, 76 and 84
{nodes} (about 1,500, 2,200, 2,700 and 3,400 explanations).

No reasoning-free sweep fits the budget from level 2 on: ``marked`` (or ``count``) of every
{node} in order must reach the later of the two hidden {marked} {nodes}, on average two thirds
of the 56 to 84 {nodes} of the {covered} parts (a quarter of the configurations need fewer than
half of them, more than the budget), while a ``count`` aimed at the middle of the numbers still
in doubt splits them, so the oracle needs about ``log2(explanations)`` turns (11 to 12).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache, cached_property, lru_cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from mtp_gym.games.base import QuerySpec, answer_subset
from mtp_gym.games.domains import Story, tree_nouns
from mtp_gym.games.trees import (
    TREE_WORDS,
    ShownTreeGame,
    children_of,
    convolve_counts,
    covered_mask,
    grafted_tree,
    leaves_of,
    nodes_of,
    order_of,
    subtree_masks,
    weighted_index,
)


def _eligible(parents: tuple[int, ...], covered_leaves: tuple[int, ...]) -> int:
    """Bitmask of the non-root {nodes} whose leaves are all {covered} (the only ones that may be
    {marked})."""
    masks = subtree_masks(parents)
    leaf_mask = sum(1 << v for v in leaves_of(parents))
    dark = sum(1 << v for v in covered_leaves)
    return sum(1 << v for v in nodes_of(parents) if v != 1 and masks[v] & leaf_mask & ~dark == 0)


class _Ways:
    """Counts of the explanations below each {node}, for counting and uniform sampling.

    ``own[v][j]``: the ways to place ``j`` {marked} {nodes} in ``v``'s subtree, none above ``v``,
    covering exactly its {covered} leaves; ``rest[v][i][j]``: the same for the subtrees of the
    children of ``v`` from the ``i``-th on, together.
    """

    def __init__(self, parents: tuple[int, ...], covered_leaves: tuple[int, ...], k: int) -> None:
        self.kids, masks = children_of(parents), subtree_masks(parents)
        self.k, self.ok = k, _eligible(parents, covered_leaves)
        self.size = [m.bit_count() for m in masks]
        self._masks = masks
        self._below: dict[int, list[int]] = {}
        dark = sum(1 << v for v in covered_leaves)
        none = (1,) + (0,) * k
        self.own: dict[int, tuple[int, ...]] = {}
        self.rest: dict[int, tuple[tuple[int, ...], ...]] = {}
        for v in reversed(order_of(parents)):
            suffix = [none]
            for c in reversed(self.kids[v]):
                suffix.append(convolve_counts(self.own[c], suffix[-1]))
            self.rest[v] = tuple(suffix[::-1])
            ways = suffix[-1] if self.kids[v] else ((0,) * (k + 1) if dark >> v & 1 else none)
            if self.ok >> v & 1:
                ways = tuple(w + (comb(self.size[v] - 1, j - 1) if j else 0) for j, w in enumerate(ways))
            self.own[v] = ways

    def below(self, v: int) -> list[int]:
        """The {nodes} strictly below ``v``, in order (built when first needed)."""
        out = self._below.get(v)
        if out is None:
            mask = self._masks[v]
            out = self._below[v] = [u for u in range(1, len(self._masks)) if u != v and mask >> u & 1]
        return out

    def sample(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A uniform explanation (sorted)."""
        out: list[int] = []

        def walk(v: int, j: int) -> None:
            own = comb(self.size[v] - 1, j - 1) if j and self.ok >> v & 1 else 0
            if weighted_index([own, self.own[v][j] - own], rng) == 0:
                below = self.below(v)
                out.append(v)
                out.extend(below[int(i)] for i in rng.choice(len(below), size=j - 1, replace=False))
                return
            for i, c in enumerate(self.kids[v]):
                t = weighted_index([self.own[c][t] * self.rest[v][i + 1][j - t] for t in range(j + 1)], rng)
                walk(c, t)
                j -= t

        walk(1, self.k)
        return tuple(sorted(out))


@lru_cache(maxsize=256)  # bounded: generated trees bring new keys forever
def _ways(parents: tuple[int, ...], covered_leaves: tuple[int, ...], k: int) -> _Ways:
    return _Ways(parents, covered_leaves, k)


def count_explanations(parents: tuple[int, ...], covered_leaves: tuple[int, ...], k: int) -> int:
    """How many ``k``-sets :func:`explanations` lists (dynamic programming, no listing)."""
    return _ways(parents, covered_leaves, k).own[1][k]  # cached: the draw of the hidden set reuses it


@lru_cache(maxsize=256)  # bounded: generated trees bring new keys forever
def explanations(parents: tuple[int, ...], covered_leaves: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    """Every ``k``-set of {marked} {nodes} (sorted tuples, sorted) whose {covered} leaves are
    exactly ``covered_leaves``."""
    w = _ways(parents, covered_leaves, k)

    @cache
    def ways(v: int, j: int) -> tuple[tuple[int, ...], ...]:
        out: list[tuple[int, ...]] = []
        if w.ok >> v & 1 and j:
            out.extend((v, *rest) for rest in combinations(w.below(v), j - 1))
        if w.kids[v]:
            parts: list[tuple[tuple[int, ...], int]] = [((), j)]
            for i, c in enumerate(w.kids[v]):
                parts = [
                    (done + more, left - t)
                    for done, left in parts
                    for t in range(left + 1)
                    if w.own[c][t] and w.rest[v][i + 1][left - t]
                    for more in ways(c, t)
                ]
            out.extend(done for done, left in parts if left == 0)
        elif w.own[v][j] and not j:
            out.append(())
        return tuple(out)

    return tuple(sorted(tuple(sorted(s)) for s in ways(1, k)))


class _Table:
    """The explanations of one public part as bitmasks (what the queries read)."""

    def __init__(self, states: tuple[tuple[int, ...], ...]) -> None:
        self.mask = {s: sum(1 << v for v in s) for s in states}


@lru_cache(maxsize=64)
def _table(parents: tuple[int, ...], covered_leaves: tuple[int, ...], k: int) -> _Table:
    return _Table(explanations(parents, covered_leaves, k))


class TreeFaultDiagnosis(ShownTreeGame):
    """Tree Fault Diagnosis (tree, abductive): which marked nodes explain the covered leaves?

    Shown: a rooted tree and the outcome: which leaves are covered (a node is covered when it or
    a node above it is marked). Hidden: the ``k`` marked nodes (one of the sets that explain the
    outcome). Queries: ``marked(v)`` (Yes/No) and ``count(v)`` (how many marked nodes are numbered
    ``v`` or lower?). Answer: the ``k`` marked nodes. Levels: 12, 76, 88, 98 and 106 nodes, ``k``
    2 then 4: 4-12, then 1400-1600 up to 3250-3600 explanations.
    """

    name = "TreeFaultDiagnosis"
    structure = "tree"
    inference = "abductive"
    levels = tuple(
        {"n": rest + sum(g), "rest": rest, "depth": d, "grafts": g, "graft_depth": gd, "k": k, "explanations": e}
        for rest, d, g, gd, k, e in (
            (7, 2, (5,), 2, 2, (4, 12)),
            (20, 4, (28, 28), 5, 4, (1400, 1600)),
            (20, 4, (34, 34), 5, 4, (2100, 2400)),
            (22, 4, (38, 38), 5, 4, (2650, 3000)),
            (22, 4, (42, 42), 6, 4, (3250, 3600)),
        )
    )
    budgets = (9, 26, 27, 28, 29)
    transient = ("_index",)
    queries = (
        QuerySpec("marked", (int,), "is this {node} {marked}?"),
        QuerySpec("count", (int,), "how many {marked} {nodes} are numbered this or lower?"),
    )
    vocabulary = {
        **TREE_WORDS,
        "leaf": "leaf",
        "leaves": "leaves",
        "marked": "marked",
        "covered": "covered",
    }
    rules_template = (
        "Here is a {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each line "
        "lists the {children} of one {node}:\n{tree_text}\n"
        "Exactly {k} {nodes} are {marked}, never the {root}; which ones is hidden. A {node} is "
        "{covered} when it or one of the {nodes} above it is {marked}, so a {marked} {node} below "
        "another {marked} {node} leaves no visible trace. Observed outcome: the {covered} {leaves} "
        "are {dark_text}; no other {leaf} is {covered}. Your goal is to find the {k} {marked} "
        "{nodes}; several sets of {k} {nodes} could explain the outcome. You may ask one question "
        "per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {k} {marked} {nodes} separated by commas:\n"
        "{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = tree_nouns(
        "tree node nodes root children leaf leaves marked covered",
        education={
            "tree": "funding tree",
            "node": "school office",
            "nodes": "school offices",
            "root": "ministry",
            "children": "funded offices",
            "leaf": "school",
            "leaves": "schools",
            "marked": "blocked",
            "covered": "unfunded",
        },
        healthcare={
            "tree": "medical gas network",
            "node": "valve",
            "nodes": "valves",
            "root": "oxygen plant",
            "children": "downstream valves",
            "leaf": "bedside outlet",
            "leaves": "bedside outlets",
            "marked": "blocked",
            "covered": "dry",
        },
        transportation={
            "tree": "signalling network",
            "node": "relay",
            "nodes": "relays",
            "root": "control centre",
            "children": "downstream relays",
            "leaf": "trackside signal",
            "leaves": "trackside signals",
            "marked": "failed",
            "covered": "dead",
        },
        manufacturing={
            "tree": "compressed-air network",
            "node": "valve",
            "nodes": "valves",
            "root": "compressor",
            "children": "downstream valves",
            "leaf": "tool outlet",
            "leaves": "tool outlets",
            "marked": "stuck",
            "covered": "unpressurised",
        },
        law={
            "tree": "delegation chain",
            "node": "bureau",
            "nodes": "bureaus",
            "root": "ministry of justice",
            "children": "subordinate bureaus",
            "leaf": "local court",
            "leaves": "local courts",
            "marked": "suspended",
            "covered": "unauthorised",
        },
    )
    story = Story(
        setting="The {tree} below joins {n} {nodes}, numbered 1 to {n}. At its top sits {node} 1, the {root}; "
        "on each row a {node} comes first and then its {children}:\n{tree_text}\n"
        "Behind the scenes, exactly {k} {nodes} are {marked} (the {root} never is). Whatever sits at or "
        "beneath a {marked} {node} ends up {covered}, which is why a {marked} {node} lying under another "
        "{marked} one cannot be seen from outside. At the bottom, the {leaves} that are {covered} are "
        "{dark_text}, and every other {leaf} is not. Track down all {k} {marked} {nodes}; more than one "
        "group of {k} {nodes} would account for what was seen.",
        answer="the numbers of those {k} {marked} {nodes}, with commas between them",
        queries={
            "marked": "is this particular {node} {marked} in its own right?",
            "count": "among the {nodes} whose number is this one or smaller, how many are {marked}?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(i) for i in range(2, self.params["k"] + 2)) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        low, high = p["explanations"]
        while True:
            parents, tops = grafted_tree(p["rest"], p["depth"], p["grafts"], p["graft_depth"], 3, rng)
            below = covered_mask(parents, tops)
            inside = [u for u in nodes_of(parents) if u not in tops and below >> u & 1]
            extra = rng.choice(len(inside), size=p["k"] - len(tops), replace=False)
            dark = covered_mask(parents, (*tops, *(inside[int(i)] for i in extra)))
            covered_leaves = tuple(v for v in leaves_of(parents) if dark >> v & 1)
            if low <= count_explanations(parents, covered_leaves, p["k"]) <= high:
                return {"parents": parents, "covered_leaves": covered_leaves}

    def sample_hidden(self, rng: np.random.Generator) -> tuple[int, ...]:
        """Uniform over the explanations (drawn from their counts, without listing them)."""
        return _ways(self.parents, tuple(self.public["covered_leaves"]), self.params["k"]).sample(rng)

    @cached_property
    def _index(self) -> _Table:
        return _table(self.parents, tuple(self.public["covered_leaves"]), self.params["k"])

    def rules_fields(self) -> dict[str, Any]:
        return {**super().rules_fields(), "dark_text": ", ".join(map(str, self.public["covered_leaves"]))}

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return explanations(self.parents, tuple(self.public["covered_leaves"]), self.params["k"])

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "marked" else (self.params["n"] // 2,)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        mask = self._index.mask.get(hidden)
        if mask is None:  # not an explanation of this outcome (a hand-made state)
            mask = sum(1 << u for u in hidden)
        v = args[0]
        if name == "marked":
            return bool(mask >> v & 1)
        return (mask & ((1 << (v + 1)) - 1)).bit_count()

    def parse_answer(self, text: str) -> tuple[int, ...]:
        n, k = self.params["n"], self.params["k"]
        message = f"submit exactly {k} distinct {self.vocab['nodes']} from 2 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, k, 2, n, message)

    def format_answer(self, target: tuple[int, ...]) -> str:
        return ", ".join(str(x) for x in target)
