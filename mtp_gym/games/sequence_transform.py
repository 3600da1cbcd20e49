"""Sequence Transform (sequence, inductive): infer a hidden rule that rewrites sequences.

The env hides a {transformation} that turns every input {sequence} of ``L`` {symbols} (digits
``0..k-1``) into an output {sequence}. The agent feeds inputs of its choice (``apply(s)``, e.g.
``apply(0121)``) and must generalize from these input/output examples to the
{transformation} itself. A {transformation} first relabels every {symbol} with a hidden
relabelling (a permutation of the digits, written as the new labels of ``0, 1, ..., k-1``,
e.g. ``map 201`` turns 0 into 2, 1 into 0, 2 into 1), then reorders the {sequence} with one
operation:

================  ================================================================
``keep``          the order is unchanged
``reverse``       the order is reversed
``rotate r``      the first ``r`` {symbols} move to the end (``1 <= r < L``)
``swap``          neighbours swap in pairs: 1st with 2nd, 3rd with 4th, ...
``sort``          the {symbols} are sorted, smallest first
``sortdesc``      the {symbols} are sorted, largest first
================  ================================================================

Rules that act the same on every input are one hidden state (the first operation in the table
order, then the first relabelling in lexicographic order); any submitted rule that acts like
the hidden one is right. Applying the rule to every input determines it, so the game is
well-posed; a good player picks a few inputs with distinct {symbols}. Levels grow ``(L, k)``:
(3, 2), (3, 3), (4, 3), (5, 3), (4, 4), i.e. 14, 42, 48, 54 and 192 distinct rules over
8, 27, 81, 243 and 256 inputs.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from itertools import permutations, product
from typing import Any

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec

#: Order operation -> help line.
ORDERS: dict[str, str] = {
    "keep": "keep: the order is unchanged",
    "reverse": "reverse: the order is reversed",
    "rotate": "rotate r: the first r {symbols} move to the end, in order (1 <= r < {L})",
    "swap": "swap: neighbours swap in pairs (1st with 2nd, 3rd with 4th, ...)",
    "sort": "sort: the {symbols} are sorted, smallest first",
    "sortdesc": "sortdesc: the {symbols} are sorted, largest first",
}

Rule = tuple  # (order op, r or 0, relabelling: the new labels of 0..k-1 as a tuple of ints)


def apply_rule(rule: Rule, seq: str) -> str:
    """The output of ``rule`` on the input digit string ``seq``."""
    op, r, relabel = rule
    s = [str(relabel[int(c)]) for c in seq]
    if op == "reverse":
        s.reverse()
    elif op == "rotate":
        s = s[r:] + s[:r]
    elif op == "swap":
        for i in range(0, len(s) - 1, 2):
            s[i], s[i + 1] = s[i + 1], s[i]
    elif op == "sort":
        s.sort()
    elif op == "sortdesc":
        s.sort(reverse=True)
    elif op != "keep":
        raise ValueError(f"unknown order operation {op!r}")
    return "".join(s)


@cache
def inputs(length: int, k: int) -> tuple[str, ...]:
    """Every input sequence of a level, in lexicographic order."""
    return tuple("".join(p) for p in product("0123456789"[:k], repeat=length))


@cache
def _rules(length: int, k: int) -> tuple[tuple[Rule, ...], dict[tuple[str, ...], Rule], dict[Rule, dict[str, str]]]:
    """The distinct rules of a level, the map (outputs on every input) -> canonical rule, and
    each distinct rule's output per input (what ``respond`` looks up)."""
    ops: list[tuple[str, int]] = [("keep", 0), ("reverse", 0)]
    ops += [("rotate", r) for r in range(1, length)] + [("swap", 0), ("sort", 0), ("sortdesc", 0)]
    relabels = list(permutations(range(k)))
    xs = inputs(length, k)
    canonical: dict[tuple[str, ...], Rule] = {}
    outputs: dict[Rule, dict[str, str]] = {}
    for op, r in ops:
        for relabel in relabels:
            rule = (op, r, relabel)
            signature = tuple(apply_rule(rule, s) for s in xs)
            if signature not in canonical:
                canonical[signature] = rule
                outputs[rule] = dict(zip(xs, signature))
    return tuple(outputs), canonical, outputs


