"""Connection Rule (graph, inductive): infer the hidden rule that decides which {nodes} are linked.

The {nodes} are numbered ``1..N``. A hidden rule, drawn from a menu shown in the rules, decides
for every pair of distinct {nodes} whether they are linked: a few arithmetic rules (``divides``,
``coprime``, ``same_mod K``: the same remainder mod K, ``diff K``: differ by exactly K) and, from
level 2, threshold rules over a wide range (``within K``: differ by at most K; ``sum_above S``,
``sum_below S``; ``product_above P``, ``product_below P``). The only query is an example of the
graph the rule generates: ``linked(a, b)``. The agent submits the rule: an inductive
generalization from the examples it chose.

Rules of the menu that generate the same graph on ``1..N`` are one hypothesis: only the first
in menu order is a candidate, and a submitted rule is read as the first menu rule with the same
graph, so ``within 1`` is accepted for ``diff 1`` and any threshold between the same two sums
(or products) of pairs for another (the answer is unique, the tests check it). Rules linking no
pair or every pair are left out. The hidden rule is drawn uniformly among the candidates.

Levels: ``N`` = 6, 30, 32, 36, 40. Level 1 keeps the small menu (``diff``, ``within``,
``same_mod``: 6 rules); from level 2 the menu holds ``same_mod``, ``divides`` (and ``coprime``)
beside the threshold families: ``sum_above`` and ``product_above`` (level 2), ``product_below``
(3), ``sum_below`` (4), ``within`` with every K (5): 338, 724, 919 and 1153 distinct rules.
Along the pairs in their listed order, ``(1, 2), (1, 3), ...``, a threshold on the difference,
the sum or the product moves one value per pair, so reading off the pairs finds a threshold one
value at a time and needs more turns than the budget in about 9 of 10 draws (88% to 91% of the
rules of each level); a pair aimed at the middle of the thresholds still possible halves them,
and the oracle tells the family apart and bisects its threshold in about ``log2(rules) + 1``
turns.

Version History: v0 (issue 25) levels 2-5 rebuilt around wide threshold families (were ``N`` =
8-15 with 13-46 rules that a read-off of pairs identified within the budget).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cache
from math import gcd
from typing import Any

from mtp_gym.core import InvalidAction
from mtp_gym.games._graph import all_pairs, parse_ints
from mtp_gym.games.base import Game, QuerySpec
from mtp_gym.games.domains import Story, nouns

Rule = tuple  # ("diff", 3), ("sum_mod", 4, 1), ("divides",), ("product_above", 120)

#: name -> (number of int params, text shown in the menu, predicate on a < b and params)
FAMILIES: dict[str, tuple[int, str, Callable[..., bool]]] = {
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
    "sum_below": (1, "sum_below S: {linked} when the sum of the numbers is less than S", lambda a, b, s: a + b < s),
    "product_above": (
        1,
        "product_above P: {linked} when the product of the numbers is greater than P",
        lambda a, b, p: a * b > p,
    ),
    "product_below": (
        1,
        "product_below P: {linked} when the product of the numbers is less than P",
        lambda a, b, p: a * b < p,
    ),
}

#: Threshold families: name -> the statistic of a pair it compares with its parameter.
THRESHOLDS: dict[str, Callable[[int, int], int]] = {
    "within": lambda a, b: b - a,
    "sum_above": lambda a, b: a + b,
    "sum_below": lambda a, b: a + b,
    "product_above": lambda a, b: a * b,
    "product_below": lambda a, b: a * b,
}


def _level(
    n: int,
    diff: int = 0,
    within: int = 0,
    mod: int = 0,
    sum_mod: int = 0,
    mult: int = 0,
    extra: tuple[str, ...] = (),
    thresholds: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A level: ``N``; the largest K of the small families (``diff`` from 1, ``within``, ``mod``,
    ``sum_mod``, ``mult`` from 2; 0 = left out); the parameterless families; the threshold
    families, with every parameter that links some but not every pair (``within`` among them
    replaces the small ``within`` family)."""
    return {
        "N": n,
        "diff": diff,
        "within": within,
        "mod": mod,
        "sum_mod": sum_mod,
        "mult": mult,
        "extra": extra,
        "thresholds": thresholds,
    }


