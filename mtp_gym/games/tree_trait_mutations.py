"""Tree Trait Mutations (tree, abductive): which hidden {marked} {nodes} explain the {on} leaves?

The rules show a rooted {tree} (a random shape per configuration, public; numbers grow
downwards, breadth first). Exactly ``k`` non-root {nodes} are {marked} (hidden), and each
switches the state of its whole subtree: a {node} is {on} when an odd number of {marked}
{nodes} lie on its path from the {root} (itself included), {off} otherwise, so the {root} is
{off}. The observed outcome is public: which observed leaves are {on}; the leaves below two
listed {nodes} were not observed. The hidden cause is the set of ``k`` {marked} {nodes},
drawn uniformly among every ``k``-set that gives exactly the observed states; the outcome
rules out every other ``k``-set. (The story of the isomorphic probe: an evolutionary tree whose
mutations switch a trait on or off, observed in the living species only.)

What the outcome cannot show: {marked} {nodes} inside the unobserved parts, and how a switch
seen at the leaves is made (one {node}, or all of its children; two switches cancel). Queries:
``on(v)`` (is ``v`` {on}?) and ``count(v)`` (how many {marked} {nodes} are numbered ``v`` or
lower?: a group count over the numbers, as in Broken Link); the agent submits the ``k``
{marked} {nodes}, which the ``on`` answers determine (``v`` is {marked} exactly when its state
differs from its parent's).

Configurations: a random {tree} of ``rest`` {nodes} (depth ``depth``, at most 3 children) with
two random subtrees of ``grafts`` {nodes} each hung under two of its inner {nodes}, whose leaves
are the unobserved ones; ``k - 2`` random {nodes} outside them and two inside them are
{marked}, and the draw is kept when the number of explanations lies in the level's range (the
count is exact, by dynamic programming; the hidden cause is then drawn from the counts). Level
1: 12 {nodes}, ``k`` 2, 4 to 12 explanations. Levels 2 to 5: 76, 88, 98 and 106 {nodes} with
unobserved parts of 56, 68, 76 and 84 {nodes} (about 1,500 to 3,500 explanations).

No reasoning-free sweep fits the budget from level 2 on: ``on`` (or ``count``) of every {node}
in order must reach the later of the two {marked} {nodes} hidden in the unobserved parts, on
average two thirds of their 56 to 84 {nodes}, while a ``count`` aimed at the middle of the
numbers still in doubt splits them, so the oracle needs about ``log2(explanations)`` turns.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache, cached_property, lru_cache
from operator import add
from typing import Any

import numpy as np

from mtp_gym.games.base import QuerySpec, answer_subset
from mtp_gym.games.domains import Story, nouns
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


def trait_mask(parents: tuple[int, ...], marked: tuple[int, ...]) -> int:
    """Bitmask of the {nodes} that are {on} when ``marked`` are {marked}."""
    masks = subtree_masks(parents)
    out = 0
    for m in marked:
        out ^= masks[m]
    return out


def _shift(poly: tuple[int, ...], by: int) -> tuple[int, ...]:
    return ((0,) * by + poly)[: len(poly)]


#: A count polynomial: term ``j`` counts the ways with ``j`` {marks}.
Poly = tuple[int, ...]


class _Ways:
    """Counts of the explanations below each {node}, for counting, listing and uniform sampling.

    ``own[v][t][j]``: the ways to {mark} ``j`` {nodes} strictly below ``v`` when ``v``'s state is
    ``t``, giving every observed leaf below it its observed state; ``rest[v][t][i][j]``: the ways
    for the children of ``v`` from the ``i``-th on and their subtrees, together (a child {marked}
    or not).
    """

    def __init__(self, parents: tuple[int, ...], hidden_below: tuple[int, ...], on_leaves: tuple[int, ...], k: int):
        self.kids, masks, self.k = children_of(parents), subtree_masks(parents), k
        unseen = 0
        for v in hidden_below:
            unseen |= masks[v]
        on = sum(1 << v for v in on_leaves)
        #: the states a node may take: an observed leaf shows its own
        self.states = {
            v: (((on >> v & 1),) if not self.kids[v] and not unseen >> v & 1 else (0, 1)) for v in nodes_of(parents)
        }
        none = (1,) + (0,) * k
        #: tuples throughout: the cached tables then cost the garbage collector nothing
        self.own: dict[int, tuple[Poly, Poly]] = {}
        self.rest: dict[int, tuple[tuple[Poly, ...], tuple[Poly, ...]]] = {}
        for v in reversed(order_of(parents)):
            if not self.kids[v]:  # a leaf: nothing below it (what the loop below gives, faster)
                self.own[v], self.rest[v] = (none, none), ((none,), (none,))
                continue
            own, rest = [], []
            # below an unobserved node every leaf may take either state, so its state changes
            # nothing below it: the tables of state 1 are those of state 0
            for t in (0,) if unseen >> v & 1 else (0, 1):
                polys = tuple(self._child_poly(c, t) for c in self.kids[v])
                suffix = [none]
                for poly in reversed(polys):  # a leaf in the parent's state multiplies by 1
                    suffix.append(suffix[-1] if poly is none else convolve_counts(poly, suffix[-1]))
                own.append(suffix[-1])
                rest.append(tuple(suffix[::-1]))
            self.own[v] = (own[0], own[-1])
            self.rest[v] = (rest[0], rest[-1])

    def _child_poly(self, c: int, t: int) -> Poly:
        """The ways for child ``c`` and its subtree under a parent in state ``t``: the sum over
        ``c``'s states ``s`` of ``own[c][s]``, shifted by one {mark} when ``s != t``."""
        states, own = self.states[c], self.own[c]
        if len(states) == 1:
            return own[t] if states[0] == t else _shift(own[states[0]], 1)
        same, other = own[t], own[1 - t]
        return (same[0], *map(add, same[1:], other))  # term j: same[j] + other[j - 1]

    def total(self) -> int:
        return self.own[1][0][self.k]

    def splits(self, v: int, t: int, j: int) -> list[tuple[tuple[int, int, int], ...]]:
        """Every way to share ``j`` {marks} among the children of ``v`` (state ``t``): per child,
        ``(child, its state, marks strictly below it)``, only shares with some explanation."""
        out: list[tuple[tuple[int, int, int], ...]] = [()]
        left = [j]
        for i, c in enumerate(self.kids[v]):
            nxt, nleft = [], []
            for done, r in zip(out, left):
                for s in self.states[c]:
                    flip = int(s != t)
                    for below in range(r - flip + 1):
                        if self.own[c][s][below] and self.rest[v][t][i + 1][r - flip - below]:
                            nxt.append((*done, (c, s, below)))
                            nleft.append(r - flip - below)
            out, left = nxt, nleft
        return [done for done, r in zip(out, left) if r == 0]

    def sample(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A uniform explanation (sorted)."""
        out: list[int] = []

        def walk(v: int, t: int, j: int) -> None:
            if j == 0:  # no mark below: each child's one option, (t, 0), is what rng.integers(1) draws, unused
                return
            for i, c in enumerate(self.kids[v]):
                options = [(s, below) for s in self.states[c] for below in range(j - int(s != t) + 1)]
                weights = [
                    self.own[c][s][below] * self.rest[v][t][i + 1][j - int(s != t) - below] for s, below in options
                ]
                s, below = options[weighted_index(weights, rng)]
                if s != t:
                    out.append(c)
                walk(c, s, below)
                j -= int(s != t) + below

        walk(1, 0, self.k)
        return tuple(sorted(out))


@lru_cache(maxsize=256)  # bounded: generated trees bring new keys forever
def _ways(parents: tuple[int, ...], hidden_below: tuple[int, ...], on_leaves: tuple[int, ...], k: int) -> _Ways:
    return _Ways(parents, hidden_below, on_leaves, k)


def count_explanations(
    parents: tuple[int, ...], hidden_below: tuple[int, ...], on_leaves: tuple[int, ...], k: int
) -> int:
    """How many ``k``-sets :func:`explanations` lists (dynamic programming, no listing)."""
    return _ways(parents, tuple(sorted(hidden_below)), on_leaves, k).total()  # cached: the draw reuses it


@lru_cache(maxsize=256)  # bounded: generated trees bring new keys forever
def explanations(
    parents: tuple[int, ...], hidden_below: tuple[int, ...], on_leaves: tuple[int, ...], k: int
) -> tuple[tuple[int, ...], ...]:
    """Every ``k``-set of {marked} {nodes} (sorted tuples, sorted) that makes exactly the leaves
    ``on_leaves`` {on} among the observed ones (every leaf not below a {node} of
    ``hidden_below``)."""
    w = _ways(parents, hidden_below, on_leaves, k)

    @cache
    def below(v: int, t: int, j: int) -> tuple[tuple[int, ...], ...]:
        if not w.kids[v]:
            return ((),) if j == 0 else ()
        out: list[tuple[int, ...]] = []
        for split in w.splits(v, t, j):
            parts: list[tuple[int, ...]] = [()]
            for c, s, n in split:
                head = (c,) if s != t else ()
                parts = [done + head + more for done in parts for more in below(c, s, n)]
            out.extend(parts)
        return tuple(out)

    return tuple(sorted(tuple(sorted(s)) for s in below(1, 0, k)))


class _Table:
    """The explanations of one public part as bitmasks (what the queries read)."""

    def __init__(self, parents: tuple[int, ...], states: tuple[tuple[int, ...], ...]) -> None:
        self.mask = {s: sum(1 << v for v in s) for s in states}
        self.on = {s: trait_mask(parents, s) for s in states}


@lru_cache(maxsize=64)
def _table(parents: tuple[int, ...], hidden_below: tuple[int, ...], on_leaves: tuple[int, ...], k: int) -> _Table:
    return _Table(parents, explanations(parents, hidden_below, on_leaves, k))


class TreeTraitMutations(ShownTreeGame):
    """Tree Trait Mutations (tree, abductive): which marked nodes explain the leaves that are on?

    Shown: a rooted tree and the outcome: which observed leaves are on (a node is on when an odd
    number of marked nodes lie on its path from the root). Hidden: the ``k`` marked nodes (one of
    the sets that explain the outcome). Queries: ``on(v)`` (Yes/No) and ``count(v)`` (how many
    marked nodes are numbered ``v`` or lower?). Answer: the ``k`` marked nodes. Levels: 12, 76, 88,
    98 and 106 nodes, ``k`` 2 then 3: 4-12, then 1500-1700 up to 3450-3750 explanations.
    """

    name = "TreeTraitMutations"
    structure = "tree"
    inference = "abductive"
    levels = tuple(
        {"n": rest + sum(g), "rest": rest, "depth": d, "grafts": g, "graft_depth": gd, "k": k, "explanations": e}
        for rest, d, g, gd, k, e in (
            (8, 2, (4,), 2, 2, (4, 12)),
            (20, 4, (28, 28), 5, 3, (1500, 1700)),
            (20, 4, (34, 34), 6, 3, (2250, 2450)),
            (22, 4, (38, 38), 5, 3, (2800, 3050)),
            (22, 4, (42, 42), 6, 3, (3450, 3750)),
        )
    )
    budgets = (9, 25, 27, 27, 28)
    transient = ("_index",)
    queries = (
        QuerySpec("on", (int,), "is this {node} {on}?"),
        QuerySpec("count", (int,), "how many {marked} {nodes} are numbered this or lower?"),
    )
    vocabulary = {
        **TREE_WORDS,
        "leaves": "leaves",
        "marked": "marked",
        "on": "on",
        "off": "off",
    }
    rules_template = (
        "Here is a {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each line "
        "lists the {children} of one {node}:\n{tree_text}\n"
        "Exactly {k} {nodes} are {marked}, never the {root}; which ones is hidden. A {node} is {on} "
        "when an odd number of {marked} {nodes} lie on its path from the {root} (itself included), "
        "and {off} otherwise, so the {root} is {off}. Observed outcome: the {leaves} below "
        "{unseen_text} were not observed; of the other {leaves}, the {on} ones are {on_text} and the "
        "rest are {off}. Your goal is to find the {k} {marked} {nodes}; several sets of {k} {nodes} "
        "could explain the outcome. You may ask one question per turn using the following format:\n"
        "{query_formats}\n"
        "When you know the answer, submit the {k} {marked} {nodes} separated by commas:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "tree node nodes root children leaves marked on off",
        education={
            "tree": "academic genealogy",
            "node": "scholar",
            "nodes": "scholars",
            "root": "founding scholar",
            "children": "students",
            "leaves": "current students",
            "marked": "dissenting",
            "on": "reformed",
            "off": "traditional",
        },
        healthcare={
            "tree": "inheritance pedigree",
            "node": "family member",
            "nodes": "family members",
            "root": "founder",
            "children": "offspring",
            "leaves": "living descendants",
            "marked": "mutated",
            "on": "affected",
            "off": "unaffected",
        },
        transportation={
            "tree": "overground network",
            "node": "station",
            "nodes": "stations",
            "root": "terminus",
            "children": "next stations",
            "leaves": "end stations",
            "marked": "refitted",
            "on": "step-free",
            "off": "stepped",
        },
        manufacturing={
            "tree": "assembly tree",
            "node": "part",
            "nodes": "parts",
            "root": "base model",
            "children": "derived parts",
            "leaves": "final variants",
            "marked": "redesigned",
            "on": "coated",
            "off": "uncoated",
        },
        law={
            "tree": "ownership tree",
            "node": "company",
            "nodes": "companies",
            "root": "holding company",
            "children": "subsidiaries",
            "leaves": "operating companies",
            "marked": "restructured",
            "on": "tax-exempt",
            "off": "taxable",
        },
    )
    story = Story(
        setting="The {tree} below has {n} {nodes}, numbered 1 to {n}. Its top is {node} 1, the {root}; "
        "every row names a {node} and then its {children}:\n{tree_text}\n"
        "Out of sight, exactly {k} {nodes} are {marked} (never the {root}). Each {marked} {node} flips the "
        "state of everything at or beneath it, so a {node} ends up {on} precisely when the path down to it "
        "from the {root} meets an odd count of {marked} {nodes} (itself counted), and {off} when the count is "
        "even; the {root} is therefore {off}. What is visible now: nothing was seen of the {leaves} beneath "
        "{unseen_text}; among the remaining {leaves}, those that are {on} are {on_text}, and the "
        "others are {off}. Find the {k} {marked} {nodes}; more than one group of {k} {nodes} would fit what "
        "was seen.",
        answer="the numbers of those {k} {marked} {nodes}, with commas between them",
        queries={
            "on": "does this {node} end up {on}?",
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
            unseen = [u for u in nodes_of(parents) if below >> u & 1]
            seen = [u for u in nodes_of(parents) if u != 1 and not below >> u & 1]
            extra = min(2, p["k"] - 1)
            marked = (
                *(seen[int(i)] for i in rng.choice(len(seen), size=p["k"] - extra, replace=False)),
                *(unseen[int(i)] for i in rng.choice(len(unseen), size=extra, replace=False)),
            )
            on = trait_mask(parents, marked)
            on_leaves = tuple(v for v in leaves_of(parents) if v in seen and on >> v & 1)
            if low <= count_explanations(parents, tops, on_leaves, p["k"]) <= high:
                return {"parents": parents, "hidden_below": tuple(sorted(tops)), "on_leaves": on_leaves}

    @cached_property
    def _key(self) -> tuple:
        return self.parents, tuple(self.public["hidden_below"]), tuple(self.public["on_leaves"]), self.params["k"]

    def sample_hidden(self, rng: np.random.Generator) -> tuple[int, ...]:
        """Uniform over the explanations (drawn from their counts, without listing them)."""
        return _ways(*self._key).sample(rng)

    @cached_property
    def _index(self) -> _Table:
        return _table(*self._key)

    def rules_fields(self) -> dict[str, Any]:
        shown, below = self.public["on_leaves"], self.public["hidden_below"]
        return {
            **super().rules_fields(),
            "unseen_text": self.vocab["node" if len(below) == 1 else "nodes"] + " " + " and ".join(map(str, below)),
            "on_text": ", ".join(map(str, shown)) if shown else "none",
        }

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return explanations(*self._key)

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "on" else (self.params["n"] // 2,)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        v = args[0]
        if name == "on":
            on = self._index.on.get(hidden)
            return bool((trait_mask(self.parents, hidden) if on is None else on) >> v & 1)
        mask = self._index.mask.get(hidden)
        if mask is None:  # not an explanation of this outcome (a hand-made state)
            mask = sum(1 << u for u in hidden)
        return (mask & ((1 << (v + 1)) - 1)).bit_count()

    def parse_answer(self, text: str) -> tuple[int, ...]:
        n, k = self.params["n"], self.params["k"]
        message = f"submit exactly {k} distinct {self.vocab['nodes']} from 2 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, k, 2, n, message)

    def format_answer(self, target: tuple[int, ...]) -> str:
        return ", ".join(str(x) for x in target)
