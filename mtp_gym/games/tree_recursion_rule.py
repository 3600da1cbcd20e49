"""Tree Recursion Rule (tree, inductive): infer the hidden recursive definition of node values.

The rules show a rooted tree (a random shape per configuration, public). Every node has a
value given by a hidden recursive rule: a leaf's value is ``A``; an inner node's value is
``M * OP(values of its children) + B`` with ``OP`` one of ``sum``, ``max``, ``min``. The
query ``value(v)`` gives one example (the value of node ``v``); the agent submits the rule
as ``leaf=A; node=M*OP+B``. Every rule giving every node of this tree the same value is
accepted, so the answer is unique given all values (the hidden state is the first rule of
its class in the order ``OP``, ``M``, ``A``, ``B``). Levels grow the tree and the rule space:
depth 2 / 7 nodes with ``A, B`` in 0..2 and ``M = 1``; 3 / 12, 0..3, 1; 4 / 20, 0..3, 1..2;
5 / 32, 0..4, 1..2; 6 / 48, 0..5, 1..3 (27 to 324 rules before merging equivalent ones).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import lru_cache
from itertools import product

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.trees import ShownTreeGame, children_of, nodes_of

OPS = ("sum", "max", "min")
_COMBINE = {"sum": sum, "max": max, "min": min}
_RULE_RE = re.compile(
    r"^\s*leaf\s*=\s*(\d+)\s*[;,]?\s*node\s*=\s*(?:(\d+)\s*\*\s*)?(sum|max|min)\s*(?:\(\s*\w*\s*\)\s*)?(?:\+\s*(\d+))?\s*$",
    re.IGNORECASE,
)

#: ``(op, m, a, b)``: leaf = a, inner node = m * op(children) + b.
Rule = tuple[str, int, int, int]


@lru_cache(maxsize=4096)  # bounded: generated trees bring new keys forever
def node_values(parents: tuple[int, ...], rule: Rule) -> tuple[int, ...]:
    """The value of every node under ``rule`` (index 0 unused)."""
    op, m, a, b = rule
    kids = children_of(parents)
    combine = _COMBINE[op]
    value = [0] * (len(parents) + 1)
    for v in range(len(parents), 0, -1):
        value[v] = m * combine(value[c] for c in kids[v]) + b if kids[v] else a
    return tuple(value)


@lru_cache(maxsize=4096)  # bounded: generated trees bring new keys forever
def _rule_classes(parents: tuple[int, ...], a_max: int, b_max: int, m_max: int) -> tuple[dict, tuple[Rule, ...]]:
    """Values tuple -> canonical rule, and the canonical rules in order."""
    first: dict[tuple[int, ...], Rule] = {}
    for op, m, a, b in product(OPS, range(1, m_max + 1), range(a_max + 1), range(b_max + 1)):
        first.setdefault(node_values(parents, (op, m, a, b)), (op, m, a, b))
    return first, tuple(first.values())


class TreeRecursionRule(ShownTreeGame):
    name = "TreeRecursionRule"
    structure = "tree"
    inference = "inductive"
    levels = tuple(
        {"depth": d, "n": n, "max_children": 3, "a_max": am, "b_max": am, "m_max": mm}
        for d, n, am, mm in ((2, 7, 2, 1), (3, 12, 3, 1), (4, 20, 3, 2), (5, 32, 4, 2), (6, 48, 5, 3))
    )
    budgets = (7, 7, 7, 7, 7)
    queries = (QuerySpec("value", (int,), "what is the {value} of this {node}?"),)
    vocabulary = {
        "tree": "tree",
        "node": "node",
        "nodes": "nodes",
        "root": "root",
        "children": "children",
        "leaf": "leaf",
        "value": "value",
    }
    rules_template = (
        "Here is a {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each line "
        "lists the {children} of one {node}:\n{tree_text}\n"
        "Every {node} has a {value} defined by a hidden recursive rule: a {leaf} (a {node} without "
        "{children}) has {value} A, and any other {node} has {value} M * OP(the {value}s of its "
        "{children}) + B, where OP is sum, max or min, A and B are whole numbers from 0 to {a_max} "
        "and M is a whole number from 1 to {m_max}. Your goal is to find the rule from examples. "
        "You may ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the rule, submit it as leaf=A; node=M*OP+B (any rule giving every {node} of "
        "this {tree} the same {value} is accepted):\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>leaf=1; node=1*max+2</answer>"

    def _classes(self) -> tuple[dict, tuple[Rule, ...]]:
        p = self.params
        return _rule_classes(self.parents, p["a_max"], p["b_max"], p["m_max"])

    def candidate_states(self) -> tuple[Rule, ...]:
        return self._classes()[1]

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (2,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return node_values(self.parents, hidden)[args[0]]

    def parse_answer(self, text: str) -> Rule:
        m = _RULE_RE.match(text.strip(" .'\"`"))
        if not m:
            raise InvalidAction(
                f"the answer {text[:60]!r} is not a rule leaf=A; node=M*OP+B; submit as {self.answer_format}."
            )
        a, mult, op, b = int(m.group(1)), int(m.group(2) or 1), m.group(3).lower(), int(m.group(4) or 0)
        rule = (op, mult, a, b)
        return self._classes()[0].get(node_values(self.parents, rule), rule)

    def format_answer(self, target: Hashable) -> str:
        op, m, a, b = target
        return f"leaf={a}; node={m}*{op}+{b}"
