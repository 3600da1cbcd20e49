"""Rooted-tree helpers shared by the tree games, and ``ShownTreeGame``, their common base.

A tree on the nodes ``1..n`` is stored as its parent tuple ``parents`` (``parents[v - 1]`` is
the parent of node ``v``) with ``parents[0] == 0``: node 1 is the root. The tuple is a plain,
JSON-friendly public configuration. :func:`random_tree` and :func:`grafted_tree` number the
nodes in breadth-first order (a parent's number is smaller than its children's); the helpers
take any numbering with the root 1 (they walk :func:`order_of`, the breadth-first order).
Subtrees are int bitmasks (bit ``v`` set for node ``v``) so that the games' ``respond``
functions, called on every candidate state by the oracle and the tests, stay cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from mtp_gym.games._draws import ExactDraws
from mtp_gym.games.base import Game

__all__ = [
    "random_tree",
    "bfs_numbering",
    "grafted_tree",
    "order_of",
    "children_of",
    "depths_of",
    "heights_of",
    "subtree_masks",
    "covered_mask",
    "leaves_of",
    "render_tree",
    "nodes_of",
    "ShownTreeGame",
    "convolve_counts",
]


#: The words every shown-tree game's rules use (a game adds its own after them).
TREE_WORDS = {"tree": "tree", "node": "node", "nodes": "nodes", "root": "root", "children": "children"}


def weighted_index(weights: list[int], rng: np.random.Generator) -> int:
    """An index drawn with probability proportional to ``weights`` (exact Python ints, any size)."""
    x = int(rng.integers(sum(weights)))
    for i, w in enumerate(weights):
        if x < w:
            return i
        x -= w
    raise AssertionError("empty choice")


def random_tree(n: int, depth: int, max_children: int, rng: np.random.Generator) -> tuple[int, ...]:
    """A random tree of ``n`` nodes, exactly ``depth`` levels below the root, <= ``max_children``.

    A spine ``1 -> 2 -> ... -> depth + 1`` guarantees the depth; every further node picks a
    uniform parent among the nodes above the depth limit with a free child slot. The nodes
    are then renumbered in breadth-first order (children by old number), so the spine does
    not sit at the small numbers.
    """
    if not 1 <= depth < n:
        raise ValueError(f"depth must be in 1..{n - 1}, got {depth!r}")
    parent = [-1] + list(range(depth))
    level = list(range(depth + 1))
    kids = [1] * depth + [0]
    open_nodes = [v for v in range(depth + 1) if level[v] < depth and kids[v] < max_children]  # in number order
    with ExactDraws(rng) as draws:  # rng.integers(len(open_nodes)) per node
        for i in range(depth + 1, n):
            if not open_nodes:
                raise ValueError(f"no tree of {n} nodes fits depth {depth} with {max_children} children")
            at = draws.integers(len(open_nodes))
            p = open_nodes[at]
            parent.append(p)
            level.append(level[p] + 1)
            kids[p] += 1
            kids.append(0)
            if kids[p] == max_children:
                del open_nodes[at]
            if level[i] < depth and max_children:
                open_nodes.append(i)
    return bfs_numbering(parent)[0]


def grafted_tree(
    n: int, depth: int, sizes: tuple[int, ...], graft_depth: int, max_children: int, rng: np.random.Generator
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A random tree of ``n`` nodes (depth ``depth``) with a random subtree of each of the
    ``sizes`` (depth ``graft_depth``) grafted under a uniform inner node of it that has a free
    child slot and lies above depth ``depth`` (never inside another graft, so every graft has a
    sibling outside it; any node with a free slot when no inner node has one); ``(parents,
    roots of the grafts)``, numbered breadth first."""
    parent = [p - 1 for p in random_tree(n, depth, max_children, rng)]
    level = [0] * n
    for v in range(1, n):
        level[v] = level[parent[v]] + 1
    kids = [0] * n
    for v in range(1, n):
        kids[parent[v]] += 1
    tops = []
    for size in sizes:
        sub = random_tree(size, min(graft_depth, size - 1), max_children, rng) if size > 1 else (0,)
        slots = [v for v in range(n) if 0 < kids[v] < max_children and level[v] < depth] or [
            v for v in range(n) if kids[v] < max_children and level[v] < depth
        ]
        at = slots[int(rng.integers(len(slots)))]
        base = len(parent)
        tops.append(base)
        for v, p in enumerate(sub):
            parent.append(at if v == 0 else base + p - 1)
            level.append(level[parent[-1]] + 1)
            kids.append(0)
            kids[parent[-1]] += 1
    out, new = bfs_numbering(parent)
    return out, tuple(new[t] for t in tops)


