"""Tree Label Rule (tree, inductive): infer the hidden rule that marks some nodes of a tree.

The rules show a rooted tree (a random shape per configuration, public). A hidden rule of
the form ``FEATURE OP K`` marks every node whose feature satisfies it, where FEATURE is
``depth`` (edges from the root), ``children`` (number of children), ``height`` (edges on the
longest path down to a leaf), ``size`` (nodes in its subtree, itself included) or ``leaves``
(leaves in its subtree), OP is ``>=``, ``<=`` or ``=`` and ``K`` a whole number. The query
is one example: ``marked(v)`` (is ``v`` marked?). The agent submits a rule; every rule that
marks exactly the same nodes of this tree is accepted, so the answer is unique given the
marks of all nodes (the hidden state is the first rule of its class in the order features,
ops, ``K``). Rules that mark no node or every node are never drawn. The budget stays below
the node count: the rule must be induced from a few chosen examples.

Levels grow the tree (depth 3 / 12 nodes, 4 / 20, 5 / 32, 6 / 48, 7 / 64, at most 3 children
per node) and with it the number of distinct rules (about 19, 37, 52, 71 and 87 per tree on
the benchmark split); each example answers yes or no, so the oracle needs about
``log2(rules)`` of them (5.2 to 7.5 turns with the answer). An earlier ``count(v)`` query
(marked nodes in ``v``'s subtree) was dropped: its answer range grew with the tree as fast as
the rule space, so ``count`` of the root nearly named the rule and the oracle needed about 3
turns at every level.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import lru_cache

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.trees import ShownTreeGame, children_of, depths_of, heights_of, nodes_of, subtree_masks

FEATURES = ("depth", "children", "height", "size", "leaves")
OPS = (">=", "<=", "=")
_RULE_RE = re.compile(r"^\s*([a-z]+)\s*(>=|<=|==|=|≥|≤)\s*(\d+)\s*$", re.IGNORECASE)
_OP_ALIASES = {"==": "=", "≥": ">=", "≤": "<="}

Rule = tuple[str, str, int]


@lru_cache(maxsize=4096)  # bounded: generated trees bring new keys forever
def _features(parents: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """Feature values per node (index 0 unused)."""
    kids, masks = children_of(parents), subtree_masks(parents)
    leaf_mask = sum(1 << v for v in nodes_of(parents) if not kids[v])
    return {
        "depth": depths_of(parents),
        "children": tuple(len(k) for k in kids),
        "height": heights_of(parents),
        "size": tuple(m.bit_count() for m in masks),
        "leaves": tuple((m & leaf_mask).bit_count() for m in masks),
    }


@lru_cache(maxsize=4096)  # bounded: generated trees bring new keys forever
def extension(parents: tuple[int, ...], rule: Rule) -> int:
    """Bitmask of the nodes the rule marks."""
    feature, op, k = rule
    values = _features(parents)[feature]
    mask = 0
    for v in nodes_of(parents):
        x = values[v]
        if (x >= k) if op == ">=" else (x <= k) if op == "<=" else (x == k):
            mask |= 1 << v
    return mask


@lru_cache(maxsize=4096)  # bounded: generated trees bring new keys forever
def _rule_classes(parents: tuple[int, ...]) -> tuple[dict[int, Rule], tuple[Rule, ...]]:
    """Extension -> canonical rule, and the canonical rules marking some but not all nodes."""
    full = sum(1 << v for v in nodes_of(parents))
    first: dict[int, Rule] = {}
    feats = _features(parents)
    for feature in FEATURES:
        top = max(feats[feature][1:])
        for op in OPS:
            for k in range(top + 2):
                rule = (feature, op, k)
                first.setdefault(extension(parents, rule), rule)
    states = tuple(r for m, r in first.items() if m not in (0, full))
    return first, states


class TreeLabelRule(ShownTreeGame):
    name = "TreeLabelRule"
    structure = "tree"
    inference = "inductive"
    levels = tuple({"depth": d, "n": n, "max_children": 3} for d, n in ((3, 12), (4, 20), (5, 32), (6, 48), (7, 64)))
    budgets = (11, 13, 14, 15, 16)
    queries = (QuerySpec("marked", (int,), "is this {node} {marked}?"),)
    vocabulary = {
        "tree": "tree",
        "node": "node",
        "nodes": "nodes",
        "root": "root",
        "children": "children",
        "leaf": "leaf",
        "subtree": "subtree",
        "link": "edge",
        "marked": "marked",
    }
    rules_template = (
        "Here is a {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each line "
        "lists the {children} of one {node}:\n{tree_text}\n"
        "A hidden rule decides which {nodes} are {marked}. The rule has the form FEATURE OP K: a "
        "{node} is {marked} exactly when its FEATURE compares with the whole number K by OP, where "
        "OP is >=, <= or =, and FEATURE is one of\n"
        "  depth: the number of {link}s from the {root} down to the {node} (the {root} has depth 0),\n"
        "  children: the number of {children} of the {node},\n"
        "  height: the number of {link}s on the longest path from the {node} down to a {leaf} "
        "(a {leaf} has height 0),\n"
        "  size: the number of {nodes} in the {node}'s {subtree}, itself included,\n"
        "  leaves: the number of {leaf} {nodes} in the {node}'s {subtree} (1 for a {leaf}).\n"
        "The rule marks at least one {node} and leaves at least one {node} not {marked}. Your goal is to find "
        "the rule from examples. You may ask one question per turn using the following format:\n"
        "{query_formats}\n"
        "When you know the rule, submit it (any rule that marks exactly the same {nodes} of this "
        "{tree} is accepted):\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>height >= 2</answer>"

    def candidate_states(self) -> tuple[Rule, ...]:
        return _rule_classes(self.parents)[1]

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (3,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return bool(extension(self.parents, hidden) >> args[0] & 1)

    def parse_answer(self, text: str) -> Rule:
        m = _RULE_RE.match(text.strip(" .'\"`"))
        if not m or m.group(1).lower() not in FEATURES:
            raise InvalidAction(
                f"the answer {text[:60]!r} is not a rule FEATURE OP K with FEATURE in "
                f"{', '.join(FEATURES)} and OP in >=, <=, =; submit as {self.answer_format}."
            )
        op = m.group(2)
        rule = (m.group(1).lower(), _OP_ALIASES.get(op, op), int(m.group(3)))
        return _rule_classes(self.parents)[0].get(extension(self.parents, rule), rule)

    def format_answer(self, target: Hashable) -> str:
        feature, op, k = target
        return f"{feature} {op} {k}"
