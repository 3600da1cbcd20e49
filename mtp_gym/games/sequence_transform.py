"""Sequence Transform (sequence, inductive): infer a hidden rule that rewrites sequences.

The env hides a {transformation} that rewrites any {run} of consecutive {numbers}
``i, i+1, ..., j`` (``1 <= i <= j <= N``) into an output {sequence}. The agent feeds {runs} of
its choice (``apply(i, j)``) and must generalize from these input/output examples to the
{transformation} itself, one of these forms (one whole-number parameter each):

================  ================================================================
``rotate p``      the first ``p`` {numbers} of the {run} move to its end, in order
                  (a {run} of ``p`` {numbers} or fewer is unchanged)
``drop p``        every multiple of ``p`` is removed
``cap p``         every {number} greater than ``p`` becomes ``p``
``cut p``         only the first ``p`` {numbers} of the {run} are kept
``flip w``        a {run} of more than ``w`` {numbers} is reversed (a shorter one is unchanged)
================  ================================================================

No two rules of a level act the same on every {run} (the {runs} ``1..j`` and ``2..j``
already tell them apart), and applying the rule to every {run} determines it, so the game is well-posed.

Every parameter is a place on the number line that a {run} shows only once it reaches past
it: one long {run} shows ``rotate``, ``drop``, ``cap`` and ``cut`` at once, and ``flip`` takes
a split of the {run} lengths, while a read of the {runs} in order (``1..1, 1..2, 1..3, ...``)
or of the single {numbers} finds the parameter only when it gets there. Level 1: ``N = 4``,
``rotate`` and ``drop`` (6 rules); levels 2-5 grow ``N`` (40, 48, 56, 64) and add ``cap``
(level 2), ``cut`` (level 3) and ``flip`` (level 5): 117, 188, 220 and 315 rules. The forms
are drawn uniformly, then the parameter.
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

#: Form -> (the help line shown in the rules, the parameter's range as (low, high - N)).
FORMS: dict[str, tuple[str, tuple[int, int]]] = {
    "rotate": (
        "rotate p: the first p {numbers} of the {run} move to its end, in order (a {run} of p {numbers} or "
        "fewer is unchanged)",
        (1, -1),
    ),
    "drop": ("drop p: every multiple of p is removed", (2, 0)),
    "cap": ("cap p: every {number} greater than p becomes p", (1, -1)),
    "cut": ("cut p: only the first p {numbers} of the {run} are kept (a shorter {run} is unchanged)", (1, -1)),
    "flip": ("flip w: a {run} of more than w {numbers} is reversed, a shorter one is unchanged", (1, -1)),
}

Rule = tuple  # (form, parameter)


def apply_rule(rule: Rule, i: int, j: int) -> tuple[int, ...]:
    """The output of ``rule`` on the run ``i, i+1, ..., j``."""
    form, p = rule
    run = list(range(i, j + 1))
    if form == "rotate":
        return tuple(run[p:] + run[:p]) if len(run) > p else tuple(run)
    if form == "drop":
        return tuple(x for x in run if x % p)
    if form == "cap":
        return tuple(min(x, p) for x in run)
    if form == "cut":
        return tuple(run[:p])
    if form == "flip":
        return tuple(reversed(run)) if len(run) > p else tuple(run)

    raise ValueError(f"unknown rule form {form!r}")


def param_range(form: str, top: int) -> tuple[int, int]:
    low, high = FORMS[form][1]
    return low, top + high


@cache
def _rules(level_index: int) -> tuple[Rule, ...]:
    """The rules of a level, in table order. No two act the same (from ``N = 3`` on, each
    differs from every other on the whole run ``1..N``), so each is its own hidden state."""
    level = SequenceTransform.levels[level_index]
    out: list[Rule] = []
    for form in level["forms"]:
        low, high = param_range(form, level["N"])
        out.extend((form, p) for p in range(low, high + 1))
    return tuple(out)


def format_rule(rule: Rule) -> str:
    return f"{rule[0]} {rule[1]}"


class SequenceTransform(Game):
    """Sequence Transform (sequence, inductive): infer a hidden rule that rewrites runs of numbers.

    Hidden: a transformation of one of the forms shown (``rotate p``, ``drop p``, ``cap p``,
    ``cut p``, ``flip w``). Query: ``apply(i, j)`` (the output for the run ``i, i+1, ..., j``).
    Answer: the transformation and its parameter. Levels: ``N`` = 4, 40, 48, 56, 64 with 2 to 5
    forms: 6 to 315 rules.
    """

    name = "SequenceTransform"
    structure = "sequence"
    inference = "inductive"
    levels = (
        {"N": 4, "forms": ("rotate", "drop")},
        {"N": 40, "forms": ("rotate", "drop", "cap")},
        {"N": 48, "forms": ("rotate", "drop", "cap", "cut")},
        {"N": 56, "forms": ("rotate", "drop", "cap", "cut")},
        {"N": 64, "forms": ("rotate", "drop", "cap", "cut", "flip")},
    )
    budgets = (5, 5, 6, 6, 12)
    queries = (
        QuerySpec(
            "apply",
            (int, int),
            "what does the hidden {transformation} output for the {run} of {numbers} from the first to the second?",
        ),
    )
    vocabulary = {
        "transformation": "transformation",
        "sequence": "sequence",
        "run": "run",
        "runs": "runs",
        "number": "number",
        "numbers": "numbers",
    }
    rules_template = (
        "I have chosen a hidden {transformation} that rewrites any {run} of consecutive {numbers}, from a "
        "first {number} i to a last {number} j ({range_text}), into an output {sequence}. It is one of "
        "these forms (the parameter is a whole number in the range given):\n{form_lines}\n"
        "Your goal is to find the {transformation} from its outputs on {runs} of your choice. You may "
        "feed it one {run} per turn, naming its first and last {number}, using the following "
        "format:\n{query_formats}\n"
        "When you know the {transformation}, submit its form and parameter, for example:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>rotate 2</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "transformation sequence run runs number numbers",
        education={
            "transformation": "grading procedure",
            "sequence": "mark sheet",
            "run": "block",
            "runs": "blocks",
            "number": "student number",
            "numbers": "student numbers",
        },
        healthcare={
            "transformation": "lab protocol",
            "sequence": "sample rack",
            "run": "batch",
            "runs": "batches",
            "number": "sample number",
            "numbers": "sample numbers",
        },
        transportation={
            "transformation": "rerouting plan",
            "sequence": "departure list",
            "run": "series",
            "runs": "series",
            "number": "train number",
            "numbers": "train numbers",
        },
        manufacturing={
            "transformation": "assembly step",
            "sequence": "part tray",
            "run": "batch",
            "runs": "batches",
            "number": "part number",
            "numbers": "part numbers",
        },
        law={
            "transformation": "redaction procedure",
            "sequence": "file index",
            "run": "range",
            "runs": "ranges",
            "number": "clause number",
            "numbers": "clause numbers",
        },
    )
    story = Story(
        setting="A secret {transformation} takes any {run} of consecutive {numbers}, starting at some "
        "{number} i and ending at some {number} j ({range_text}), and turns it into a new {sequence}. It "
        "works in one of the ways below, each with a single whole-number setting kept within the stated "
        "range:\n{form_lines}\n"
        "Figure out the {transformation} from what it does to the {runs} you pick. Each request hands it "
        "one {run}, given by its first and last {number}.",
        answer="the way the {transformation} works and its setting, in the style of this example",
        queries={
            "apply": "when the hidden {transformation} is applied to the {run} going from the first {number} to "
            "the second, what comes out?",
        },
    )

    def rules_fields(self) -> dict[str, Any]:
        top = self.params["N"]
        lines = []
        for form in self.params["forms"]:
            low, high = param_range(form, top)
            name = "w" if form == "flip" else "p"
            lines.append(f"  {FORMS[form][0].format(**self.vocab)}; {name} from {low} to {high}")
        return {"form_lines": "\n".join(lines), "range_text": f"1 <= i <= j <= {top}"}

    def candidate_states(self) -> tuple[Rule, ...]:
        return _rules(self.level - 1)

    def sample_hidden(self, rng: np.random.Generator) -> Rule:
        forms = [f for f in self.params["forms"] if any(r[0] == f for r in self.candidate_states())]
        form = forms[int(rng.integers(len(forms)))]
        rules = [r for r in self.candidate_states() if r[0] == form]
        return rules[int(rng.integers(len(rules)))]

    def query_args(self, name: str) -> list[tuple]:
        top = self.params["N"]
        return [(i, j) for i in range(1, top + 1) for j in range(i, top + 1)]

    def example_args(self, name: str) -> tuple:
        return (2, 3)

    def respond(self, hidden: Rule, name: str, args: tuple) -> tuple[int, ...]:
        return apply_rule(hidden, args[0], args[1])

    def render_value(self, name: str, args: tuple, value: tuple[int, ...]) -> str:
        return ", ".join(str(x) for x in value) if value else "(nothing)"

    def wrong_answer(self, name: str, args: tuple, hidden: Any = None) -> Hashable:
        """The most frequent other output of this run over the rules; when every rule gives the
        same output (a single {number}), that {number} one higher."""
        truth = self.respond(self.hidden if hidden is None else hidden, name, args)
        if any(self.respond(s, name, args) != truth for s in self.candidate_states()):
            return super().wrong_answer(name, args, hidden)
        return (*truth[:-1], truth[-1] + 1) if truth else (args[0],)

    def parse_answer(self, text: str) -> Rule:
        forms = self.params["forms"]
        m = re.fullmatch(r"\s*([a-z]+)\s*[:=]?\s*(-?\d+)\s*\.?\s*", text.lower())
        if m is None or m.group(1) not in forms:
            raise InvalidAction(
                f"the answer {text[:60]!r} is not a form ({', '.join(forms)}) and a whole number; "
                f"submit as {self.answer_format}."
            )
        form, p = m.group(1), int(m.group(2))
        low, high = param_range(form, self.params["N"])
        if not low <= p <= high:
            raise InvalidAction(f"{form} takes a parameter from {low} to {high}.")
        return (form, p)

    def format_answer(self, target: Rule) -> str:
        return format_rule(target)