def bfs_numbering(parent: list[int]) -> tuple[tuple[int, ...], dict[int, int]]:
    """The parent tuple of a tree given as a 0-based ``parent`` list (``parent[0]`` unused: node 0
    is the root), numbered 1..n in breadth-first order (children by old number), and the map
    old -> new number."""
    n = len(parent)
    children: list[list[int]] = [[] for _ in range(n)]
    for v in range(1, n):
        children[parent[v]].append(v)
    order, k = [0], 0
    while k < len(order):
        order.extend(children[order[k]])
        k += 1
    new = {old: i + 1 for i, old in enumerate(order)}
    out = [0] * n
    for old in range(1, n):
        out[new[old] - 1] = new[parent[old]]
    return tuple(out), new


def nodes_of(parents: tuple[int, ...]) -> range:
    return range(1, len(parents) + 1)


@lru_cache(maxsize=4096)
def order_of(parents: tuple[int, ...]) -> tuple[int, ...]:
    """Every node in breadth-first order from the root (children ascending): a node comes
    after its parent."""
    kids = children_of(parents)
    order, k = [1], 0
    while k < len(order):
        order.extend(kids[order[k]])
        k += 1
    return tuple(order)


@lru_cache(maxsize=4096)
def children_of(parents: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``children[v]`` for v in 0..n (index 0 unused), ascending."""
    kids: list[list[int]] = [[] for _ in range(len(parents) + 1)]
    for v, p in enumerate(parents, start=1):
        if p:
            kids[p].append(v)
    return tuple(tuple(k) for k in kids)


@lru_cache(maxsize=4096)
def depths_of(parents: tuple[int, ...]) -> tuple[int, ...]:
    """``depth[v]`` (edges from the root) for v in 0..n (index 0 unused)."""
    depth = [0] * (len(parents) + 1)
    for v in order_of(parents)[1:]:
        depth[v] = depth[parents[v - 1]] + 1
    return tuple(depth)


@lru_cache(maxsize=4096)
def heights_of(parents: tuple[int, ...]) -> tuple[int, ...]:
    """``height[v]`` (edges on the longest path down to a leaf) for v in 0..n."""
    height = [0] * (len(parents) + 1)
    for v in reversed(order_of(parents)[1:]):
        p = parents[v - 1]
        height[p] = max(height[p], height[v] + 1)
    return tuple(height)


@lru_cache(maxsize=4096)
def subtree_masks(parents: tuple[int, ...]) -> tuple[int, ...]:
    """``mask[v]``: bitmask of v and its descendants, for v in 0..n (index 0 unused)."""
    mask = [1 << v for v in range(len(parents) + 1)]
    mask[0] = 0
    for v in reversed(order_of(parents)[1:]):
        mask[parents[v - 1]] |= mask[v]
    return tuple(mask)


def covered_mask(parents: tuple[int, ...], nodes: Iterable[int]) -> int:
    """Bitmask of every node that is one of ``nodes`` or lies below one."""
    masks = subtree_masks(parents)
    out = 0
    for v in nodes:
        out |= masks[v]
    return out


@lru_cache(maxsize=4096)
def leaves_of(parents: tuple[int, ...]) -> tuple[int, ...]:
    kids = children_of(parents)
    return tuple(v for v in nodes_of(parents) if not kids[v])


def render_tree(parents: tuple[int, ...], arrow: str = "->") -> str:
    """One line per inner node, in breadth-first order from the root: ``  3 -> 7, 8``."""
    kids = children_of(parents)
    return "\n".join(f"  {v} {arrow} {', '.join(str(c) for c in kids[v])}" for v in order_of(parents) if kids[v])


class ShownTreeGame(Game):
    """A game on a random tree shown in the rules (public ``parents``; ``{tree_text}`` in the
    rules template). Levels need ``n``, ``depth`` and ``max_children``."""

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        return {"parents": random_tree(p["n"], p["depth"], p["max_children"], rng)}

    @cached_property
    def parents(self) -> tuple[int, ...]:
        return tuple(self.public["parents"])

    def rules_fields(self) -> dict[str, Any]:
        return {"tree_text": render_tree(self.parents)}


def convolve_counts(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The product of two count polynomials, cut to ``len(a)`` terms (zero terms skipped). A
    tuple: the count tables the games cache are made of them, and a tuple of numbers is left
    out of the garbage collector's scans (a list is scanned at every full collection)."""
    n = len(a)
    out = [0] * n
    for i, x in enumerate(a):
        if x:
            for j in range(n - i):
                out[i + j] += x * b[j]
    return tuple(out)
