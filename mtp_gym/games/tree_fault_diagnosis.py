"""Tree Fault Diagnosis (tree, abductive): explain an observed outage by its faulty nodes.

The rules show a distribution tree (a random shape per configuration, public): power flows
from the root down every edge and a faulty node passes none on, so a node is without power
exactly when it or one of its ancestors is faulty. One or more nodes are faulty (hidden),
none below another. The observed outcome is public: which leaves have no power. Several
fault sets explain the same outage (a parent's fault looks like faults in all its children,
a single-child chain hides where the fault sits), and the hidden one is drawn uniformly
among every explanation. Queries: ``powered(v)`` (does ``v`` have power?) and ``faulty(v)``
(is ``v`` itself faulty?); the agent submits the faulty nodes, which the ``faulty`` answers
determine. Levels grow the tree and the number of explanations of the shown outage (the
outage comes from ``k`` random faults; configurations are redrawn until the count of
explanations lies in the level's range): depth 3 / 12 nodes / k 2 / 5-12 explanations,
4 / 18 / 2 / 13-40, 5 / 26 / 3 / 41-120, 6 / 36 / 4 / 121-400, 7 / 48 / 5 / 401-1200 (at
most 3 children per node), so level 1 already offers at least 5 explanations.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import QuerySpec, answer_ints
from mtp_gym.games.trees import ShownTreeGame, children_of, leaves_of, nodes_of, random_tree, subtree_masks


def dark_mask(parents: tuple[int, ...], faults: tuple[int, ...]) -> int:
    """Bitmask of every node without power when ``faults`` are faulty."""
    masks = subtree_masks(parents)
    out = 0
    for f in faults:
        out |= masks[f]
    return out


def _leaf_masks(parents: tuple[int, ...]) -> tuple[int, ...]:
    leaf_mask = sum(1 << v for v in leaves_of(parents))
    return tuple(m & leaf_mask for m in subtree_masks(parents))


def count_explanations(parents: tuple[int, ...], dark: int) -> int:
    """How many explanations :func:`explanations` lists (without listing them)."""
    kids, leafs = children_of(parents), _leaf_masks(parents)

    def ways(v: int) -> int:
        if not leafs[v] & dark:
            return 1
        inner = 1
        for c in kids[v]:
            inner *= ways(c)
        if leafs[v] & dark == leafs[v]:
            return 1 + (inner if kids[v] else 0)
        return inner

    return ways(1)


@lru_cache(maxsize=4096)  # bounded: generated trees bring new keys forever
def explanations(parents: tuple[int, ...], dark_leaves: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every fault set, no fault below another, whose outage at the leaves is ``dark_leaves``.

    Sorted tuples of nodes, in a fixed order.
    """
    kids, leafs = children_of(parents), _leaf_masks(parents)
    dark = sum(1 << v for v in dark_leaves)

    def covers(v: int) -> list[tuple[int, ...]]:
        if not leafs[v] & dark:
            return [()]
        out = [(v,)] if leafs[v] & dark == leafs[v] else []
        if kids[v]:
            inner = [()]
            for c in kids[v]:
                inner = [a + b for a in inner for b in covers(c)]
            out.extend(inner)
        return out

    return tuple(tuple(sorted(f)) for f in covers(1))


class TreeFaultDiagnosis(ShownTreeGame):
    name = "TreeFaultDiagnosis"
    structure = "tree"
    inference = "abductive"
    levels = tuple(
        {"depth": d, "n": n, "k": k, "max_children": 3, "explanations": e}
        for d, n, k, e in (
            (3, 12, 2, (5, 12)),
            (4, 18, 2, (13, 40)),
            (5, 26, 3, (41, 120)),
            (6, 36, 4, (121, 400)),
            (7, 48, 5, (401, 1200)),
        )
    )
    budgets = (8, 12, 14, 18, 22)
    queries = (
        QuerySpec("powered", (int,), "does this {node} have {power}?"),
        QuerySpec("faulty", (int,), "is this {node} itself {faulty}?"),
    )
    vocabulary = {
        "network": "power network",
        "node": "station",
        "nodes": "stations",
        "root": "power plant",
        "children": "downstream stations",
        "leaf": "end station",
        "leaves": "end stations",
        "power": "power",
        "faulty": "faulty",
        "link": "cable",
    }
    rules_template = (
        "Here is a {network} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each row "
        "lists the {children} of one {node}, each fed by a {link} from it:\n{tree_text}\n"
        "{power_cap} flows from the {root} down every {link}, and a {faulty} {node} passes no "
        "{power} on: a {node} is without {power} exactly when it or a {node} above it is {faulty}. "
        "One or more {nodes} are {faulty}, and no {faulty} {node} lies below another {faulty} "
        "{node}. Observed outcome: the {leaves} without {power} are {dark_text}; every other "
        "{leaf} has {power}. Your goal is to find every {faulty} {node} that caused this outcome. "
        "You may ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit all the {faulty} {nodes} separated by commas:\n"
        "{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>2, 3</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        low, high = p["explanations"]
        while True:
            parents = random_tree(p["n"], p["depth"], p["max_children"], rng)
            masks = subtree_masks(parents)
            faults: list[int] = []
            for v in rng.permutation(p["n"] - 1) + 2:  # any node but the root
                if len(faults) < p["k"] and not any(masks[v] & masks[f] for f in faults):
                    faults.append(int(v))
            dark = dark_mask(parents, tuple(faults))
            if low <= count_explanations(parents, dark) <= high:
                return {"parents": parents, "dark_leaves": tuple(v for v in leaves_of(parents) if dark >> v & 1)}

    def rules_fields(self) -> dict[str, Any]:
        power = self.vocab["power"]
        return {
            **super().rules_fields(),
            "dark_text": ", ".join(str(v) for v in self.public["dark_leaves"]),
            "power_cap": power[:1].upper() + power[1:],
        }

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return explanations(self.parents, tuple(self.public["dark_leaves"]))

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (3,)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        v = args[0]
        if name == "faulty":
            return v in hidden
        return not dark_mask(self.parents, hidden) >> v & 1

    def parse_answer(self, text: str) -> tuple[int, ...]:
        values = tuple(sorted(set(answer_ints(text, self.answer_format))))
        n = self.params["n"]
        if not values or not all(1 <= x <= n for x in values):
            raise InvalidAction(f"submit one or more {self.vocab['nodes']} from 1 to {n}, as {self.answer_format}.")
        return values

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(x) for x in target)
