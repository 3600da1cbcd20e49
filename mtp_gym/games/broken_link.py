"""Broken Link (graph, abductive): which broken {links} explain the {nodes} cut off from the {hub}?

The rules show a connected {network} on the {nodes} ``1..n``, its {links} numbered ``#1..#m``
(in order), its {hub} ``1``, and an observed outcome: exactly ``k`` {links} have broken, and
after the failure these {nodes} can no longer reach the {hub} (the others still can). The
hidden cause is the set of ``k`` broken {links}. The outcome forces part of it: every {link}
between a cut-off {node} and one that still reaches the {hub} is broken. The other ``extra``
breaks left no visible trace, and that is what the outcome says about them: they lie inside
the cut-off part, or in the rest where the {network} routes around them, never on a bridge of
the rest nor on two {links} that together cut it apart (either would have cut off more
{nodes}). The {network} is sparse, so the outcome rules out many explanations: in every
configuration of the benchmark split from level 2, 10% to 40% of the ways to place the
hidden breaks once the forced {links} are known would have cut off other {nodes}
(``tests/test_broken_link.py`` counts them). The agent asks ``broken(j)`` (how many of the
{links} ``#1`` to ``#j`` are broken?) and submits the ``k`` broken {links}: backward reasoning
from an observed effect to its cause.

Configurations: a cut-off part of 1 to ``part`` {nodes} (random numbers, never the {hub}) and
the rest, each a random connected {network}, joined by exactly ``k - extra`` {links}, ``m``
{links} in all; the hidden cause is drawn uniformly among the causes of the outcome. Levels
``(n, m, k, extra, part)``: (5, 6, 2, 1, 1), (60, 96, 4, 2, 2), (64, 102, 4, 2, 2),
(68, 108, 5, 2, 3), (72, 114, 5, 2, 3), with 5, about 3450, 4000, 4500 and 4850 causes.

No reasoning-free sweep fits the budget from level 2 on: asking ``broken(1)``, ``broken(2)``,
... in turn (the same as checking the {links} one by one) finds the two hidden breaks only when
it reaches the later one, about two thirds of the way through the 85 to 100 {links} the
outcome leaves open, while a count at the middle of the {links} still in doubt halves them:
the oracle needs about ``log2(causes)`` turns (11 to 13). Level 1 stays small: 5 causes, a
scan fits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cached_property, lru_cache
from itertools import combinations
from math import comb
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from mtp_gym.games._graph import (
    Edge,
    ShownGraphGame,
    adjacency,
    all_pairs,
    bfs_distances,
    edge,
    format_edges,
    parse_edges,
    random_connected_graph,
)
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.domains import Story, nouns

HUB = 1


def cut_off(n: int, edges: tuple[Edge, ...], broken: tuple[Edge, ...]) -> tuple[int, ...]:
    """The nodes that cannot reach the hub once ``broken`` links fail."""
    gone = set(broken)
    reached = bfs_distances(adjacency(n, [e for e in edges if e not in gone]), HUB)
    return tuple(v for v in range(1, n + 1) if v not in reached)


def boundary(edges: tuple[Edge, ...], outcome: tuple[int, ...]) -> tuple[Edge, ...]:
    """The links with exactly one end cut off: every cause of ``outcome`` breaks all of them."""
    lost = set(outcome)
    return tuple(e for e in edges if (e[0] in lost) != (e[1] in lost))


def cycle_labels(n: int, links: Sequence[Edge], root: int) -> dict[Edge, int]:
    """A bit mask per link of a connected network: bit ``i`` is set when the link lies on the
    ``i``-th fundamental cycle of a BFS tree from ``root``. Removing a set of links disconnects
    the network exactly when the masks of some non-empty subset of it XOR to 0 (the set holds a
    cut), so a bridge has mask 0 and two links with equal masks cut the network together."""
    adj = adjacency(n, links)
    parent = {root: 0}
    order = [root]
    for v in order:
        for w in adj[v]:
            if w not in parent:
                parent[w] = v
                order.append(w)
    tree = {edge(v, p) for v, p in parent.items() if p}
    below = dict.fromkeys(parent, 0)  # XOR of the cycle bits of the non-tree links at the node
    labels: dict[Edge, int] = {}
    for i, e in enumerate(x for x in links if x not in tree):
        labels[e] = 1 << i
        below[e[0]] ^= 1 << i
        below[e[1]] ^= 1 << i
    for v in reversed(order):  # a tree link's cycles: those with one end in the subtree below it
        p = parent[v]
        if p:
            labels[edge(v, p)] = below[v]
            below[p] ^= below[v]
    return labels


def _independent(links: Sequence[Edge], labels: Mapping[Edge, int], r: int) -> list[tuple[Edge, ...]]:
    """Every ``r``-set of ``links`` whose masks are independent over GF(2) (no subset XORs to
    0: removing them all keeps the network connected), in ``combinations`` order."""
    if r == 0:
        return [()]
    if r == 1:
        return [(e,) for e in links if labels[e]]
    if r == 2:  # two links cut the network together exactly when their masks are equal
        return [(e, f) for e, f in combinations([e for e in links if labels[e]], 2) if labels[e] != labels[f]]
    out: list[tuple[Edge, ...]] = []
    chosen: list[Edge] = []

    def grow(start: int, basis: list[int]) -> None:
        if len(chosen) == r:
            out.append(tuple(chosen))
            return
        for i in range(start, len(links)):
            v = labels[links[i]]
            for b in basis:  # reduce by the basis (sorted by leading bit, high first)
                v = min(v, v ^ b)
            if v:
                chosen.append(links[i])
                grow(i + 1, sorted([*basis, v], reverse=True))
                chosen.pop()

    grow(0, [])
    return out


class _Parts(NamedTuple):
    """What every cause of an outcome is made of: the forced boundary links (``cut``, as
    positions in ``order``, the sorted links), the links ``inside`` the cut-off part and those
    of the ``rest`` with their cycle ``labels``."""

    order: tuple[Edge, ...]
    cut: tuple[int, ...]
    inside: tuple[Edge, ...]
    rest: tuple[Edge, ...]
    labels: Mapping[Edge, int]
    extra: int


@lru_cache(maxsize=256)  # a draw counts the causes, then reads one: the parts built once
def _parts(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> _Parts | None:
    """The parts of the causes of ``outcome``, or ``None`` when it has no cause (read-only: cached)."""
    lost = set(outcome)
    cut = boundary(edges, outcome)
    extra = k - len(cut)
    if not lost or HUB in lost or extra < 0:
        return None
    inside = tuple(e for e in edges if e[0] in lost and e[1] in lost)
    rest = tuple(e for e in edges if e[0] not in lost and e[1] not in lost)
    if len(bfs_distances(adjacency(n, rest), HUB)) != n - len(lost):
        return None  # the rest is cut apart with no link broken at all
    order = tuple(sorted(edges))
    index = {e: i for i, e in enumerate(order)}
    labels = MappingProxyType(cycle_labels(n, rest, HUB))
    return _Parts(order, tuple(index[e] for e in cut), inside, rest, labels, extra)


def _independent_count(links: Sequence[Edge], labels: Mapping[Edge, int], r: int) -> int:
    """``len(_independent(links, labels, r))``, without listing them for ``r <= 2``."""
    if r == 0:
        return 1
    live = [labels[e] for e in links if labels[e]]
    if r == 1:
        return len(live)
    if r == 2:  # pairs of different masks
        return comb(len(live), 2) - sum(comb(c, 2) for c in Counter(live).values())
    return len(_independent(links, labels, r))


@lru_cache(maxsize=1024)
def count_causes(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> int:
    """``len(causes(n, edges, k, outcome))``, counted without listing them: the causes are the
    boundary, ``r`` independent links of the rest and ``extra - r`` links inside, for each ``r``."""
    parts = _parts(n, edges, k, outcome)
    if parts is None:
        return 0
    return sum(
        _independent_count(parts.rest, parts.labels, r) * comb(len(parts.inside), parts.extra - r)
        for r in range(min(parts.extra, len(parts.rest)) + 1)
    )


def _matrix(rows: list[Any], width: int) -> np.ndarray:
    """``rows`` (each ``width`` ints) as an int64 matrix, also when ``width`` is 0."""
    return np.array(rows, dtype=np.int64).reshape(len(rows), width)


def _unordered_rows(parts: _Parts, k: int) -> np.ndarray:
    """Every cause as a sorted row of positions in ``parts.order``, the rows in no order. Built
    with numpy, one block of rows per number ``r`` of breaks in the rest."""
    index = {e: i for i, e in enumerate(parts.order)}
    blocks = [np.zeros((0, k), dtype=np.int64)]
    for r in range(min(parts.extra, len(parts.rest)) + 1):
        inner = _matrix(list(combinations([index[e] for e in parts.inside], parts.extra - r)), parts.extra - r)
        if r == 2:  # independent pairs: both masks non-zero and different
            live = [e for e in parts.rest if parts.labels[e]]
            label_id: dict[int, int] = {}
            ids = np.array([label_id.setdefault(parts.labels[e], len(label_id)) for e in live], dtype=np.int64)
            a, b = np.triu_indices(len(live), 1)
            keep = ids[a] != ids[b]
            at = np.array([index[e] for e in live], dtype=np.int64)
            gone = np.stack([at[a[keep]], at[b[keep]]], axis=1) if len(live) else np.zeros((0, 2), dtype=np.int64)
        else:
            gone = _matrix([[index[e] for e in g] for g in _independent(parts.rest, parts.labels, r)], r)
        if not len(gone) or not len(inner):
            continue
        g, h = len(gone), len(inner)
        cut = np.broadcast_to(np.array(parts.cut, dtype=np.int64), (g * h, len(parts.cut)))
        blocks.append(np.concatenate([cut, np.repeat(gone, h, axis=0), np.tile(inner, (g, 1))], axis=1))
    return np.sort(np.concatenate(blocks), axis=1)


def _row_keys(rows: np.ndarray, base: int) -> np.ndarray | None:
    """Each row as one number in ``base`` (lexicographic order of the rows = order of the
    numbers), or ``None`` when that overflows."""
    k = rows.shape[1]
    if base**k >= 2**62:
        return None
    return rows @ (base ** np.arange(k - 1, -1, -1, dtype=np.int64))


@lru_cache(maxsize=256)
def cause_rows(
    n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]
) -> tuple[np.ndarray, tuple[Edge, ...]]:
    """Every cause of ``outcome`` as a row of positions in the sorted links (each row sorted,
    the rows in lexicographic order: the order of :func:`causes`), and the sorted links."""
    parts = _parts(n, edges, k, outcome)
    if parts is None:
        return np.zeros((0, k), dtype=np.int64), tuple(sorted(edges))
    rows = _unordered_rows(parts, k)
    keys = _row_keys(rows, len(parts.order))
    rows = rows[np.lexsort(rows.T[::-1]) if keys is None else np.argsort(keys)]
    rows.flags.writeable = False
    return rows, parts.order


def nth_cause(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...], index: int) -> tuple[Edge, ...]:
    """``causes(n, edges, k, outcome)[index]``, selecting that one row (no sort of them all;
    with at most two links beyond the boundary, not even a list of the rows)."""
    parts = _parts(n, edges, k, outcome)
    if parts is not None and parts.extra <= 2:
        return tuple(parts.order[i] for i in sorted((*parts.cut, *_nth_extra(parts, index))))
    rows = _unordered_rows(parts, k) if parts is not None else np.zeros((0, k), dtype=np.int64)
    if not 0 <= index < len(rows):
        raise IndexError(f"cause {index} of {len(rows)}")
    assert parts is not None
    keys = _row_keys(rows, len(parts.order))
    if keys is None:
        row = rows[np.lexsort(rows.T[::-1])][index]
    else:
        row = rows[np.flatnonzero(keys == np.partition(keys, index)[index])[0]]
    return tuple(parts.order[i] for i in row.tolist())


def _nth_extra(parts: _Parts, index: int) -> tuple[int, ...]:
    """The links beyond the boundary (positions in ``parts.order``, at most two) of the
    ``index``-th cause. Every cause holds the boundary, so the causes are in the order of these
    sets, sorted: for each first link, count the second links that go with it (any inside the
    cut-off part; one of the rest whose loss alone keeps it connected, and beside another such
    not one with the same cycle label, which would cut the rest with it)."""
    at = {e: i for i, e in enumerate(parts.order)}
    label = {at[e]: parts.labels[e] for e in parts.rest if parts.labels[e]}  # the rest's links that may break
    ends = sorted({at[e] for e in parts.inside} | label.keys())
    if parts.extra < 2:
        sets = [()] if parts.extra == 0 else [(p,) for p in ends]
        if not 0 <= index < len(sets):
            raise IndexError(f"cause {index} of {len(sets)}")
        return sets[index]
    seconds = []  # per first link (from the last): the second links after it that go with it
    inside_after = rest_after = 0
    same_label: Counter[int] = Counter()
    for p in reversed(ends):
        if p in label:
            seconds.append(inside_after + rest_after - same_label[label[p]])
            rest_after += 1
            same_label[label[p]] += 1
        else:
            seconds.append(inside_after + rest_after)
            inside_after += 1
    seconds.reverse()
    if not 0 <= index < sum(seconds):
        raise IndexError(f"cause {index} of {sum(seconds)}")
    for i, (p, count) in enumerate(zip(ends, seconds)):
        if index >= count:
            index -= count
            continue
        for q in ends[i + 1 :]:
            if p in label and q in label and label[p] == label[q]:
                continue
            if index == 0:
                return p, q
            index -= 1
    raise AssertionError("the counts cover every index")


@lru_cache(maxsize=256)
def causes(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> tuple[tuple[Edge, ...], ...]:
    """Every ``k``-set of links whose failure cuts off exactly ``outcome``, sorted.

    Such a set breaks the boundary of the cut-off part and ``k - len(boundary)`` more links:
    any inside the cut-off part, and inside the rest only sets whose loss keeps it connected
    (:func:`cause_rows`; a draw or a reply needs only :func:`count_causes` and one row).
    """
    rows, order = cause_rows(n, edges, k, outcome)
    return tuple(tuple(order[i] for i in row) for row in rows.tolist())


def ruled_out(n: int, edges: tuple[Edge, ...], k: int, outcome: tuple[int, ...]) -> float:
    """The share of the ``k``-sets that break the forced boundary (what the outcome forces) that
    the outcome rules out: they would have cut off other nodes too."""
    cut = boundary(edges, outcome)
    total = comb(len(edges) - len(cut), k - len(cut)) if k >= len(cut) else 0
    return 1 - count_causes(n, edges, k, outcome) / total if total else 0.0


class _Index:
    """Answer tables of one public part: a bit per link, a mask per cause (filled as replies
    need them), and the masks of the links #1 to #j."""

    def __init__(self, edges: tuple[Edge, ...]) -> None:
        self.bit: dict[tuple[int, ...], int] = {e: 1 << i for i, e in enumerate(edges)}
        self.masks: dict[tuple[Edge, ...], int] = {}
        self.first = [(1 << j) - 1 for j in range(len(edges) + 1)]  # the links #1 to #j

    def mask(self, links: Iterable[Sequence[int]]) -> int:
        """The bits of ``links`` (pairs as tuples or, from JSON, lists)."""
        return sum(self.bit.get(tuple(e), 0) for e in links)


