"""Tree Label Rule (tree, inductive): infer the hidden rule that marks some nodes of a tree.

The rules show a rooted tree (a random shape per configuration, public). A hidden rule of
the form ``FEATURE OP K`` marks every node whose feature satisfies it, where FEATURE is
``depth`` (edges from the root), ``children`` (number of children), ``height`` (edges on the
longest path down to a leaf), ``size`` (nodes in its subtree, itself included) or ``leaves``
(leaves in its subtree), OP one of the level's comparisons (``>=``, then ``<=``, then ``=``)
and ``K`` a whole number. Two queries give examples: ``marked(v)`` (is ``v`` marked?) and
``count(v)`` (how many nodes on the path from the root down to ``v`` are marked). The agent
submits a rule; every rule that marks exactly the same nodes of this tree is accepted, so the
answer is unique given the marks of all nodes (the hidden state is the first rule of its class
in the order features, the level's ops, ``K``). Rules that mark no node or every node are
never drawn.

Levels: a bushy tree of 12 nodes (depth 3) with OP ``>=`` only (8 rules per tree on the
benchmark split), then long, thin trees (a path of 40, 56, 64, 72 edges from the root with 7
to 23 side nodes: 48, 64, 72 and 96 nodes) with OP ``>=`` or ``<=`` (level 2, 155 rules) and
``>=``, ``<=`` or ``=`` (levels 3-5, 281 to 392 rules). Along a long path a threshold on depth,
height or size sits at one place, and ``marked`` tells one side of it per question: the node
numbers run breadth first from the root, so a scan of the nodes in order (with either query)
walks the path one step per question and passes the budget in 80% to 95% of the draws. The
count at the bottom of the path tells how many path nodes are marked, which places a threshold
at once; an ``=`` rule's one marked depth is then bisected with counts along the path and the
side nodes tell the features apart: the oracle needs 3.0 to 4.8 turns with the answer.

Version History: v0 (issue 25) levels 2-5 rebuilt on long paths with the ``count`` query (were
bushy trees of 20-64 nodes with 37-87 rules and ``marked`` alone, which a scan of the nodes
identified within the budget); an earlier ``count`` of a node's subtree was dropped because the
root's count, the first a scan asks, nearly named the rule.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import lru_cache

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.domains import Story, tree_nouns
from mtp_gym.games.trees import (
    TREE_WORDS,
    ShownTreeGame,
    children_of,
    depths_of,
    heights_of,
    nodes_of,
    order_of,
    subtree_masks,
)

FEATURES = ("depth", "children", "height", "size", "leaves")
OPS = (">=", "<=", "=")
_RULE_RE = re.compile(r"^\s*([a-z]+)\s*(>=|<=|==|=|≥|≤)\s*(\d+)\s*$", re.IGNORECASE)
_OP_ALIASES = {"==": "=", "≥": ">=", "≤": "<="}

Rule = tuple[str, str, int]


def _or_list(words: tuple[str, ...]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


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
def path_masks(parents: tuple[int, ...]) -> tuple[int, ...]:
    """``mask[v]``: bitmask of the nodes on the path from the root to ``v`` (both included)."""
    mask = [0] * (len(parents) + 1)
    for v in order_of(parents):
        mask[v] = mask[parents[v - 1]] | 1 << v
    return tuple(mask)


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
def _rule_classes(parents: tuple[int, ...], ops: tuple[str, ...]) -> tuple[dict[int, Rule], tuple[Rule, ...]]:
    """Extension -> canonical rule with an op of ``ops``, and the canonical rules marking some
    but not all nodes."""
    full = sum(1 << v for v in nodes_of(parents))
    first: dict[int, Rule] = {}
    feats = _features(parents)
    for feature in FEATURES:
        values = feats[feature]
        top = max(values[1:])
        equal = [0] * (top + 2)  # equal[x]: the nodes whose value is x (extension(feature, "=", x))
        for v in nodes_of(parents):
            equal[values[v]] |= 1 << v
        at_most, at_least = equal[:], equal[:]
        for x in range(1, top + 2):
            at_most[x] |= at_most[x - 1]
        for x in range(top, -1, -1):
            at_least[x] |= at_least[x + 1]
        masks = {">=": at_least, "<=": at_most, "=": equal}
        for op in ops:
            for k in range(top + 2):
                first.setdefault(masks[op][k], (feature, op, k))
    states = tuple(r for m, r in first.items() if m not in (0, full))
    return first, states


class TreeLabelRule(ShownTreeGame):
    """Tree Label Rule (tree, inductive): infer the hidden rule that marks nodes of a shown tree.

    Hidden: a rule ``FEATURE OP K`` (FEATURE: depth, children, height, size or leaves; OP: ``>=``,
    ``<=`` or ``=``); rules marking the same nodes are one. Queries: ``marked(v)`` (Yes/No) and
    ``count(v)`` (how many nodes from the root down to ``v`` are marked?). Answer: a rule marking
    the same nodes. Levels: 12, 48, 64, 72 and 96 nodes: 8 to 392 rules.
    """

    name = "TreeLabelRule"
    structure = "tree"
    inference = "inductive"
    levels = (
        {"depth": 3, "n": 12, "max_children": 3, "ops": (">=",)},
        {"depth": 40, "n": 48, "max_children": 3, "ops": (">=", "<=")},
        {"depth": 56, "n": 64, "max_children": 3, "ops": OPS},
        {"depth": 64, "n": 72, "max_children": 3, "ops": OPS},
        {"depth": 72, "n": 96, "max_children": 3, "ops": OPS},
    )
    budgets = (8, 8, 13, 14, 16)
    queries = (
        QuerySpec("marked", (int,), "is this {node} {marked}?"),
        QuerySpec(
            "count", (int,), "how many {nodes} on the path from the {root} to this {node} (both included) are {marked}?"
        ),
    )
    vocabulary = {
        **TREE_WORDS,
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
        "OP is {op_list}, and FEATURE is one of\n"
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

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = tree_nouns("tree node nodes root children leaf subtree link marked")
    story = Story(
        setting="The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\n"
        "Some {nodes} are {marked}, and which ones is settled by a secret rule of the shape FEATURE OP K: "
        "a {node} counts as {marked} precisely when comparing its FEATURE to the whole number K with OP comes "
        "out true. OP is {op_list}, and FEATURE is one of these measures of a {node}:\n"
        "  depth: how many {link}s lie between the {root} and it (the {root} itself: depth 0),\n"
        "  children: how many {children} it has,\n"
        "  height: how many {link}s its longest downward path to a {leaf} contains (a {leaf}: height 0),\n"
        "  size: how many {nodes} its {subtree} holds, counting itself,\n"
        "  leaves: how many {nodes} of its {subtree} have no {children} of their own (1 for a {leaf}).\n"
        "Under the rule at least one {node} is {marked}, and at least one is not. Infer the rule from "
        "examples.",
        answer="the rule (one that makes exactly the same {nodes} of this {tree} {marked} will be accepted)",
        queries={
            "marked": "does the rule make this {node} {marked}?",
            "count": "how many {nodes} along the way from the {root} down to this {node}, both ends counted, "
            "does the rule make {marked}?",
        },
    )

    def rules_fields(self) -> dict:
        return super().rules_fields() | {"op_list": _or_list(self.params["ops"])}

    def candidate_states(self) -> tuple[Rule, ...]:
        return _rule_classes(self.parents, self.params["ops"])[1]

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (3,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        marks = extension(self.parents, hidden)
        if name == "marked":
            return bool(marks >> args[0] & 1)
        return (marks & path_masks(self.parents)[args[0]]).bit_count()

    def parse_answer(self, text: str) -> Rule:
        m = _RULE_RE.match(text.strip(" .'\"`"))
        if not m or m.group(1).lower() not in FEATURES:
            raise InvalidAction(
                f"the answer {text[:60]!r} is not a rule FEATURE OP K with FEATURE in "
                f"{', '.join(FEATURES)} and OP {_or_list(self.params['ops'])}; submit as {self.answer_format}."
            )
        op = m.group(2)
        rule = (m.group(1).lower(), _OP_ALIASES.get(op, op), int(m.group(3)))
        return _rule_classes(self.parents, self.params["ops"])[0].get(extension(self.parents, rule), rule)

    def format_answer(self, target: Rule) -> str:
        feature, op, k = target
        return f"{feature} {op} {k}"
