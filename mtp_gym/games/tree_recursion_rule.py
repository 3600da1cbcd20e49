"""Tree Recursion Rule (tree, inductive): infer the hidden recursive definition of node values.

The rules show a rooted tree (a random shape per configuration, public). Every node has a
value given by a hidden recursive rule: a leaf's value is ``A``; an inner node at depth ``d``
(the root has depth 0) has the sum of its children's values plus ``B_d``, one added number per
depth ``d = 0 .. D - 1`` of the tree's inner nodes (the tree is exactly ``D`` levels deep).
``A`` and every ``B_d`` are whole numbers from 0 to 3, and different rules give the tree
different values, so the rule is unique. The query ``at_least(v, t)`` tells whether the value
of node ``v`` is at least ``t`` (``t`` from 1 to the largest value ``v`` can have: 3 x the nodes
of its subtree); the agent submits the rule as ``leaf=A; B=B_0,B_1,...``.

Levels grow the tree and with it the number of ``B_d``: depth 2 / 7 nodes, 3 / 22, 4 / 28,
5 / 40, 6 / 56, at most 3 children per node: 4**(D + 1) = 64 to 16,384 rules. A node's value
mixes ``A`` and the ``B_d`` of every depth below it with the counts of its subtree, so a
well-placed threshold halves the rules still possible: the oracle needs 7.0 to 15.2 turns with
the answer. A scan of the nodes in order, raising ``t`` one at a time with exact books, walks
the root's whole range first (the trees are large for their depth, so the range is wide) and
passes the budget in 90% to 100% of the draws from level 2.

Version History: v0 (issue 25) rebuilt: the rule was ``OP(children) + B_d`` with OP one of sum,
max, min and ``A``, ``B_d`` in 0..2 (52 to 6,500 rules), asked with ``value(v)``; every value
folded in all the values below the node, so a scan of ``value`` from the root pinned the rule
about as fast as the oracle (3.5 to 6.5 turns) and won within the budget at every level (trees
of 7, 12, 20, 32 and 48 nodes, budgets 9 to 16). An earlier rule ``leaf=A; node=M*OP+B`` (one
``B``, a multiplier ``M``) was nearly named by the root's value alone.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import lru_cache

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.domains import Story, tree_nouns
from mtp_gym.games.trees import TREE_WORDS, ShownTreeGame, children_of, depths_of, nodes_of, order_of

#: A separator read one way only (no two quantifiers share a space: linear time on any reply).
_SEP = r"\s*(?:[;,]\s*)?"
_LEAF_NODE = (
    r"^\s*(?:leaf|a)\s*=\s*(\d+)" + _SEP + r"(?:node\s*=\s*(\w+)\s*(?:\(\s*\w*\s*\)\s*)?\+\s*b(?:_?d)?" + _SEP + ")?"
)
#: ``leaf=A; B=B_0,B_1,...`` (``A=`` for ``leaf=``, an optional ``node=sum+B``)
_RULE_RE = re.compile(_LEAF_NODE + r"b\s*=\s*(?:[\[(]\s*)?(\d+(?:(?:\s*,\s*|\s+)\d+)*)\s*(?:[\])]\s*)?$", re.IGNORECASE)
#: the same with every ``B_d`` named: ``A=1; B_0=2, B_1=0``
_NAMED_RE = re.compile(_LEAF_NODE + r"((?:b_?\d+\s*=\s*\d+" + _SEP + r")+)$", re.IGNORECASE)
_NAMED_B_RE = re.compile(r"b_?(\d+)\s*=\s*(\d+)", re.IGNORECASE)

#: ``(a, (b_0, ..., b_{D-1}))``: leaf = a, inner node at depth d = sum(children) + b_d.
Rule = tuple[int, tuple[int, ...]]


@lru_cache(maxsize=1 << 14)  # bounded: a reply reads the hidden rule's values
def node_values(parents: tuple[int, ...], rule: Rule) -> tuple[int, ...]:
    """The value of every node under ``rule`` (index 0 unused)."""
    a, bs = rule
    kids, depth = children_of(parents), depths_of(parents)
    value = [0] * (len(parents) + 1)
    for v in reversed(order_of(parents)):
        value[v] = sum(value[c] for c in kids[v]) + bs[depth[v]] if kids[v] else a
    return tuple(value)


@lru_cache(maxsize=8)
def _rule_matrix(depth: int, a_max: int, b_max: int) -> np.ndarray:
    """One row ``(A, B_0, ..., B_{D-1})`` per rule, in the order of :func:`all_rules`."""
    shape = (a_max + 1,) + (b_max + 1,) * depth
    rows = np.stack(np.unravel_index(np.arange(int(np.prod(shape))), shape), axis=1).astype(np.int32)
    rows.flags.writeable = False
    return rows


@lru_cache(maxsize=8)  # the oracle's and the tests' candidate lists
def all_rules(depth: int, a_max: int, b_max: int) -> tuple[Rule, ...]:
    """Every rule, ``A`` first, then the ``B_d`` from the root down (the order of the candidates)."""
    return tuple((row[0], tuple(row[1:])) for row in _rule_matrix(depth, a_max, b_max).tolist())


@lru_cache(maxsize=4)  # 3.7 MB at level 5; rebuilt in 3-5 ms
def value_table(parents: tuple[int, ...], depth: int, a_max: int, b_max: int) -> np.ndarray:
    """``table[i, v]``: the value of node ``v`` under rule ``i`` of :func:`all_rules` (column 0
    unused). A value is linear in ``A`` and the ``B_d``, so the table is one matrix product."""
    units = [(1, (0,) * depth)] + [(0, tuple(int(d == k) for k in range(depth))) for d in range(depth)]
    counts = np.array([node_values(parents, u) for u in units], dtype=np.int32)
    table = _rule_matrix(depth, a_max, b_max) @ counts
    table.flags.writeable = False
    return table


class TreeRecursionRule(ShownTreeGame):
    """Tree Recursion Rule (tree, inductive): infer the hidden recursive rule of node values.

    Hidden: a rule giving every leaf the value ``A`` and every other node at depth ``d`` the sum
    of its children's values plus ``B_d`` (``A``, ``B_d`` from 0 to 3). Query: ``at_least(v, t)``
    (is the value of node ``v`` at least ``t``?). Answer: ``leaf=A; B=B_0,B_1,...``. Levels (depth
    / nodes): 2 / 7, 3 / 22, 4 / 28, 5 / 40, 6 / 56: 64 to 16,384 rules.
    """

    name = "TreeRecursionRule"
    structure = "tree"
    inference = "inductive"
    levels = tuple(
        {"depth": d, "n": n, "max_children": 3, "a_max": 3, "b_max": 3}
        for d, n in ((2, 7), (3, 22), (4, 28), (5, 40), (6, 56))
    )
    budgets = (17, 21, 26, 30, 35)
    queries = (QuerySpec("at_least", (int, int), "is the {value} of this {node} at least this number?"),)
    vocabulary = {
        **TREE_WORDS,
        "leaf": "leaf",
        "value": "value",
    }
    rules_template = (
        "Here is a {tree} of {n} {nodes} numbered 1 to {n}; {node} 1 is the {root} and each line "
        "lists the {children} of one {node}:\n{tree_text}\n"
        "Every {node} has a {value} defined by a hidden recursive rule: a {leaf} (a {node} without "
        "{children}) has {value} A, and any other {node} at depth d (the {root} has depth 0, its "
        "{children} depth 1, and so on) has the sum of the {value}s of its {children} plus B_d, where "
        "A is a whole number from 0 to {a_max} and each depth d from 0 to {last_depth} has its own whole "
        "number B_d from 0 to {b_max}. Your goal is to find the rule. You may ask one question per turn: "
        "whether the {value} of a {node} is at least a number from 1 to {a_max} times the count of {nodes} "
        "at or below it (itself included), using the following format:\n{query_formats}\n"
        "When you know the rule, submit it as leaf=A; B={b_names}:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = tree_nouns("tree node nodes root children leaf value")
    story = Story(
        setting="The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\n"
        "Each {node} carries a {value}, worked out from the bottom up by a secret rule. A {leaf}, having "
        "no {children}, gets the {value} A. Any other {node} gets the {value}s of its {children} added up, "
        "plus B_d, where d tells how far down it lies: the {root} is at depth 0, its {children} at depth 1, "
        "and so forth. A is a whole number from 0 to {a_max}, and every depth d from 0 to {last_depth} comes "
        "with a whole number B_d of its own, from 0 to {b_max}. Work the rule out by asking whether a "
        "{node}'s {value} reaches a number from 1 to {a_max} times the count of {nodes} at or below it "
        "(itself included).",
        answer="the rule, written leaf=A; B={b_names}",
        queries={
            "at_least": "does the {value} of this {node} reach this number?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        p = self.params
        bs = tuple(min(x, p["b_max"]) for x in (2, 0, 1) * p["depth"])[: p["depth"]]
        return f"<answer>{self.format_answer((min(1, p['a_max']), bs))}</answer>"

    def rules_fields(self) -> dict:
        depth = self.params["depth"]
        return super().rules_fields() | {
            "last_depth": depth - 1,
            "b_names": ",".join(f"B_{d}" for d in range(depth)),
        }

    def most(self, v: int) -> int:
        """The largest value node ``v`` can have (``A`` and every ``B_d`` at their maximum)."""
        p = self.params
        return node_values(self.parents, (p["a_max"], (p["b_max"],) * p["depth"]))[v]

    def candidate_states(self) -> tuple[Rule, ...]:
        p = self.params
        return all_rules(p["depth"], p["a_max"], p["b_max"])

    def sample_hidden(self, rng: np.random.Generator) -> Rule:
        p = self.params
        return int(rng.integers(p["a_max"] + 1)), tuple(int(x) for x in rng.integers(p["b_max"] + 1, size=p["depth"]))

    def answer_columns(self, name: str, args: tuple) -> np.ndarray | None:
        p = self.params
        v, t = args
        return value_table(self.parents, p["depth"], p["a_max"], p["b_max"])[:, v] >= t

    def query_args(self, name: str) -> list[tuple]:
        return [(v, t) for v in nodes_of(self.parents) for t in range(1, self.most(v) + 1)]

    def example_args(self, name: str) -> tuple:
        return (2, 5)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        v, t = args
        return node_values(self.parents, hidden)[v] >= t

    def _why_illegal(self, name: str, args: tuple) -> str:
        v, t = args
        n = len(self.parents)
        if not 1 <= v <= n:
            return f"argument 1 must be 1 to {n}, not {v!r} (it is the {self.vocab['node']})"
        return (
            f"argument 2 must be 1 to {self.most(v)} for {self.vocab['node']} {v}, not {t!r} (its "
            f"{self.vocab['value']} is at most {self.params['a_max']} times the count of {self.vocab['nodes']} at or below it)"
        )

    def parse_answer(self, text: str) -> Rule:
        depth = self.params["depth"]
        rule = text.strip(" .'\"`")
        m = _RULE_RE.match(rule) or _NAMED_RE.match(rule)
        if not m:
            raise InvalidAction(
                f"the answer {text[:60]!r} is not a rule leaf=A; B=B_0,...,B_{depth - 1}; submit as {self.answer_format}."
            )
        op = m.group(2)
        if op is not None and op.lower() != "sum":
            raise InvalidAction(
                f"the answer {text[:60]!r} names {op!r}: every rule adds up the {self.vocab['children']}; "
                f"submit as {self.answer_format}."
            )
        if m.re is _NAMED_RE:
            named = [(int(d), int(b)) for d, b in _NAMED_B_RE.findall(m.group(3))]
            if sorted(d for d, _ in named) != list(range(depth)):
                raise InvalidAction(
                    f"the answer {text[:60]!r} must name each of B_0,...,B_{depth - 1} once; submit as {self.answer_format}."
                )
            bs = tuple(b for _, b in sorted(named))
        else:
            bs = tuple(int(x) for x in re.split(r"[,\s]+", m.group(3).strip()))
        if len(bs) != depth:
            raise InvalidAction(
                f"B must list {depth} numbers B_0,...,B_{depth - 1} (one per depth from the "
                f"{self.vocab['root']} down), got {len(bs)}; submit as {self.answer_format}."
            )
        return int(m.group(1)), bs

    def format_answer(self, target: Rule) -> str:
        a, bs = target
        return f"leaf={a}; B={','.join(map(str, bs))}"
