"""Sequence Rule (sequence, inductive): infer the hidden generating rule of a number sequence.

The env hides the {rule} that generates an integer {sequence} ``t1, t2, t3, ...``. The agent
asks for single {terms} (``term(k)``, the k-th {term}, ``k`` from 1 to ``K``) and must
generalize from these examples to the {rule} itself. The {rule} has one of the forms listed in
the rules for the level:

==================  =============================================================
``arith a d``       ``a, a+d, a+2d, ...`` (``t_k = a + (k-1)d``, ``d != 0``)
``geom a r``        ``a, a*r, a*r*r, ...``
``alt a b``         ``a, b, a, b, ...`` (``a != b``)
``fib a b``         ``a, b, a+b, ...`` (each {term} the sum of the two before it)
``quad a b``        ``t_k = a*k*k + b``
``cycle a b c``     ``a, b, c, a, b, c, ...`` (not all equal)
``cycle4 a b c d``  ``a, b, c, d, a, b, c, d, ...`` (not all equal)
``inter a b d e``   odd {terms} ``a, a+d, a+2d, ...``, even {terms} ``b, b+e, ...`` (not constant)
==================  =============================================================

Rules that give the same {terms} at ``k = 1..K`` are one hidden state (the first form in the
table order, then the first parameters): any submitted rule of a listed form with the hidden
rule's first ``K`` {terms} is right. Asking every ``term(k)`` determines the state, so the game
is well-posed. The hidden rule is drawn by first picking a form of the level with probability
proportional to ``log2(1 + number of its rules)``, then a rule of that form uniformly.

Levels add forms with more free parameters, so the same evidence leaves more rules open:
level 1 has the five 2-parameter forms (small ranges, ``K = 6``), level 2 adds ``cycle``
(values 0-4), level 3 ``cycle4`` (values 0-3; ``cycle`` 0-6), level 4 widens ``cycle4`` to
0-6, and level 5 adds ``inter`` (a, b from -3 to 12, d, e from -6 to 6), which contains every
``arith`` and ``alt`` rule of the level and agrees with any three of their {terms} in other
rules too, so those need at least four {terms}.
``K`` grows from 6 to 10: 79, 265, 748, 2860 and 46006 distinct rules. Fast-growing forms
(``geom``, ``fib``, ``quad``) stay easy at every level (one late {term} is nearly unique);
the others need about one {term} per free parameter (``alt`` and ``cycle`` more, as
``cycle``/``cycle4`` can copy them for a while). The oracle's mean turns over configurations
0-399 of each level: 2.50, 3.21, 3.65, 4.24, 4.65 (the benchmark split, 0-19: 2.45, 2.95,
3.40, 4.25, 5.00).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from itertools import product
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec

#: Form -> number of int parameters, and the help line shown in the rules.
FORMS: dict[str, tuple[int, str]] = {
    "arith": (2, "arith a d: a, a+d, a+2d, a+3d, ... (each {term} adds d)"),
    "geom": (2, "geom a r: a, a*r, a*r*r, ... (each {term} multiplies by r)"),
    "alt": (2, "alt a b: a, b, a, b, ... (a and b alternate)"),
    "fib": (2, "fib a b: a, b, a+b, a+2b, 2a+3b, ... (each {term} is the sum of the two before it)"),
    "quad": (2, "quad a b: the k-th {term} is a*k*k + b"),
    "cycle": (3, "cycle a b c: a, b, c, a, b, c, ... (repeats every three {terms})"),
    "cycle4": (4, "cycle4 a b c d: a, b, c, d, a, b, c, d, ... (repeats every four {terms})"),
    "inter": (
        4,
        "inter a b d e: the odd-numbered {terms} are a, a+d, a+2d, ... and the even-numbered {terms} are "
        "b, b+e, b+2e, ...",
    ),
}

Rule = tuple  # (form, *int params)


def terms(rule: Rule, count: int) -> tuple[int, ...]:
    """The first ``count`` terms of ``rule``."""
    form, *p = rule
    ks = range(1, count + 1)
    if form == "arith":
        return tuple(p[0] + (k - 1) * p[1] for k in ks)
    if form == "geom":
        return tuple(p[0] * p[1] ** (k - 1) for k in ks)
    if form == "alt":
        return tuple(p[(k - 1) % 2] for k in ks)
    if form == "cycle":
        return tuple(p[(k - 1) % 3] for k in ks)
    if form == "cycle4":
        return tuple(p[(k - 1) % 4] for k in ks)
    if form == "inter":
        return tuple(p[0] + (k - 1) // 2 * p[2] if k % 2 else p[1] + (k - 2) // 2 * p[3] for k in ks)
    if form == "quad":
        return tuple(p[0] * k * k + p[1] for k in ks)
    if form == "fib":
        out = [p[0], p[1]]
        while len(out) < count:
            out.append(out[-1] + out[-2])
        return tuple(out[:count])
    raise ValueError(f"unknown rule form {form!r}")


def _form_rules(form: str, level: dict[str, Any]) -> list[Rule]:
    a_lo, a_hi = level["a"]
    d_lo, d_hi = level["d"]
    s = level["small"]
    if form == "arith":
        return [("arith", a, d) for a in range(a_lo, a_hi + 1) for d in range(d_lo, d_hi + 1) if d != 0]
    if form == "geom":
        return [("geom", a, r) for a in range(1, level["ga"] + 1) for r in range(2, level["gr"] + 1)]
    if form == "alt":
        return [("alt", a, b) for a in range(s + 1) for b in range(s + 1) if a != b]
    if form == "fib":
        return [("fib", a, b) for a in range(1, s + 1) for b in range(1, s + 1)]
    if form == "quad":
        return [("quad", a, b) for a in range(1, level["qa"] + 1) for b in range(-s, s + 1)]
    if form == "cycle":
        values = range(level["c3"] + 1)
        return [("cycle", *p) for p in product(values, repeat=3) if len(set(p)) > 1]
    if form == "cycle4":
        values = range(level["c4"] + 1)
        return [("cycle4", *p) for p in product(values, repeat=4) if len(set(p)) > 1]
    if form == "inter":
        starts, steps = range(level["ia"][0], level["ia"][1] + 1), range(-level["id"], level["id"] + 1)
        return [("inter", *p) for p in product(starts, starts, steps, steps) if p[0] != p[1] or p[2] or p[3]]
    raise ValueError(f"unknown rule form {form!r}")


def param_ranges(form: str, level: dict[str, Any]) -> str:
    """The parameter ranges of ``form`` at a level, as shown in the rules."""
    s = level["small"]
    if form == "arith":
        return f"a from {level['a'][0]} to {level['a'][1]}, d from {level['d'][0]} to {level['d'][1]}, d not 0"
    if form == "geom":
        return f"a from 1 to {level['ga']}, r from 2 to {level['gr']}"
    if form == "alt":
        return f"a and b from 0 to {s}, a different from b"
    if form == "fib":
        return f"a and b from 1 to {s}"
    if form == "quad":
        return f"a from 1 to {level['qa']}, b from {-s} to {s}"
    if form == "cycle":
        return f"a, b and c from 0 to {level['c3']}, not all equal"
    if form == "cycle4":
        return f"a, b, c and d from 0 to {level['c4']}, not all equal"
    if form == "inter":
        (lo, hi), step = level["ia"], level["id"]
        return f"a and b from {lo} to {hi}, d and e from {-step} to {step}, not a constant {{sequence}}"
    raise ValueError(f"unknown rule form {form!r}")


@cache
def rules_by_form(level_index: int) -> dict[str, tuple[Rule, ...]]:
    """The hidden states of a level, grouped by form: one rule per sequence of first K terms."""
    level = SequenceRule.levels[level_index]
    seen: set[tuple[int, ...]] = set()
    out: dict[str, tuple[Rule, ...]] = {}
    for form in level["forms"]:
        kept = []
        for rule in _form_rules(form, level):
            t = terms(rule, level["K"])
            if t not in seen:
                seen.add(t)
                kept.append(rule)
        out[form] = tuple(kept)
    return out


@cache
def _canonical(level_index: int) -> dict[tuple[int, ...], Rule]:
    count = SequenceRule.levels[level_index]["K"]
    return {terms(r, count): r for rs in rules_by_form(level_index).values() for r in rs}


@cache
def _terms_cached(rule: Rule, count: int) -> tuple[int, ...]:
    return terms(rule, count)


def format_rule(rule: Rule) -> str:
    return " ".join(str(x) for x in rule)


class SequenceRule(Game):
    name = "SequenceRule"
    structure = "sequence"
    inference = "inductive"
    #: 2-parameter forms at level 1, then forms with 3 (cycle) and 4 (cycle4, inter) free parameters.
    levels = (
        {
            "K": 6,
            "forms": ("arith", "geom", "alt", "fib", "quad"),
            "a": (0, 6),
            "d": (-2, 2),
            "ga": 3,
            "gr": 3,
            "small": 4,
            "qa": 1,
        },
        {
            "K": 7,
            "forms": ("arith", "geom", "alt", "fib", "quad", "cycle"),
            "a": (0, 9),
            "d": (-3, 3),
            "ga": 4,
            "gr": 3,
            "small": 5,
            "qa": 2,
            "c3": 4,
        },
        {
            "K": 8,
            "forms": ("arith", "geom", "alt", "fib", "quad", "cycle", "cycle4"),
            "a": (0, 9),
            "d": (-3, 3),
            "ga": 4,
            "gr": 3,
            "small": 6,
            "qa": 2,
            "c3": 6,
            "c4": 3,
        },
        {
            "K": 9,
            "forms": ("arith", "geom", "alt", "fib", "quad", "cycle", "cycle4"),
            "a": (0, 9),
            "d": (-3, 3),
            "ga": 4,
            "gr": 3,
            "small": 6,
            "qa": 2,
            "c3": 6,
            "c4": 6,
        },
        {
            "K": 10,
            "forms": ("arith", "geom", "alt", "fib", "quad", "cycle", "cycle4", "inter"),
            "a": (0, 9),
            "d": (-3, 3),
            "ga": 4,
            "gr": 3,
            "small": 6,
            "qa": 2,
            "c3": 6,
            "c4": 6,
            "ia": (-3, 12),
            "id": 6,
        },
    )
    budgets = (5, 6, 7, 9, 10)
    queries = (QuerySpec("term", (int,), "what is the {term} at this {position} of the {sequence}?"),)
    vocabulary = {"sequence": "sequence", "term": "term", "terms": "terms", "position": "position", "rule": "rule"}
    rules_template = (
        "I have chosen a hidden {rule} that generates an endless {sequence} of whole numbers. Your "
        "goal is to find the {rule} from examples of its {terms}. The {rule} has one of these "
        "forms (all parameters are whole numbers in the ranges given):\n{form_lines}\n"
        "Any {rule} of these forms whose first {K} {terms} are the same counts as the same {rule}. "
        "You may ask for one {term} per turn ({position} 1 to {K}) using the following format:\n"
        "{query_formats}\nWhen you know the {rule}, submit it in one of the forms above, for "
        "example:\n{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>arith 5 2</answer>"

    def rules_fields(self) -> dict[str, Any]:
        lines = [f"  {FORMS[f][1]}; {param_ranges(f, self.params)}".format(**self.vocab) for f in self.params["forms"]]
        return {"form_lines": "\n".join(lines)}

    def candidate_states(self) -> tuple[Rule, ...]:
        return tuple(r for rs in rules_by_form(self.level - 1).values() for r in rs)

    def sample_hidden(self, rng: np.random.Generator) -> Rule:
        groups = [rs for rs in rules_by_form(self.level - 1).values() if rs]
        weights = np.log2(1 + np.array([len(g) for g in groups], dtype=float))
        group = groups[int(rng.choice(len(groups), p=weights / weights.sum()))]
        return group[int(rng.integers(len(group)))]

    def query_args(self, name: str) -> list[tuple]:
        return [(k,) for k in range(1, self.params["K"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (4,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return _terms_cached(hidden, self.params["K"])[args[0] - 1]

    def parse_answer(self, text: str) -> Rule:
        tokens = re.findall(r"[a-z][a-z0-9]*|-?\d+", text.lower())
        forms = self.params["forms"]
        if not tokens or tokens[0] not in forms:
            raise InvalidAction(
                f"the answer {text[:60]!r} does not start with a rule form ({', '.join(forms)}); "
                f"submit as {self.answer_format}."
            )
        arity = FORMS[tokens[0]][0]
        params = tokens[1:]
        if len(params) != arity or not all(re.fullmatch(r"-?\d+", p) for p in params):
            raise InvalidAction(
                f"the form {tokens[0]!r} takes {arity} integer(s): {FORMS[tokens[0]][1].format(**self.vocab)}."
            )
        rule: Rule = (tokens[0], *(int(p) for p in params))
        if any(abs(x) > 10**6 for x in rule[1:]):
            raise InvalidAction("rule parameters must be at most 1000000 in absolute value.")
        return _canonical(self.level - 1).get(terms(rule, self.params["K"]), rule)

    def format_answer(self, target: Hashable) -> str:
        return format_rule(target)
