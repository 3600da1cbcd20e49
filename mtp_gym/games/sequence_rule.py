"""Sequence Rule (sequence, inductive): infer the hidden generating rule of a number sequence.

The env hides the {rule} that generates an integer {sequence} ``t1, t2, t3, ...``. The agent
asks about the first ``K`` {terms}: ``term(k)`` (the k-th {term}) and ``total(k)`` (the sum of
the first ``k`` {terms}), and must generalize from these examples to the {rule} itself. The
{rule} has one of the forms listed in the rules for the level:

==================  =============================================================
``arith a d``       ``a, a+d, a+2d, ...`` (``t_k = a + (k-1)d``; ``d = 0``: constant)
``step a b s``      ``a`` up to {term} ``s-1``, then ``b`` (``a != b``)
``ramp a d s``      ``a, a+d, ...`` up to {term} ``s``, then constant (``d != 0``)
``climb a d s``     ``a`` up to {term} ``s``, then each {term} adds ``d`` (``d != 0``)
``saw a d m``       ``a, a+d, ..., a+(m-1)d``, then again from ``a`` (``d != 0``)
``spike a b s``     ``a`` everywhere except {term} ``s``, which is ``b`` (``a != b``)
==================  =============================================================

Rules that give the same {terms} at ``k = 1..K`` are one hidden state (the first form in the
table order, then the first parameters): any submitted rule of a listed form with the hidden
rule's first ``K`` {terms} is right. Asking every ``term(k)`` determines the state, so the game
is well-posed. The hidden rule is drawn by first picking a form of the level with probability
proportional to ``log2(1 + number of its rules)``, then a rule of that form uniformly.

Every form but ``arith`` changes at a hidden {position} (``s`` or ``m``) among many more than
the turn budget, so the {terms} that show the {rule} are not a prefix: a read of the {terms}
in order needs about as many questions as that {position} (and all ``K`` of them to rule the
changes out of an ``arith`` {sequence}), while ``total`` weighs every {term} at once (with the
first and last {terms} it pins ``s`` of a ``step`` or ``ramp``) and a ``spike`` takes a split
of the totals. Level 1 is small: ``arith`` and ``step`` over ``K = 6`` {terms} (80 rules).
Levels 2-5 have ``K`` = 60, 70, 80, 100 and add ``ramp``, ``climb``, ``saw`` and ``spike`` in
turn: 2351, 5328, 7980 and 16488 rules.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from itertools import accumulate
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec
from mtp_gym.games.domains import Story, nouns

#: Form -> number of int parameters, and the help line shown in the rules.
FORMS: dict[str, tuple[int, str]] = {
    "arith": (2, "arith a d: a, a+d, a+2d, a+3d, ... (each {term} adds d)"),
    "step": (3, "step a b s: a up to {term} s-1, then b from {term} s on"),
    "ramp": (3, "ramp a d s: a, a+d, a+2d, ... up to {term} s, then every later {term} stays at the value of {term} s"),
    "climb": (3, "climb a d s: a up to {term} s, then each later {term} adds d"),
    "saw": (3, "saw a d m: a, a+d, ..., a+(m-1)d, then again from a (repeats every m {terms})"),
    "spike": (3, "spike a b s: every {term} is a, except {term} s, which is b"),
}

Rule = tuple  # (form, *int params)


def terms(rule: Rule, count: int) -> tuple[int, ...]:
    """The first ``count`` terms of ``rule``."""
    form, *p = rule
    ks = range(1, count + 1)
    if form == "arith":
        return tuple(p[0] + (k - 1) * p[1] for k in ks)
    if form == "step":
        return tuple(p[0] if k < p[2] else p[1] for k in ks)
    if form == "ramp":
        return tuple(p[0] + (min(k, p[2]) - 1) * p[1] for k in ks)
    if form == "climb":
        return tuple(p[0] + max(0, k - p[2]) * p[1] for k in ks)
    if form == "spike":
        return tuple(p[1] if k == p[2] else p[0] for k in ks)
    if form == "saw":
        if p[2] < 1:
            raise ValueError("saw needs m >= 1")
        return tuple(p[0] + (k - 1) % p[2] * p[1] for k in ks)
    raise ValueError(f"unknown rule form {form!r}")


def _form_rules(form: str, level: dict[str, Any]) -> list[Rule]:
    values = range(level["a"] + 1)
    steps = [d for d in range(-level["d"], level["d"] + 1) if d]
    last = level["K"]
    if form == "arith":
        return [("arith", a, d) for a in values for d in (*steps, 0)]
    if form == "step":
        return [("step", a, b, s) for a in values for b in values if a != b for s in range(2, last + 1)]
    if form == "spike":
        return [("spike", a, b, s) for a in values for b in values if a != b for s in range(2, last)]
    if form in ("ramp", "climb", "saw"):
        return [(form, a, d, s) for a in values for d in steps for s in range(2, last)]
    raise ValueError(f"unknown rule form {form!r}")


def param_ranges(form: str, level: dict[str, Any]) -> str:
    """The parameter ranges of ``form`` at a level, as shown in the rules."""
    a, d, last = level["a"], level["d"], level["K"]
    if form == "arith":
        return f"a from 0 to {a}, d from {-d} to {d}"
    if form == "step":
        return f"a and b from 0 to {a}, a different from b, s from 2 to {last}"
    if form == "spike":
        return f"a and b from 0 to {a}, a different from b, s from 2 to {last - 1}"
    if form in ("ramp", "climb"):
        return f"a from 0 to {a}, d from {-d} to {d}, d not 0, s from 2 to {last - 1}"
    if form == "saw":
        return f"a from 0 to {a}, d from {-d} to {d}, d not 0, m from 2 to {last - 1}"
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
def _answers(rule: Rule, count: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The first ``count`` terms of ``rule`` and their running totals."""
    t = terms(rule, count)
    return t, tuple(accumulate(t))


