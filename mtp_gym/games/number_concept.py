"""Number Concept (set, inductive): infer a hidden rule over {1..n} from examples.

Tenenbaum's number game as an interactive task. The env hides a {rule} that picks a subset of
the {numbers} ``1..n`` (its extension); the agent asks whether single {numbers} belong
(``member(x)``, Yes/No) or how many of the {numbers} ``1..x`` belong (``count(x)``, a number),
and must generalize from these examples to the rule itself. The rule has one of two forms:

======================  ======================================================
``range a b``           the {numbers} from ``a`` to ``b`` (an interval)
``step a b m``          ``a, a+m, a+2m, ...`` up to ``b``, ``2 <= m <= steps``
======================  ======================================================

Only rules with at least 3 and fewer than ``n`` members are used, and rules with the same
extension on ``1..n`` are one hidden state (a ``step`` is written with ``b`` at its last
member): any submitted rule with the hidden rule's extension is right, e.g. ``step 3 40 3``
for ``step 3 39 3``. Asking every ``member(x)`` always determines the extension, so the game
is well-posed. The hidden rule is drawn by first picking a form with probability proportional
to ``log2(1 + number of its rules)``, then a rule of that form uniformly.

Levels ``(n, steps)``: (10, 3), (40, 3), (60, 4), (80, 5), (100, 6): 52, 1292, 3399, 6721 and
11371 rules. Every rule has an interval (where it starts and stops), so a scan ``member(1),
member(2), ...`` (or ``count``), even skipping what the replies settle, must walk to the rule's
last {number} and past it (about 25 to 50 questions from level 2), while a bisection by
``count`` finds both ends and the step in about 5 or 6 turns: the turn budget (12 to 16 from
level 2) leaves room for redundant questions but not for the scan. The levels used to offer
multiples, residues, powers, squares and primes as well: a scan recognizes those after a few
{numbers} (they repeat, or are few and fixed), so they let reasoning-free play win; every
multiple of ``d`` in ``1..n`` is still a ``step`` (``step d ... d``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec
from mtp_gym.games.domains import Story, nouns

#: Form -> number of int parameters, and the help line shown in the rules.
FORMS: dict[str, tuple[int, str]] = {
    "range": (2, "range a b: the {numbers} from a to b inclusive"),
    "step": (3, "step a b m: the {numbers} a, a+m, a+2m, ... up to b (every m-th {number} from a to b)"),
}

Rule = tuple  # (form, *int params)


def extension(rule: Rule, n: int) -> frozenset[int]:
    """The {numbers} of ``1..n`` that ``rule`` selects (empty for a malformed rule)."""
    form, *p = rule
    if form == "range":
        return frozenset(range(max(1, p[0]), min(n, p[1]) + 1))
    if form == "step":
        a, b, m = p
        return frozenset(x for x in range(max(1, a), min(n, b) + 1) if m > 0 and (x - a) % m == 0)
    raise ValueError(f"unknown rule form {form!r}")


def _form_rules(form: str, n: int, steps: int) -> list[Rule]:
    if form == "range":
        return [("range", a, b) for a in range(1, n + 1) for b in range(a + 2, n + 1)]
    # "step", written with b at its last member a + (k - 1) m, k >= 3 members
    return [
        ("step", a, a + (k - 1) * m, m)
        for m in range(2, steps + 1)
        for a in range(1, n - 2 * m + 1)
        for k in range(3, (n - a) // m + 2)
    ]


@cache
def rule_groups(n: int, steps: int) -> tuple[tuple[Rule, ...], ...]:
    """The hidden states of a level, one group per form: one rule per extension, ``3 <= size < n``
    (ranges first)."""
    seen: set[frozenset[int]] = set()
    groups: list[tuple[Rule, ...]] = []
    for form in FORMS:
        kept = []
        for rule in _form_rules(form, n, steps):
            ext = extension(rule, n)
            if 3 <= len(ext) < n and ext not in seen:
                seen.add(ext)
                kept.append(rule)
        groups.append(tuple(kept))
    return tuple(groups)


@cache
def _canonical(n: int, steps: int) -> dict[frozenset[int], Rule]:
    return {extension(r, n): r for g in rule_groups(n, steps) for r in g}


def format_rule(rule: Rule) -> str:
    return " ".join(str(x) for x in rule)


class NumberConcept(Game):
    """Number Concept (set, inductive): infer a hidden rule that picks numbers of ``1..n``.

    Hidden: a rule of the form ``range a b`` (an interval) or ``step a b m`` (``a, a+m, ...`` up to
    ``b``), picking 3 to ``n - 1`` numbers; rules picking the same numbers are one. Queries:
    ``member(x)`` (does the rule pick ``x``?, Yes/No) and ``count(x)`` (how many of ``1..x`` does it
    pick?). Answer: a rule with the same numbers. Levels ``(n, largest step)``: (10, 3), (40, 3),
    (60, 4), (80, 5), (100, 6): 52 to 11371 rules.
    """

    name = "NumberConcept"
    structure = "set"
    inference = "inductive"
    levels = tuple({"n": n, "steps": m} for n, m in ((10, 3), (40, 3), (60, 4), (80, 5), (100, 6)))
    budgets = (10, 12, 13, 15, 16)
    queries = (
        QuerySpec("member", (int,), "does this {number} follow the hidden {rule}?"),
        QuerySpec("count", (int,), "how many {numbers} up to this one (inclusive) follow the hidden {rule}?"),
    )
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

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns("number numbers rule examples")
    story = Story(
        setting="A secret {rule} picks out some of the {numbers} 1 to {n}; you are to work it out "
        "from {examples}. It is written in one of these forms:\n{form_lines}\nIt picks at least 3 "
        "{numbers}, never all of them, and two {rule}s that pick exactly the same {numbers} count as one.",
        answer="the {rule}, written in one of the forms above, for example",
        queries={
            "member": "is this {number} one that the {rule} picks?",
            "count": "counting up from the first {number} to this one, how many does the {rule} pick?",
        },
    )

    def rules_fields(self) -> dict[str, Any]:
        lines = [f"  {help_}".format(**self.vocab) for _, help_ in FORMS.values()]
        lines[-1] += f", with m from 2 to {self.params['steps']}"
        return {"form_lines": "\n".join(lines)}

    def _groups(self) -> tuple[tuple[Rule, ...], ...]:
        return rule_groups(self.params["n"], self.params["steps"])

    def candidate_states(self) -> tuple[Rule, ...]:
        return tuple(r for g in self._groups() for r in g)

    def sample_hidden(self, rng: np.random.Generator) -> Rule:
        groups = self._groups()
        weights = np.log2(1 + np.array([len(g) for g in groups], dtype=float))
        group = groups[int(rng.choice(len(groups), p=weights / weights.sum()))]
        return group[int(rng.integers(len(group)))]

    def query_args(self, name: str) -> list[tuple]:
        return [(x,) for x in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (7,) if name == "member" else (self.params["n"] // 2,)

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        if name == "member":
            return args[0] in _extension_cached(hidden, self.params["n"])
        return _prefix_counts(hidden, self.params["n"])[args[0]]

    def parse_answer(self, text: str) -> Rule:
        tokens = re.findall(r"[a-z]+|(?:(?<![0-9a-z])-)?\d+", text.lower())
        if tokens and tokens[0] not in FORMS and tokens[0][:-1] in FORMS:
            tokens[0] = tokens[0][:-1]  # "ranges 3 7", "steps 2 8 3"
        if not tokens or tokens[0] not in FORMS:
            raise InvalidAction(
                f"the answer {text[:60]!r} does not start with a rule form ({', '.join(FORMS)}); "
                f"submit as {self.answer_format}."
            )
        form, arity = tokens[0], FORMS[tokens[0]][0]
        params = tokens[1:]
        if len(params) != arity or not all(p.isdigit() for p in params):
            raise InvalidAction(f"the form {form!r} takes {arity} integer(s): {FORMS[form][1].format(**self.vocab)}.")
        rule: Rule = (form, *(int(p) for p in params))
        n = self.params["n"]
        return _canonical(n, self.params["steps"]).get(extension(rule, n), rule)

    def format_answer(self, target: Rule) -> str:
        return format_rule(target)


@cache
def _extension_cached(rule: Rule, n: int) -> frozenset[int]:
    return extension(rule, n)


@cache
def _prefix_counts(rule: Rule, n: int) -> tuple[int, ...]:
    """``out[x]``: how many {numbers} of ``1..x`` the rule selects (``out[0] = 0``)."""
    ext, out = _extension_cached(rule, n), [0]
    for x in range(1, n + 1):
        out.append(out[-1] + (x in ext))
    return tuple(out)