def format_rule(rule: Rule) -> str:
    op, r, relabel = rule
    labels = "".join(str(x) for x in relabel)
    return f"{op} {r}, map {labels}" if op == "rotate" else f"{op}, map {labels}"


class SequenceTransform(Game):
    name = "SequenceTransform"
    structure = "sequence"
    inference = "inductive"
    levels = tuple({"L": n, "k": k, "top": k - 1} for n, k in ((3, 2), (3, 3), (4, 3), (5, 3), (4, 4)))
    budgets = (6, 6, 6, 6, 6)
    queries = (QuerySpec("apply", (str,), "what does the hidden {transformation} turn this input {sequence} into?"),)
    vocabulary = {"transformation": "transformation", "sequence": "sequence", "symbol": "symbol", "symbols": "symbols"}
    rules_template = (
        "I have chosen a hidden {transformation} that turns every {sequence} of {L} {symbols} (each "
        "a digit from 0 to {top}) into another {sequence} of {L} {symbols}. It first relabels every "
        "{symbol} with a hidden one-to-one relabelling, written as the new labels of {digits} in "
        "that order (for example map {example_map} turns 0 into {example_first}), then reorders the "
        "{sequence} with one of these operations:\n{order_lines}\n"
        "Your goal is to find the {transformation} from examples. Any {transformation} that turns "
        "every input into the same output counts as the same one. You may try one input {sequence} "
        "per turn using the following format:\n{query_formats}\n"
        "When you know the {transformation}, submit its operation and relabelling, for example:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return f"<answer>rotate 1, map {self._example_map()}</answer>"

    def _example_map(self) -> str:
        digits = "0123456789"[: self.params["k"]]
        return digits[1:] + digits[0]

    def rules_fields(self) -> dict[str, Any]:
        lines = [f"  {ORDERS[op]}".format(L=self.params["L"], **self.vocab) for op in ORDERS]
        example = self._example_map()
        return {
            "order_lines": "\n".join(lines),
            "digits": ", ".join("0123456789"[: self.params["k"]]),
            "example_map": example,
            "example_first": example[0],
        }

    def candidate_states(self) -> tuple[Rule, ...]:
        return _rules(self.params["L"], self.params["k"])[0]

    def query_args(self, name: str) -> list[tuple]:
        return [(s,) for s in inputs(self.params["L"], self.params["k"])]

    def example_args(self, name: str) -> tuple:
        return ("".join(str(i % self.params["k"]) for i in range(self.params["L"])),)

    def parse_query(self, name: str, content: str) -> tuple:
        return super().parse_query(name, re.sub(r"[\s,]+", "", content))  # "0 1 2" = "012"

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        outputs = _rules(self.params["L"], self.params["k"])[2].get(hidden)
        return outputs[args[0]] if outputs is not None else apply_rule(hidden, args[0])

    def parse_answer(self, text: str) -> Rule:
        n, k = self.params["L"], self.params["k"]
        m = re.fullmatch(
            r"\s*(keep|reverse|rotate|swap|sortdesc|sort)\s*(\d+)?\s*[,;]?\s*map\s*[:=]?\s*(\d+)\s*\.?\s*",
            text.lower(),
        )
        if m is None:
            raise InvalidAction(
                f"the answer {text[:60]!r} is not an operation and a relabelling; submit as {self.answer_format}."
            )
        op, r_text, relabel = m.groups()
        if (op == "rotate") != (r_text is not None):
            raise InvalidAction("only rotate takes a number r, as in 'rotate 2, map ...'.")
        r = int(r_text) if r_text else 0
        if op == "rotate" and not 1 <= r < n:
            raise InvalidAction(f"rotate takes r from 1 to {n - 1}.")
        if sorted(relabel) != list("0123456789"[:k]):
            raise InvalidAction(
                f"the relabelling must list each digit 0 to {k - 1} exactly once, e.g. map {self._example_map()}."
            )
        rule = (op, r, tuple(int(c) for c in relabel))
        signature = tuple(apply_rule(rule, s) for s in inputs(n, k))
        return _rules(n, k)[1][signature]

    def format_answer(self, target: Hashable) -> str:
        return format_rule(target)
