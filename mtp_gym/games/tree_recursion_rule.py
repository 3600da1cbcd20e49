"""Tree Recursion Rule (tree, inductive): infer the hidden recursive definition of node values.

The rules show a rooted tree (a random shape per configuration, public). Every node has a
value given by a hidden recursive rule: a leaf's value is ``A``; an inner node at depth ``d``
(the root has depth 0) has value ``OP(values of its children) + B_d``, with ``OP`` one of
``sum``, ``max``, ``min`` and one added number ``B_d`` per depth ``d = 0 .. D - 1`` of the
tree's inner nodes (the tree is exactly ``D`` levels deep). The query ``value(v)`` gives one
example (the value of node ``v``); the agent submits the rule as
``leaf=A; node=OP+B; B=B_0,B_1,...`` (or ``node=OP+K`` when every ``B_d`` is ``K``).
Every rule giving every node of this tree the same value is accepted, so the answer is unique
given all values (the hidden state is the first rule of its class in the order ``OP``, ``A``,
then the ``B_d`` from the root down).

Levels grow the tree and with it the number of ``B_d``: depth 2 / 7 nodes, 3 / 12, 4 / 20,
5 / 32, 6 / 48, at most 3 children per node, ``A`` and every ``B_d`` in 0..2 (3**(D + 2)
= 81 to 6561 rules before merging equivalent ones; about 52, 200, 670, 2140 and 6500
distinct rules per tree on the benchmark split). A value mixes the ``B_d`` of every depth
below the node, so the examples needed grow with the depth (the oracle: 3.5 to 6.2 turns with
the answer). The earlier rule ``leaf=A; node=M*OP+B`` (one ``B``, a multiplier ``M``) had a
space polynomial in a few ranges: the root's value alone nearly named the rule and the oracle
needed about 3 turns at every level.

Known limit (issue 25): a reply is a whole number that mixes many ``B_d``, so a scan of
``value`` from the root down pins the rule about as fast as the oracle and wins within the
budget at levels 2-5; these levels do not yet measure query planning.

A reply reads only the hidden rule's node values (cached per rule); the canonical rule of a
submitted answer follows from the node values directly (the leaves fix ``A``, each ``OP`` the
``B_d``), and a configuration's rule is drawn uniformly over the classes by redrawing a uniform
rule until it is the first of its class, so neither a reply nor a draw lists the rules (issue
29: the list, about 6,500 rules x 48 values at level 5, was rebuilt per episode).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from functools import lru_cache

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import QuerySpec
from mtp_gym.games.domains import Story, tree_nouns
from mtp_gym.games.trees import TREE_WORDS, ShownTreeGame, children_of, depths_of, nodes_of, order_of

OPS = ("sum", "max", "min")
_COMBINE: dict[str, Callable[[Iterable[int]], int]] = {"sum": sum, "max": max, "min": min}
_RULE_RE = re.compile(
    r"^\s*leaf\s*=\s*(\d+)\s*[;,]?\s*node\s*=\s*(sum|max|min)\s*(?:\(\s*\w*\s*\)\s*)?"
    r"(?:\+\s*(b(?:_?d)?|\d+)\s*)?(?:[;,]?\s*b\s*=\s*[\[(]?\s*(\d+(?:\s*[,\s]\s*\d+)*)\s*[\])]?)?\s*$",
    re.IGNORECASE,
)

#: ``(op, a, (b_0, ..., b_{D-1}))``: leaf = a, inner node at depth d = op(children) + b_d.
Rule = tuple[str, int, tuple[int, ...]]


@lru_cache(maxsize=1 << 14)  # bounded: a reply reads the hidden rule's values, the oracle every rule's
def node_values(parents: tuple[int, ...], rule: Rule) -> tuple[int, ...]:
    """The value of every node under ``rule`` (index 0 unused)."""
    op, a, bs = rule
    kids, depth = children_of(parents), depths_of(parents)
    combine = _COMBINE[op]
    value = [0] * (len(parents) + 1)
    for v in reversed(order_of(parents)):
        value[v] = combine(value[c] for c in kids[v]) + bs[depth[v]] if kids[v] else a
    return tuple(value)


def canonical_rule(parents: tuple[int, ...], values: tuple[int, ...], b_max: int) -> Rule | None:
    """The first rule in rule order (``OP``, ``A``, the ``B_d``) giving the nodes ``values``
    (index 0 unused), or None. The leaves fix ``A`` and, for each ``OP``, the inner nodes of
    each depth fix ``B_d``, so this needs no search over the rules."""
    kids, depth = children_of(parents), depths_of(parents)
    inner = [v for v in nodes_of(parents) if kids[v]]
    leaf = [values[v] for v in nodes_of(parents) if not kids[v]]
    if len(set(leaf)) != 1:
        return None
    for op in OPS:
        combine = _COMBINE[op]
        bs: dict[int, int] = {}
        for v in inner:
            b = values[v] - combine(values[c] for c in kids[v])
            if bs.setdefault(depth[v], b) != b or not 0 <= b <= b_max:
                break
        else:
            return op, leaf[0], tuple(bs[d] for d in range(len(bs)))
    return None


@lru_cache(maxsize=32)  # the oracle's and the tests' candidate lists; a reply never needs one
def canonical_rules(parents: tuple[int, ...], depth: int, a_max: int, b_max: int) -> tuple[Rule, ...]:
    """The first rule of each class (rules giving every node the same value) in rule order,
    ``product(OPS, range(a_max + 1), product(range(b_max + 1), repeat=depth))``, computed for
    all rules at once (numpy, one row per node)."""
    per_op = (a_max + 1) * (b_max + 1) ** depth
    index = np.arange(len(OPS) * per_op)
    op = index // per_op
    a = (index // (b_max + 1) ** depth) % (a_max + 1)
    b = np.stack([(index // (b_max + 1) ** (depth - 1 - d)) % (b_max + 1) for d in range(depth)], axis=1)
    kids, depths = children_of(parents), depths_of(parents)
    values = np.zeros((len(parents) + 1, len(index)), dtype=np.int64)
    for v in reversed(order_of(parents)):
        if kids[v]:
            cv = values[list(kids[v])]
            values[v] = np.choose(op, (cv.sum(0), cv.max(0), cv.min(0))) + b[:, depths[v]]
        else:
            values[v] = a
    rows = np.ascontiguousarray(values[1:].T)  # one row per rule, node v at column v - 1
    small = rows.astype(np.int16) if rows.max() < 2**15 else rows  # (a quicker sort of the rows)
    _, first = np.unique(small.view(np.dtype((np.void, small.shape[1] * small.itemsize))).ravel(), return_index=True)
    first.sort()
    return tuple((OPS[o], x, tuple(bs)) for o, x, bs in zip(op[first].tolist(), a[first].tolist(), b[first].tolist()))


class TreeRecursionRule(ShownTreeGame):
    """Tree Recursion Rule (tree, inductive): infer the hidden recursive rule of node values.

    Hidden: a rule giving every leaf the value ``A`` and every other node at depth ``d`` the value
    ``OP(its children's values) + B_d`` (OP: sum, max or min). Query: ``value(v)`` (the value of
    node ``v``). Answer: ``leaf=A; node=OP+B; B=B_0,B_1,...``, any rule giving the same values.
    Levels (depth / nodes): 2 / 7, 3 / 12, 4 / 20, 5 / 32, 6 / 48: about 52 to 6500 rules.
    """

    name = "TreeRecursionRule"
    structure = "tree"
    inference = "inductive"
    levels = tuple(
        {"depth": d, "n": n, "max_children": 3, "a_max": 2, "b_max": 2}
        for d, n in ((2, 7), (3, 12), (4, 20), (5, 32), (6, 48))
    )
    budgets = (9, 11, 12, 15, 16)
    queries = (QuerySpec("value", (int,), "what is the {value} of this {node}?"),)
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
        "{children} depth 1, and so on) has {value} OP(the {value}s of its {children}) + B_d, where "
        "OP is sum, max or min (the same at every depth), A is a whole number from 0 to {a_max}, and "
        "each depth d from 0 to {last_depth} has its own whole number B_d from 0 to {b_max}. Your "
        "goal is to find the rule from examples. You may ask one question per turn using the "
        "following format:\n{query_formats}\n"
        "When you know the rule, submit it as leaf=A; node=OP+B; B={b_names} (any rule giving every "
        "{node} of this {tree} the same {value} is accepted):\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = tree_nouns("tree node nodes root children leaf value")
    story = Story(
        setting="The {tree} below has {n} {nodes}, numbered 1 to {n}, with {node} 1 as its {root}; each "
        "line gives a {node} followed by its {children}:\n{tree_text}\n"
        "Each {node} carries a {value}, worked out from the bottom up by a secret rule. A {leaf}, having "
        "no {children}, gets the {value} A. Any other {node} gets OP(the {value}s of its {children}) + B_d, "
        "where d tells how far down it lies: the {root} is at depth 0, its {children} at depth 1, and so "
        "forth. OP is one of sum, max and min, and it does not change from one depth to the next; A is a "
        "whole number from 0 to {a_max}; and every depth d from 0 to {last_depth} comes with a whole number "
        "B_d of its own, from 0 to {b_max}. Work the rule out from examples.",
        answer="the rule, written leaf=A; node=OP+B; B={b_names} (any rule under which each {node} of "
        "this {tree} ends up with the same {value} will be accepted)",
        queries={
            "value": "which {value} does this {node} carry?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        p = self.params
        bs = tuple(min(x, p["b_max"]) for x in (2, 0, 1) * p["depth"])[: p["depth"]]
        return f"<answer>{self.format_answer(('max', min(1, p['a_max']), bs))}</answer>"

    def rules_fields(self) -> dict:
        depth = self.params["depth"]
        return super().rules_fields() | {
            "last_depth": depth - 1,
            "b_names": ",".join(f"B_{d}" for d in range(depth)),
        }

    def candidate_states(self) -> tuple[Rule, ...]:
        p = self.params
        return canonical_rules(self.parents, p["depth"], p["a_max"], p["b_max"])

    def sample_hidden(self, rng: np.random.Generator) -> Rule:
        """Uniform over the canonical rules without listing them: a uniform rule, drawn again
        until it is the first of its class (each class has one first rule)."""
        p = self.params
        while True:
            rule = (
                OPS[int(rng.integers(len(OPS)))],
                int(rng.integers(p["a_max"] + 1)),
                tuple(int(x) for x in rng.integers(p["b_max"] + 1, size=p["depth"])),
            )
            if canonical_rule(self.parents, node_values(self.parents, rule), p["b_max"]) == rule:
                return rule

    def query_args(self, name: str) -> list[tuple]:
        return [(v,) for v in nodes_of(self.parents)]

    def example_args(self, name: str) -> tuple:
        return (2,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return node_values(self.parents, hidden)[args[0]]

    def parse_answer(self, text: str) -> Rule:
        depth = self.params["depth"]
        m = _RULE_RE.match(text.strip(" .'\"`"))
        if not m:
            raise InvalidAction(
                f"the answer {text[:60]!r} is not a rule leaf=A; node=OP+B; B=B_0,...,B_{depth - 1}; "
                f"submit as {self.answer_format}."
            )
        a, op, plus, listed = int(m.group(1)), m.group(2).lower(), m.group(3), m.group(4)
        if listed is not None:
            if plus is not None and plus.isdigit():
                raise InvalidAction(f"the answer {text[:60]!r} gives both a number after + and a list B=...")
            bs = tuple(int(x) for x in re.split(r"[,\s]+", listed.strip()))
            if len(bs) != depth:
                raise InvalidAction(
                    f"B must list {depth} numbers B_0,...,B_{depth - 1} (one per depth from the "
                    f"{self.vocab['root']} down), got {len(bs)}; submit as {self.answer_format}."
                )
        elif plus is None or plus.isdigit():
            bs = (int(plus or 0),) * depth
        else:
            raise InvalidAction(
                f"the answer {text[:60]!r} uses +B but gives no list B=...; submit as {self.answer_format}."
            )
        rule = (op, a, bs)
        return canonical_rule(self.parents, node_values(self.parents, rule), self.params["b_max"]) or rule

    def format_answer(self, target: Rule) -> str:
        op, a, bs = target
        return f"leaf={a}; node={op}+B; B={','.join(map(str, bs))}"