@cache
def _answer_table(level: int, count: int) -> np.ndarray:
    """``table[0 or 1, k - 1, s]``: term ``k`` or the total through term ``k`` of candidate
    rule ``s`` of ``level`` (in :meth:`SequenceRule.candidate_states` order)."""
    states = [r for rs in rules_by_form(level - 1).values() for r in rs]
    table = np.array([_answers(r, count) for r in states], dtype=np.int64).reshape(len(states), 2, count)
    small = table.size == 0 or np.abs(table).max() < 2**31
    table = np.ascontiguousarray(table.transpose(1, 2, 0), dtype=np.int32 if small else np.int64)
    table.flags.writeable = False  # cached: shared by every game of this level
    return table


def format_rule(rule: Rule) -> str:
    return " ".join(str(x) for x in rule)


class SequenceRule(Game):
    """Sequence Rule (sequence, inductive): infer the hidden rule of an integer sequence.

    Hidden: a rule of one of the forms shown (``arith``, ``step``, ``ramp``, ``climb``, ``saw``,
    ``spike``); rules with the same first ``K`` terms are one. Queries: ``term(k)`` (the ``k``-th
    term) and ``total(k)`` (the sum of the first ``k`` terms). Answer: a rule with the same terms.
    Levels: ``K`` = 6, 60, 70, 80, 100 with 2 to 6 forms: 80 to 16488 rules.
    """

    name = "SequenceRule"
    structure = "sequence"
    inference = "inductive"
    #: Level 1: two small forms over 6 {terms}; then long {sequences} whose rules change at a hidden {position}.
    levels = (
        {"K": 6, "forms": ("arith", "step"), "a": 3, "d": 2},
        {"K": 60, "forms": ("arith", "step", "ramp"), "a": 4, "d": 2},
        {"K": 70, "forms": ("arith", "step", "ramp", "climb"), "a": 5, "d": 2},
        {"K": 80, "forms": ("arith", "step", "ramp", "climb", "saw"), "a": 5, "d": 2},
        {"K": 100, "forms": ("arith", "step", "ramp", "climb", "saw", "spike"), "a": 5, "d": 3},
    )
    budgets = (7, 8, 8, 8, 13)
    queries = (
        QuerySpec("term", (int,), "what is the {term} at this {position} of the {sequence}?"),
        QuerySpec("total", (int,), "what is the sum of all the {terms} up to and including this {position}?"),
    )
    vocabulary = {"sequence": "sequence", "term": "term", "terms": "terms", "position": "position", "rule": "rule"}
    rules_template = (
        "I have chosen a hidden {rule} that generates an endless {sequence} of whole numbers. Your "
        "goal is to find the {rule} from examples of its {terms}. The {rule} has one of these "
        "forms (all parameters are whole numbers in the ranges given):\n{form_lines}\n"
        "Any {rule} of these forms whose first {K} {terms} are the same counts as the same {rule}. "
        "You may ask one question per turn about the first {K} {terms} ({positions_text}) using "
        "the following format:\n{query_formats}\nWhen you know the {rule}, submit it in one of "
        "the forms above, for example:\n{answer_format}\nYou have {budget} turns in all "
        "(questions and the answer)."
    )
    answer_format = "<answer>arith 5 2</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "sequence term terms position rule",
        education={
            "sequence": "enrolment series",
            "term": "yearly enrolment",
            "terms": "yearly enrolments",
            "position": "year",
            "rule": "growth rule",
        },
        healthcare={
            "sequence": "dosage schedule",
            "term": "daily dose",
            "terms": "daily doses",
            "position": "day",
            "rule": "dosing rule",
        },
        transportation={
            "sequence": "timetable",
            "term": "departure time",
            "terms": "departure times",
            "position": "slot",
            "rule": "scheduling rule",
        },
        manufacturing={
            "sequence": "output series",
            "term": "batch size",
            "terms": "batch sizes",
            "position": "batch",
            "rule": "production rule",
        },
        law={
            "sequence": "fine schedule",
            "term": "fine",
            "terms": "fines",
            "position": "offence",
            "rule": "sentencing rule",
        },
    )
    story = Story(
        setting="A {rule} kept out of your sight produces the {sequence}, which goes on forever and holds "
        "only whole numbers. Deduce the {rule} by looking at some of its {terms}. It takes one of the "
        "following shapes, each parameter being a whole number within the range stated for it:\n{form_lines}\n"
        "If two such {rule}s agree on the first {K} {terms}, they are treated as one and the same. Each "
        "request is about those first {K} {terms} only ({positions_text}).",
        answer="the {rule}, written in one of the shapes above, as in this example",
        queries={
            "term": "which {term} does the {sequence} show for this {position}?",
            "total": "adding up every {term} from the start of the {sequence} through this {position}, what do "
            "you get?",
        },
    )

    def rules_fields(self) -> dict[str, Any]:
        lines = [f"  {FORMS[f][1]}; {param_ranges(f, self.params)}".format(**self.vocab) for f in self.params["forms"]]
        return {
            "form_lines": "\n".join(lines),
            "positions_text": f"{self.vocab['position']} 1 to {self.params['K']}",
        }

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

    def answer_columns(self, name: str, args: tuple) -> np.ndarray | None:
        count = self.params["K"]
        if not (type(args[0]) is int and 1 <= args[0] <= count):
            return None
        return _answer_table(self.level, count)[int(name == "total"), args[0] - 1]

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        return _answers(hidden, self.params["K"])[name == "total"][args[0] - 1]

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
        if rule[0] == "saw" and rule[3] < 1:
            raise InvalidAction("saw repeats every m terms: m must be at least 1.")
        return _canonical(self.level - 1).get(terms(rule, self.params["K"]), rule)

    def format_answer(self, target: Rule) -> str:
        return format_rule(target)