def threshold_range(name: str, n: int) -> tuple[int, int]:
    """The parameters of threshold family ``name`` that link some but not every pair of ``1..n``."""
    top = {"within": n - 1, "sum_above": 2 * n - 1, "sum_below": 2 * n - 1}.get(name, n * (n - 1))
    low = {"within": 1, "sum_above": 3, "sum_below": 4, "product_above": 2, "product_below": 3}[name]
    high = top - 1 if name in ("within", "sum_above", "product_above") else top
    return low, high


def menu(params: dict[str, Any]) -> list[Rule]:
    """Every rule of a level, in menu order (before merging rules with the same graph)."""
    n, thresholds = params["N"], params["thresholds"]
    rules: list[Rule] = [("diff", k) for k in range(1, params["diff"] + 1)]
    if "within" not in thresholds:
        rules += [("within", k) for k in range(2, params["within"] + 1)]
    rules += [("same_mod", k) for k in range(2, params["mod"] + 1)]
    rules += [("sum_mod", k, r) for k in range(2, params["sum_mod"] + 1) for r in range(k)]
    rules += [("both_mult", k) for k in range(2, params["mult"] + 1)]
    rules += [(name,) for name in params["extra"]]
    for name in thresholds:
        low, high = threshold_range(name, n)
        rules += [(name, t) for t in range(low, high + 1)]
    return rules


@cache
def _pair_index(n: int) -> dict[tuple[int, int], int]:
    return {p: i for i, p in enumerate(all_pairs(n))}


def rule_mask(rule: Rule, n: int) -> int:
    """The pairs ``(a, b)``, ``a < b <= n``, that ``rule`` links, as bits of an int (bit ``i``:
    the ``i``-th pair of :func:`~mtp_gym.games._graph.all_pairs`)."""
    pred = FAMILIES[rule[0]][2]
    return sum(1 << i for i, p in enumerate(all_pairs(n)) if pred(*p, *rule[1:]))


def _threshold_masks(name: str, n: int) -> list[tuple[Rule, int]]:
    """``(rule, mask)`` of every parameter of a threshold family, in menu order, built from the
    pairs grouped by their statistic (one pass, not one scan of the pairs per parameter)."""
    stat = THRESHOLDS[name]
    pairs = all_pairs(n)
    full = (1 << len(pairs)) - 1
    by_value: dict[int, int] = {}
    for i, p in enumerate(pairs):
        by_value[stat(*p)] = by_value.get(stat(*p), 0) | 1 << i
    values = sorted(by_value)
    low, high = threshold_range(name, n)
    out, at_most, j = [], 0, 0
    for t in range(low, high + 1):
        cut = t - 1 if name.endswith("_below") else t  # linked: statistic <= cut, or > cut for *_above
        while j < len(values) and values[j] <= cut:
            at_most |= by_value[values[j]]
            j += 1
        out.append(((name, t), full & ~at_most if name.endswith("_above") else at_most))
    return out


