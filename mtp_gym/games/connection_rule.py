"""Connection Rule (graph, inductive): infer the hidden rule that decides which {nodes} are linked.

The {nodes} are numbered ``1..N``. A hidden rule, drawn from a menu shown in the rules (e.g.
``diff 3``: linked when the numbers differ by exactly 3; ``same_mod 4``: linked when they
leave the same remainder mod 4; ``divides``; ``coprime``; ``sum_above 12``), decides for
every pair of distinct {nodes} whether they are linked. The only query is an example of the graph
the rule generates: ``linked(a, b)``. The agent submits the rule: an inductive generalization
from the examples it chose.

Rules of the menu that generate the same graph on ``1..N`` are one hypothesis: only the first
in menu order is a candidate, and a submitted rule is read as the first menu rule with the
same graph, so ``within 1`` is accepted for ``diff 1`` (the answer is unique, the tests check
it). Rules linking no pair or every pair are left out. Levels grow ``N`` (6, 8, 10, 12, 15)
and the menu: 6, 13, 23, 33, 46 distinct rules.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from math import gcd
from typing import Any

from mtp_gym.core import InvalidAction
from mtp_gym.games._graph import all_pairs, parse_ints
from mtp_gym.games.base import Game, QuerySpec

Rule = tuple  # ("diff", 3), ("sum_mod", 4, 1), ("divides",)

#: name -> (number of int params, text shown in the menu, predicate on a < b and params)
FAMILIES: dict[str, tuple[int, str, Any]] = {
    "diff": (1, "diff K: {linked} when the numbers differ by exactly K", lambda a, b, k: b - a == k),
    "within": (1, "within K: {linked} when the numbers differ by at most K", lambda a, b, k: b - a <= k),
    "same_mod": (
        1,
        "same_mod K: {linked} when both numbers leave the same remainder when divided by K",
        lambda a, b, k: a % k == b % k,
    ),
    "sum_mod": (
        2,
        "sum_mod K R: {linked} when the sum of the numbers leaves remainder R when divided by K",
        lambda a, b, k, r: (a + b) % k == r,
    ),
    "divides": (0, "divides: {linked} when the smaller number divides the larger one", lambda a, b: b % a == 0),
    "coprime": (0, "coprime: {linked} when the numbers have no common divisor above 1", lambda a, b: gcd(a, b) == 1),
    "sum_is": (1, "sum_is S: {linked} when the numbers add up to exactly S", lambda a, b, s: a + b == s),
    "both_mult": (
        1,
        "both_mult K: {linked} when both numbers are multiples of K",
        lambda a, b, k: a % k == 0 and b % k == 0,
    ),
    "sum_above": (1, "sum_above S: {linked} when the sum of the numbers is greater than S", lambda a, b, s: a + b > s),
}


def _level(
    n: int,
    diff: int,
    within: int,
    mod: int,
    sum_mod: int,
    mult: int,
    extra: tuple[str, ...],
    sum_is: tuple[int, ...],
    sums: tuple[int, ...],
) -> dict[str, Any]:
    return {
        "N": n,
        "diff": diff,
        "within": within,
        "mod": mod,
        "sum_mod": sum_mod,
        "mult": mult,
        "extra": extra,
        "sum_is": sum_is,
        "sums": sums,
    }


def menu(params: dict[str, Any]) -> list[Rule]:
    """Every rule of a level, in menu order (before merging rules with the same graph)."""
    rules: list[Rule] = [("diff", k) for k in range(1, params["diff"] + 1)]
    rules += [("within", k) for k in range(2, params["within"] + 1)]
    rules += [("same_mod", k) for k in range(2, params["mod"] + 1)]
    rules += [("sum_mod", k, r) for k in range(2, params["sum_mod"] + 1) for r in range(k)]
    rules += [("both_mult", k) for k in range(2, params["mult"] + 1)]
    rules += [(name,) for name in params["extra"]]
    rules += [("sum_is", s) for s in params["sum_is"]]
    rules += [("sum_above", s) for s in params["sums"]]
    return rules


def rule_graph(rule: Rule, n: int) -> frozenset[tuple[int, int]]:
    """The pairs ``(a, b)``, ``a < b <= n``, that ``rule`` links."""
    pred = FAMILIES[rule[0]][2]
    return frozenset(p for p in all_pairs(n) if pred(*p, *rule[1:]))


@cache
def _canonical_rules(level: int) -> tuple[tuple[Rule, ...], dict[frozenset, Rule]]:
    params = ConnectionRule.levels[level - 1]
    n = params["N"]
    first: dict[frozenset, Rule] = {}
    for rule in menu(params):
        g = rule_graph(rule, n)
        if 0 < len(g) < n * (n - 1) // 2:
            first.setdefault(g, rule)
    return tuple(first.values()), first


def format_rule(rule: Rule) -> str:
    return " ".join(str(x) for x in rule)


class ConnectionRule(Game):
    name = "ConnectionRule"
    structure = "graph"
    inference = "inductive"
    levels = (
        _level(6, 3, 3, 3, 0, 0, (), (), ()),
        _level(8, 4, 4, 4, 0, 2, ("divides",), (7, 9), ()),
        _level(10, 5, 4, 4, 3, 3, ("divides", "coprime"), (9, 11), (12, 14)),
        _level(12, 6, 5, 5, 4, 3, ("divides", "coprime"), (9, 11, 13), (12, 14, 16, 18)),
        _level(15, 7, 6, 6, 5, 4, ("divides", "coprime"), (10, 12, 14, 16, 18), (14, 16, 18, 20, 22, 24)),
    )
    budgets = (8, 10, 12, 13, 13)
    queries = (QuerySpec("linked", (int, int), "are these two {nodes} {linked} (smaller number first)?"),)
    vocabulary = {"node": "node", "nodes": "nodes", "linked": "linked", "rule": "rule", "network": "network"}
    rules_template = (
        "A {network} has the {nodes} numbered 1 to {N}. A hidden {rule} decides which pairs of "
        "different {nodes} are {linked}; it is one of these (K, R, S are numbers):\n{menu_text}\n"
        "Your goal is to find the {rule}. You may ask one question per turn using the following "
        "format:\n{query_formats}\n"
        "When you know the {rule}, submit its name and numbers (a {rule} that makes exactly the same "
        "pairs {linked} counts as the same {rule}):\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>same_mod 3</answer>"

    def rules_fields(self) -> dict[str, Any]:
        p = self.params
        ranges = {
            "diff": f"K from 1 to {p['diff']}",
            "within": f"K from 2 to {p['within']}",
            "same_mod": f"K from 2 to {p['mod']}",
            "sum_mod": f"K from 2 to {p['sum_mod']}, R from 0 to K-1",
            "both_mult": f"K from 2 to {p['mult']}",
            "sum_is": "S one of " + ", ".join(str(s) for s in p["sum_is"]),
            "sum_above": "S one of " + ", ".join(str(s) for s in p["sums"]),
        }
        used = [r[0] for r in menu(p)]
        lines = []
        for name in dict.fromkeys(used):
            text = FAMILIES[name][1].format(**self.vocab)
            lines.append(f"  {text}" + (f" ({ranges[name]})" if name in ranges else ""))
        return {"menu_text": "\n".join(lines)}

    def candidate_states(self) -> tuple[Rule, ...]:
        return _canonical_rules(self.level)[0]

    def query_args(self, name: str) -> list[tuple]:
        return all_pairs(self.params["N"])

    def example_args(self, name: str) -> tuple:
        return (2, 5)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return bool(FAMILIES[hidden[0]][2](*args, *hidden[1:]))

    def parse_answer(self, text: str) -> Rule:
        words = text.strip(" .'\"").lower().split()
        name = words[0].replace("-", "_") if words else ""
        if name not in FAMILIES:
            raise InvalidAction(
                f"unknown {self.vocab['rule']} {name[:30]!r}; submit one of the listed names, as {self.answer_format}."
            )
        numbers = parse_ints(" ".join(words[1:]))
        if len(numbers) != FAMILIES[name][0]:
            raise InvalidAction(f"{name} takes {FAMILIES[name][0]} number(s); submit as {self.answer_format}.")
        if any(k < 0 for k in numbers):
            raise InvalidAction(f"{name} takes whole numbers of at least 0; submit as {self.answer_format}.")
        rule = (name, *numbers)
        if name in ("same_mod", "sum_mod", "both_mult") and rule[1] == 0:
            raise InvalidAction(f"{name} needs K of at least 1; submit as {self.answer_format}.")
        graph = rule_graph(rule, self.params["N"])
        return _canonical_rules(self.level)[1].get(graph, rule)

    def format_answer(self, target: Hashable) -> str:
        return format_rule(target)