@lru_cache(maxsize=64)
def _index(edges: tuple[Edge, ...]) -> _Index:
    return _Index(edges)


class BrokenLink(ShownGraphGame):
    """Broken Link (graph, abductive): which broken links cut nodes off from the hub?

    Shown: a network with numbered links, its hub, ``k`` and the outcome: the nodes that can no
    longer reach the hub. Hidden: the ``k`` broken links (one of the causes of that outcome).
    Query: ``broken(j)`` (how many of the links ``#1..#j`` are broken?). Answer: the ``k`` broken
    links. Levels ``(n, links, k)``: (5, 6, 2), (60, 96, 4), (64, 102, 4), (68, 108, 5),
    (72, 114, 5): 5 to about 4850 causes.
    """

    name = "BrokenLink"
    structure = "graph"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "k": k, "extra": x, "part": p, "min_causes": lo, "max_causes": hi, "min_ruled_out": r}
        for n, m, k, x, p, lo, hi, r in (
            (6, 7, 2, 1, 1, 4, 5, 0.1),
            (60, 96, 4, 2, 2, 3200, 3700, 0.1),
            (64, 102, 4, 2, 2, 3750, 4250, 0.1),
            (68, 108, 5, 2, 3, 4250, 4700, 0.1),
            (72, 114, 5, 2, 3, 4700, 5200, 0.1),
        )
    )
    budgets = (9, 27, 29, 29, 30)
    transient = ("_table",)
    queries = (QuerySpec("broken", (int,), "how many of the {links} numbered from #1 up to this number are broken?"),)
    vocabulary = {
        "node": "node",
        "nodes": "nodes",
        "link": "link",
        "links": "links",
        "network": "network",
        "hub": "hub",
    }
    rules_template = (
        "A {network} joins the {nodes} numbered 1 to {n}; its {links}, numbered, are: {link_list}. "
        "{node_cap} 1 is the {hub}. Exactly {k} {links} have broken, and now {node_plural} {lost_list} "
        "can no longer reach the {hub}; every other {node} still can.\n"
        "Your goal is to find the {k} broken {links}. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the answer, submit the {k} broken {links} as pairs of {nodes}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "node nodes link links network hub",
        education={
            "node": "school building",
            "nodes": "school buildings",
            "link": "footpath",
            "links": "footpaths",
            "network": "campus path network",
            "hub": "main hall",
        },
        healthcare={
            "node": "clinic",
            "nodes": "clinics",
            "link": "courier route",
            "links": "courier routes",
            "network": "courier network",
            "hub": "central hospital",
        },
        transportation={"hub": "central station"},
        manufacturing={"node": "workstation", "nodes": "workstations", "hub": "loading dock"},
        law={
            "node": "court office",
            "nodes": "court offices",
            "link": "secure line",
            "links": "secure lines",
            "network": "court communication network",
            "hub": "central registry",
        },
    )
    story = Story(
        setting="In a {network}, the {nodes} numbered 1 to {n} are connected by these {links}, each with "
        "its own tag: {link_list}. {node_cap} 1 serves as the {hub}. {k} of the {links}, no more and no "
        "fewer, have failed; as a result {node_plural} {lost_list} can no longer get to the {hub}, while every "
        "other {node} still can.\nTrack down the {k} failed {links}.",
        answer="those {k} failed {links}, each written as a pair of {nodes}",
        queries={
            "broken": "among the {links} tagged #1 through the tag given here, how many failed?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        edges = self.public.get("edges") or all_pairs(self.params["n"])
        return "<answer>" + format_edges(tuple(edges)[: self.params["k"]]) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        """A cut-off part of 1..``part`` nodes and the rest, each a random connected network,
        joined by exactly ``k - extra`` links; kept when the outcome has ``min_causes`` to
        ``max_causes`` causes and rules out at least ``min_ruled_out`` of the ways to place the
        hidden breaks beside the forced ones (the outcome must constrain the cause)."""
        p = cls.levels[level - 1]
        n, m, k, across = p["n"], p["m"], p["k"], p["k"] - p["extra"]
        while True:
            size = int(rng.integers(1, p["part"] + 1))
            order = [HUB] + [int(v) + 2 for v in rng.permutation(n - 1)]
            lost, rest = sorted(order[n - size :]), order[: n - size]
            inner = size - 1 + int(rng.integers((size - 1) * (size - 2) // 2 + 1))
            edges = set()
            if size > 1:
                edges |= {edge(lost[a - 1], lost[b - 1]) for a, b in random_connected_graph(size, inner, rng)}
            edges |= {
                edge(rest[a - 1], rest[b - 1]) for a, b in random_connected_graph(n - size, m - across - inner, rng)
            }
            pairs = [edge(a, b) for a in lost for b in rest]
            edges |= {pairs[int(i)] for i in rng.choice(len(pairs), size=across, replace=False)}
            shown, cut_off = tuple(sorted(edges)), tuple(lost)
            found = count_causes(n, shown, k, cut_off)
            if p["min_causes"] <= found <= p["max_causes"] and ruled_out(n, shown, k, cut_off) >= p["min_ruled_out"]:
                return {"edges": shown, "lost": cut_off}

    def rules_fields(self) -> dict[str, Any]:
        lost = self.public["lost"]
        return {
            **super().rules_fields(),
            "link_list": ", ".join(f"#{j} {a}-{b}" for j, (a, b) in enumerate(self.edges, 1)),
            "lost_list": ", ".join(str(v) for v in lost),
            "node_cap": self.vocab["node"][:1].upper() + self.vocab["node"][1:],
            "node_plural": self.vocab["node"] if len(lost) == 1 else self.vocab["nodes"],
        }

    def _key(self) -> tuple[int, tuple[Edge, ...], int, tuple[int, ...]]:
        """The level's size and the public graph and outcome as hashable tuples."""
        return self.params["n"], self.edges, self.params["k"], tuple(self.public["lost"])

    def candidate_states(self) -> tuple[tuple[Edge, ...], ...]:
        return causes(*self._key())

    def sample_hidden(self, rng: np.random.Generator) -> tuple[Edge, ...]:
        """Uniform over the causes (the default's draw), reading only the drawn one."""
        key = self._key()
        return nth_cause(*key, int(rng.integers(count_causes(*key))))

    @cached_property
    def _table(self) -> _Index:
        """The answer tables of this public part (shared by instances; left out of pickles)."""
        return _index(self.edges)

    def query_args(self, name: str) -> list[tuple]:
        return [(j,) for j in range(1, len(self.public["edges"]) + 1)]

    def example_args(self, name: str) -> tuple:
        return (len(self.public["edges"]) // 2,)

    def respond(self, hidden: tuple[Edge, ...], name: str, args: tuple) -> Hashable:
        table = self._table
        mask = table.masks.get(hidden)
        if mask is None:
            mask = table.mask(hidden)
            if len(table.masks) < 1 << 14:
                table.masks[hidden] = mask
        return (mask & table.first[args[0]]).bit_count()

    def parse_answer(self, text: str) -> tuple[Edge, ...]:
        edges = [tuple(e) for e in self.public["edges"]]
        return parse_edges(text, edges, self.params["k"], self.answer_format)

    def format_answer(self, target: tuple[Edge, ...]) -> str:
        return format_edges(target)