@cache
def _canonical_rules(level: int) -> tuple[tuple[Rule, ...], dict[int, Rule], dict[Rule, int]]:
    """The level's candidate rules (first in menu order per graph, trivial graphs left out), the
    graph -> rule map and the rule -> graph map (graphs as :func:`rule_mask` ints)."""
    params = ConnectionRule.levels[level - 1]
    n = params["N"]
    full = (1 << (n * (n - 1) // 2)) - 1
    first: dict[int, Rule] = {}
    masks = [(r, rule_mask(r, n)) for r in menu({**params, "thresholds": ()})]
    for name in params["thresholds"]:
        masks += _threshold_masks(name, n)
    for rule, mask in masks:
        if 0 < mask < full:
            first.setdefault(mask, rule)
    return tuple(first.values()), first, {r: m for m, r in first.items()}


def format_rule(rule: Rule) -> str:
    return " ".join(str(x) for x in rule)


class ConnectionRule(Game):
    """Connection Rule (graph, inductive): infer the hidden rule that links pairs of ``1..N``.

    Hidden: a rule from the menu shown in the rules (``diff K``, ``within K``, ``same_mod K``,
    ``divides``, ``coprime``, ``sum_above S``, ...); rules linking the same pairs are one. Query:
    ``linked(a, b)`` (does the rule link ``a`` and ``b``?, Yes/No). Answer: a rule with the same
    pairs. Levels: ``N`` = 6, 30, 32, 36, 40: 6, 338, 724, 919 and 1153 rules.
    """

    name = "ConnectionRule"
    structure = "graph"
    inference = "inductive"
    levels = (
        _level(6, diff=3, within=3, mod=3),
        _level(30, mod=3, extra=("divides",), thresholds=("sum_above", "product_above")),
        _level(32, mod=3, extra=("divides", "coprime"), thresholds=("sum_above", "product_above", "product_below")),
        _level(
            36,
            mod=4,
            extra=("divides", "coprime"),
            thresholds=("sum_above", "sum_below", "product_above", "product_below"),
        ),
        _level(
            40,
            mod=4,
            extra=("divides", "coprime"),
            thresholds=("within", "sum_above", "sum_below", "product_above", "product_below"),
        ),
    )
    budgets = (9, 23, 25, 26, 27)
    queries = (QuerySpec("linked", (int, int), "are these two {nodes} {linked} (smaller number first)?"),)
    vocabulary = {"node": "node", "nodes": "nodes", "linked": "linked", "rule": "rule", "network": "network"}
    rules_template = (
        "A {network} has the {nodes} numbered 1 to {N}. A hidden {rule} decides which pairs of "
        "different {nodes} are {linked}; it is one of these (K, R, S, P are whole numbers):\n{menu_text}\n"
        "Your goal is to find the {rule}. You may ask one question per turn using the following "
        "format:\n{query_formats}\n"
        "When you know the {rule}, submit its name and numbers (a {rule} that makes exactly the same "
        "pairs {linked} counts as the same {rule}):\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>same_mod 3</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "node nodes linked rule network",
        education={"linked": "study partners", "rule": "pairing rule", "network": "study-partner network"},
        healthcare={"linked": "in contact", "rule": "transmission rule", "network": "contact network"},
        transportation={"linked": "directly connected", "rule": "connection rule", "network": "rail network"},
        manufacturing={"linked": "wired together", "rule": "wiring rule", "network": "control network"},
        law={"linked": "business partners", "rule": "conflict-of-interest rule", "network": "case file"},
    )
    story = Story(
        setting="The {nodes} of a {network} carry the numbers 1 to {N}. Whether two different {nodes} "
        "are {linked} is settled by a {rule} that is kept secret; it is one of the following, where K, R "
        "and S stand for numbers:\n{menu_text}\nIdentify that {rule}.",
        answer="the {rule}'s name and its numbers (any {rule} that makes exactly the same pairs "
        "{linked} is taken as the same one)",
        queries={"linked": "does the {rule} make these two {nodes} {linked}? (give the smaller number first)"},
    )

    def rules_fields(self) -> dict[str, Any]:
        p = self.params
        n = p["N"]
        ranges = {
            "diff": f"K from 1 to {p['diff']}",
            "within": f"K from 2 to {p['within']}",
            "same_mod": f"K from 2 to {p['mod']}",
            "sum_mod": f"K from 2 to {p['sum_mod']}, R from 0 to K-1",
            "both_mult": f"K from 2 to {p['mult']}",
        }
        for name in p["thresholds"]:
            low, high = threshold_range(name, n)
            ranges[name] = f"{'K' if name == 'within' else name[0].upper()} from {low} to {high}"
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
        n = self.params["N"]
        mask = _canonical_rules(self.level)[2].get(hidden)
        if mask is None:  # not a candidate (tests, probes): evaluate the rule itself
            return bool(FAMILIES[hidden[0]][2](*args, *hidden[1:]))
        return bool(mask >> _pair_index(n)[tuple(args)] & 1)

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
        return _canonical_rules(self.level)[1].get(rule_mask(rule, self.params["N"]), rule)

    def format_answer(self, target: Rule) -> str:
        return format_rule(target)
