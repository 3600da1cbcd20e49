"""Tree Trait Mutations (tree, abductive): explain the trait pattern at the leaves of a phylogeny.

The rules show an evolutionary tree (a random shape per configuration, public). The root
lacks a trait; exactly ``k`` mutations happened (hidden), each on the branch into one
non-root node, and each switches the trait for that node and its whole subtree (gain or
loss), so a node has the trait exactly when an odd number of mutations lie on its path from
the root. The observed outcome is public: which leaves have the trait. Many ``k``-sets of
mutations produce the same leaf pattern, and the hidden one is drawn uniformly among them.
Queries: ``trait(v)`` (does node ``v`` have the trait? e.g. a fossil of an ancestor) and
``mutations(v)`` (how many of the ``k`` mutations lie on branches inside ``v``'s subtree, the
branch into ``v`` included); the agent submits the ``k`` nodes whose branch mutated. The
``trait`` answers determine them (``v`` mutated exactly when its trait differs from its
parent's). Levels grow the tree, ``k`` and the number of explanations of the shown pattern
(configurations are redrawn until the count lies in the level's range): depth 3 / 12 nodes /
k 2 / 4-12 explanations, 4 / 18 / 3 / 6-20, 5 / 26 / 3 / 10-40, 6 / 36 / 4 / 24-120,
7 / 48 / 5 / 60-300 (at most 3 children per node; ranges that random draws reach often
enough, about one draw in 5-20, so that a reset stays in the milliseconds). So even level 1
leaves at least 4 explanations of the shown pattern, and a guess among them wins at most 1 in 4.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from mtp_gym.games.base import QuerySpec, answer_subset
from mtp_gym.games.trees import ShownTreeGame, children_of, leaves_of, nodes_of, random_tree, subtree_masks


def trait_mask(parents: tuple[int, ...], mutations: tuple[int, ...]) -> int:
    """Bitmask of the nodes that have the trait after ``mutations``."""
    masks = subtree_masks(parents)
    out = 0
    for m in mutations:
        out ^= masks[m]
    return out


@lru_cache(maxsize=4096)  # bounded: generated trees bring new keys forever
def explanations(parents: tuple[int, ...], with_trait: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    """Every ``k``-set of mutated nodes giving exactly ``with_trait`` at the leaves, sorted.

    A depth-first walk over the trait of each inner node (the leaves' traits are observed);
    a node mutated exactly when its trait differs from its parent's.
    """
    n = len(parents)
    kids = children_of(parents)
    leaf_trait = {v: v in with_trait for v in leaves_of(parents)}
    inner = [v for v in range(2, n + 1) if kids[v]]
    trait = [False] * (n + 1)
    out: list[tuple[int, ...]] = []

    def leaf_flips(v: int) -> list[int]:
        return [c for c in kids[v] if not kids[c] and leaf_trait[c] != trait[v]]

    def walk(i: int, chosen: list[int]) -> None:
        if len(chosen) > k:
            return
        if i == len(inner):
            if len(chosen) == k:
                out.append(tuple(sorted(chosen)))
            return
        v = inner[i]
        for t in (False, True):
            trait[v] = t
            flips = ([v] if t != trait[parents[v - 1]] else []) + leaf_flips(v)
            walk(i + 1, chosen + flips)

    walk(0, leaf_flips(1))
    return tuple(sorted(out))


def count_explanations(parents: tuple[int, ...], with_trait: tuple[int, ...], k: int) -> int:
    """``len(explanations(parents, with_trait, k))`` by dynamic programming over the tree,
    without listing them (the generator's rejection test)."""
    n = len(parents)
    kids = children_of(parents)
    shown = set(with_trait)
    ways: dict[int, tuple[list[int], list[int]]] = {}  # node -> (trait off, trait on): ways by mutation count below it

    def add_child(acc: list[int], child: list[int], shift: int) -> list[int]:
        out = [0] * (k + 1)
        for i, a in enumerate(acc):
            if a:
                for j, b in enumerate(child[: k + 1 - i - shift]):
                    out[i + j + shift] += a * b
        return out

    for v in range(n, 0, -1):
        per_trait = []
        for t in (False, True):
            acc = [1] + [0] * k
            for c in kids[v]:
                if kids[c]:
                    child_off, child_on = ways[c]
                    acc = [
                        x + y for x, y in zip(add_child(acc, child_off, int(t)), add_child(acc, child_on, int(not t)))
                    ]
                else:
                    acc = add_child(acc, [1], int((c in shown) != t))
            per_trait.append(acc)
        ways[v] = (per_trait[0], per_trait[1])
    return ways[1][0][k]


class TreeTraitMutations(ShownTreeGame):
    name = "TreeTraitMutations"
    structure = "tree"
    inference = "abductive"
    levels = tuple(
        {"depth": d, "n": n, "k": k, "max_children": 3, "explanations": e}
        for d, n, k, e in (
            (3, 12, 2, (4, 12)),
            (4, 18, 3, (6, 20)),
            (5, 26, 3, (10, 40)),
            (6, 36, 4, (24, 120)),
            (7, 48, 5, (60, 300)),
        )
    )
    budgets = (7, 8, 10, 12, 14)
    queries = (
        QuerySpec("trait", (int,), "does this {node} have the {trait}?"),
        QuerySpec(
            "mutations",
            (int,),
            "how many {mutations} happened on {branch}es inside this {node}'s {subtree} (the {branch} into it included)?",
        ),
    )
    vocabulary = {
        "tree": "evolutionary tree",
        "node": "taxon",
        "nodes": "taxa",
        "root": "common ancestor",
        "children": "descendants",
        "leaf": "living species",
        "leaves": "living species",
        "subtree": "clade",
        "branch": "branch",
        "trait": "trait",
        "mutation": "mutation",
        "mutations": "mutations",
    }
    rules_template = (
        "Here is an {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each row "
        "lists the direct {children} of one {node}, each joined to it by a {branch}:\n{tree_text}\n"
        "The {root} lacks the {trait}. Exactly {k} {mutations} happened, each on the {branch} "
        "into one {node} (never two on the same {branch}); a {mutation} switches the {trait} on or "
        "off for that {node} and everything below it, so a {node} has the {trait} exactly when an "
        "odd number of {mutations} lie on its path from the {root}. Observed outcome: the "
        "{leaves} (the {nodes} without {children}) that have the {trait} are {trait_text}; the "
        "other {leaves} lack it. Your goal is to find the {k} {nodes} whose {branch} carried a "
        "{mutation}. You may ask one question per turn using the following format:\n"
        "{query_formats}\n"
        "When you know the answer, submit the {k} {nodes} separated by commas:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(i) for i in range(2, self.params["k"] + 2)) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        low, high = p["explanations"]
        while True:
            parents = random_tree(p["n"], p["depth"], p["max_children"], rng)
            mutations = tuple(int(x) + 2 for x in rng.choice(p["n"] - 1, size=p["k"], replace=False))
            traits = trait_mask(parents, mutations)
            with_trait = tuple(v for v in leaves_of(parents) if traits >> v & 1)
            if low <= count_explanations(parents, with_trait, p["k"]) <= high:
                return {"parents": parents, "with_trait": with_trait}

    def rules_fields(self) -> dict[str, Any]:
        shown = self.public["with_trait"]
        return {
            **super().rules_fields(),
            "trait_text": ", ".join(str(v) for v in shown) if shown else "none",
        }

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return explanations(self.parents, tuple(self.public["with_trait"]), self.params["k"])

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (3,)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        v = args[0]
        if name == "trait":
            return bool(trait_mask(self.parents, hidden) >> v & 1)
        mask = subtree_masks(self.parents)[v]
        return sum(mask >> m & 1 for m in hidden)

    def parse_answer(self, text: str) -> tuple[int, ...]:
        n, k = self.params["n"], self.params["k"]
        message = f"submit exactly {k} distinct {self.vocab['nodes']} from 2 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, k, 2, n, message)

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(x) for x in target)
