"""Number Concept (set, inductive): infer a hidden rule over {1..n} from membership examples.

Tenenbaum's number game as an interactive task. The env hides a {rule} that picks a subset of
the {numbers} ``1..n`` (its extension); the agent asks whether single {numbers} belong
(``member(x)``, Yes/No) and must generalize from these examples to the rule itself. The rule
has one of the forms listed in the rules for the level:

==================  ==========================================================
``multiple d``      the multiples of ``d``
``mod m r``         the {numbers} leaving remainder ``r`` when divided by ``m``
``range a b``       the {numbers} from ``a`` to ``b`` (at least 3 of them)
``power b``         ``b, b^2, b^3, ...``
``square``          the perfect squares
``prime``           the primes
``ends d``          the {numbers} whose last digit is ``d``
==================  ==========================================================

Only rules with at least 3 and fewer than ``n`` members are used, and rules with the same
extension on ``1..n`` are one hidden state (the first form in the table order): any submitted
rule with the hidden rule's extension is right, e.g. ``mod 2 0`` for ``multiple 2``. Asking
every ``member(x)`` always determines the extension, so the game is well-posed; a good player
generalizes from far fewer examples. The hidden rule is drawn by first picking a form of the
level with probability proportional to ``log2(1 + number of its rules)``, then a rule of that
form uniformly, so ranges (the most numerous) do not crowd out the other forms.

Levels grow ``n`` (10, 16, 24, 36, 50) and the forms: multiples and ranges, then residues,
then powers, squares and primes, then last digits (37, 124, 296, 654, 1239 rules).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec

#: Form -> number of int parameters, and the help line shown in the rules.
FORMS: dict[str, tuple[int, str]] = {
    "multiple": (1, "multiple d: the multiples of d"),
    "mod": (2, "mod m r: the {numbers} that leave remainder r when divided by m"),
    "range": (2, "range a b: the {numbers} from a to b inclusive"),
    "power": (1, "power b: the powers b, b*b, b*b*b, ... of b"),
    "square": (0, "square: the perfect squares 1, 4, 9, ..."),
    "prime": (0, "prime: the prime {numbers}"),
    "ends": (1, "ends d: the {numbers} whose last digit is d"),
}

Rule = tuple  # (form, *int params)


def extension(rule: Rule, n: int) -> frozenset[int]:
    """The {numbers} of ``1..n`` that ``rule`` selects (empty for a malformed rule)."""
    form, *p = rule
    xs = range(1, n + 1)
    if form == "multiple":
        return frozenset(x for x in xs if p[0] > 0 and x % p[0] == 0)
    if form == "mod":
        return frozenset(x for x in xs if p[0] > 0 and x % p[0] == p[1])
    if form == "range":
        return frozenset(x for x in xs if p[0] <= x <= p[1])
    if form == "power":
        out, v = set(), p[0]
        while 1 < v <= n:
            out.add(v)
            v *= p[0]
        return frozenset(out)
    if form == "square":
        return frozenset(i * i for i in range(1, n + 1) if i * i <= n)
    if form == "prime":
        return frozenset(x for x in xs if x > 1 and all(x % d for d in range(2, int(x**0.5) + 1)))
    if form == "ends":
        return frozenset(x for x in xs if x % 10 == p[0])
    raise ValueError(f"unknown rule form {form!r}")


def _form_rules(form: str, n: int) -> list[Rule]:
    if form == "multiple":
        return [("multiple", d) for d in range(2, n // 2 + 1)]
    if form == "mod":
        return [("mod", m, r) for m in range(2, min(9, n // 2) + 1) for r in range(m)]
    if form == "range":
        return [("range", a, b) for a in range(1, n + 1) for b in range(a + 2, n + 1)]
    if form == "power":
        return [("power", b) for b in range(2, n + 1)]
    if form == "ends":
        return [("ends", d) for d in range(10)]
    return [(form,)]


@cache
def rules_by_form(n: int, forms: tuple[str, ...]) -> dict[str, tuple[Rule, ...]]:
    """The hidden states of a level, grouped by form: one rule per extension, 3 <= size < n."""
    seen: set[frozenset[int]] = set()
    out: dict[str, tuple[Rule, ...]] = {}
    for form in forms:
        kept = []
        for rule in _form_rules(form, n):
            ext = extension(rule, n)
            if 3 <= len(ext) < n and ext not in seen:
                seen.add(ext)
                kept.append(rule)
        out[form] = tuple(kept)
    return out


@cache
def _canonical(n: int, forms: tuple[str, ...]) -> dict[frozenset[int], Rule]:
    return {extension(r, n): r for rs in rules_by_form(n, forms).values() for r in rs}


def format_rule(rule: Rule) -> str:
    return " ".join(str(x) for x in rule)


class NumberConcept(Game):
    name = "NumberConcept"
    structure = "set"
    inference = "inductive"
    levels = (
        {"n": 10, "forms": ("multiple", "range")},
        {"n": 16, "forms": ("multiple", "mod", "range")},
        {"n": 24, "forms": ("multiple", "mod", "range", "power", "square", "prime")},
        {"n": 36, "forms": ("multiple", "mod", "range", "power", "square", "prime", "ends")},
        {"n": 50, "forms": ("multiple", "mod", "range", "power", "square", "prime", "ends")},
    )
    budgets = (13, 17, 20, 23, 25)
    queries = (QuerySpec("member", (int,), "does this {number} follow the hidden {rule}?"),)
    vocabulary = {"number": "number", "numbers": "numbers", "rule": "rule", "examples": "examples"}
    rules_template = (
        "I have chosen a hidden {rule} that selects some of the {numbers} from 1 to {n}. Your goal "
        "is to find the {rule} from {examples}. The {rule} has one of these forms:\n{form_lines}\n"
        "It selects at least 3 {numbers} and not all of them. Any {rule} of these forms that "
        "selects exactly the same {numbers} counts as the same {rule}. You may ask one question "
        "per turn using the following format:\n{query_formats}\n"
        "When you know the {rule}, submit it in one of the forms above, for example:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>range 3 7</answer>"  # every level offers "range"

    def rules_fields(self) -> dict[str, Any]:
        lines = [f"  {FORMS[f][1]}".format(**self.vocab) for f in self.params["forms"]]
        return {"form_lines": "\n".join(lines)}

    def _by_form(self) -> dict[str, tuple[Rule, ...]]:
        return rules_by_form(self.params["n"], self.params["forms"])

    def candidate_states(self) -> tuple[Rule, ...]:
        return tuple(r for rs in self._by_form().values() for r in rs)

    def sample_hidden(self, rng: np.random.Generator) -> Rule:
        groups = [rs for rs in self._by_form().values() if rs]
        weights = np.log2(1 + np.array([len(g) for g in groups], dtype=float))
        group = groups[int(rng.choice(len(groups), p=weights / weights.sum()))]
        return group[int(rng.integers(len(group)))]

    def query_args(self, name: str) -> list[tuple]:
        return [(x,) for x in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (7,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return args[0] in _extension_cached(hidden, self.params["n"])

    def parse_answer(self, text: str) -> Rule:
        tokens = re.findall(r"[a-z]+|(?:(?<![0-9a-z])-)?\d+", text.lower())
        if tokens and tokens[0] not in FORMS and tokens[0][:-1] in FORMS:
            tokens[0] = tokens[0][:-1]  # "multiples 3", "primes"
        if not tokens or tokens[0] not in FORMS:
            raise InvalidAction(
                f"the answer {text[:60]!r} does not start with a rule form ({', '.join(FORMS)}); "
                f"submit as {self.answer_format}."
            )
        arity = FORMS[tokens[0]][0]
        params = tokens[1:]
        if len(params) != arity or not all(p.isdigit() for p in params):
            raise InvalidAction(
                f"the form {tokens[0]!r} takes {arity} integer(s): {FORMS[tokens[0]][1].format(**self.vocab)}."
            )
        rule: Rule = (tokens[0], *(int(p) for p in params))
        n = self.params["n"]
        return _canonical(n, self.params["forms"]).get(extension(rule, n), rule)

    def format_answer(self, target: Hashable) -> str:
        return format_rule(target)


@cache
def _extension_cached(rule: Rule, n: int) -> frozenset[int]:
    return extension(rule, n)
