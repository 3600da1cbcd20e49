"""Sequence Transform (sequence, inductive): infer a hidden rule that rewrites sequences.

The env hides a {transformation} that turns every input {sequence} of ``L`` {symbols} (digits
``0..k-1``) into an output {sequence}. The agent feeds inputs of its choice (``apply(s)``, e.g.
``apply(012)``) and must generalize from these input/output examples to the
{transformation} itself. A {transformation} first relabels every {symbol} with a hidden
relabelling (written as the new labels of ``0, 1, ..., k-1``, e.g. ``map 201`` turns 0 into
2, 1 into 0, 2 into 1), then reorders the {sequence} with one operation:

================  ================================================================
``keep``          the order is unchanged
``reverse``       the order is reversed
``rotate r``      the first ``r`` {symbols} move to the end (``1 <= r < L``)
``swap``          neighbours swap in pairs: 1st with 2nd, 3rd with 4th, ...
``sort``          the {symbols} are sorted, smallest first
``sortdesc``      the {symbols} are sorted, largest first
================  ================================================================

At levels 1-2 the relabelling is one-to-one (a permutation of the digits); from level 3 on it
may give several digits the same label (any of the ``k ** k`` maps, e.g. ``map 1102``).

Rules that act the same on every input are one hidden state (the first operation in the table
order, then the first relabelling in lexicographic order); any submitted rule that acts like
the hidden one is right. Applying the rule to every input determines it, so the game is
well-posed. Levels keep ``L = 3`` and grow the digits ``k`` past it, (L, k, merging) = (3, 2,
no), (3, 3, no), (3, 3, yes), (3, 4, yes), (3, 5, yes): 14, 42, 171, 1768 and 21845 distinct
rules over 8, 27, 27, 64 and 125 inputs. One example shows the new labels of at most 3
digits, so once ``k`` exceeds 3, or labels can merge (which also hides where a {symbol}
went), the rule needs more examples: the oracle's mean turns over configurations 0-399 of
each level are 3.00, 3.00, 3.25, 3.46, 3.79 (``sort`` rules, which show only the multiset of
labels, take the most).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from itertools import permutations, product
from typing import Any

import numpy as np

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
    """Every input sequence of a level, in lexicographic order (input ``i`` is ``i`` in base ``k``)."""
    return tuple("".join(p) for p in product("0123456789"[:k], repeat=length))


@cache
def _input_index(length: int, k: int) -> dict[str, int]:
    return {s: i for i, s in enumerate(inputs(length, k))}


def _orders(length: int) -> list[tuple[str, int]]:
    return [
        ("keep", 0),
        ("reverse", 0),
        *(("rotate", r) for r in range(1, length)),
        ("swap", 0),
        ("sort", 0),
        ("sortdesc", 0),
    ]


def _relabels(k: int, merge: bool) -> list[tuple[int, ...]]:
    """Every relabelling in lexicographic order: one-to-one, or (``merge``) any map of the digits."""
    return list(product(range(k), repeat=k)) if merge else list(permutations(range(k)))


def _codes(op: str, r: int, relabels: np.ndarray, length: int, k: int) -> np.ndarray:
    """Output codes (an output is input number ``code``) of every relabelling in ``relabels``
    followed by ``(op, r)``, on every input: shape (relabellings, inputs)."""
    xs = np.array([[int(c) for c in s] for s in inputs(length, k)], dtype=np.int64).reshape(-1, length)
    out = relabels[:, xs]  # (relabellings, inputs, positions)
    if op == "reverse":
        out = out[..., ::-1]
    elif op == "rotate":
        out = np.roll(out, -r, axis=-1)
    elif op == "swap":
        order = list(range(length))
        for i in range(0, length - 1, 2):
            order[i], order[i + 1] = order[i + 1], order[i]
        out = out[..., order]
    elif op == "sort":
        out = np.sort(out, axis=-1)
    elif op == "sortdesc":
        out = np.sort(out, axis=-1)[..., ::-1]
    elif op != "keep":
        raise ValueError(f"unknown order operation {op!r}")
    return out @ (k ** np.arange(length - 1, -1, -1))


@cache
def _rules(length: int, k: int, merge: bool) -> tuple[tuple[Rule, ...], dict[bytes, Rule], dict[Rule, tuple[str, ...]]]:
    """The distinct rules of a level (the first operation in table order, then the first
    relabelling, of each behaviour), the map (output codes on every input, as bytes) ->
    canonical rule, and each distinct rule's outputs by input index (what ``respond`` looks up)."""
    relabels = _relabels(k, merge)
    table = np.array(relabels, dtype=np.int64).reshape(len(relabels), k)
    xs = inputs(length, k)
    canonical: dict[bytes, Rule] = {}
    outputs: dict[Rule, tuple[str, ...]] = {}
    for op, r in _orders(length):
        codes = _codes(op, r, table, length, k)
        for relabel, row in zip(relabels, codes):
            key = row.astype(np.int32).tobytes()
            if key not in canonical:
                rule = (op, r, relabel)
                canonical[key] = rule
                outputs[rule] = tuple(xs[c] for c in row)
    return tuple(outputs), canonical, outputs


def _signature(rule: Rule, length: int, k: int) -> bytes:
    """The key of ``rule`` in ``_rules(...)[1]``: its output codes on every input."""
    index = _input_index(length, k)
    return np.array([index[apply_rule(rule, s)] for s in inputs(length, k)], dtype=np.int32).tobytes()


def format_rule(rule: Rule) -> str:
    op, r, relabel = rule
    labels = "".join(str(x) for x in relabel)
    return f"{op} {r}, map {labels}" if op == "rotate" else f"{op}, map {labels}"


class SequenceTransform(Game):
    name = "SequenceTransform"
    structure = "sequence"
    inference = "inductive"
    #: ``merge``: the relabelling may give several digits the same label (``k ** k`` maps, not ``k!``).
    levels = tuple(
        {"L": n, "k": k, "top": k - 1, "merge": merge}
        for n, k, merge in ((3, 2, False), (3, 3, False), (3, 3, True), (3, 4, True), (3, 5, True))
    )
    budgets = (6, 6, 7, 7, 8)
    queries = (QuerySpec("apply", (str,), "what does the hidden {transformation} turn this input {sequence} into?"),)
    vocabulary = {"transformation": "transformation", "sequence": "sequence", "symbol": "symbol", "symbols": "symbols"}
    rules_template = (
        "I have chosen a hidden {transformation} that turns every {sequence} of {L} {symbols} (each "
        "a digit from 0 to {top}) into another {sequence} of {L} {symbols}. It first relabels every "
        "{symbol} with a hidden {relabelling}, written as the new labels of {digits} in "
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
            "relabelling": (
                f"relabelling that may give several {self.vocab['symbols']} the same new label"
                if self.params["merge"]
                else "one-to-one relabelling"
            ),
        }

    def candidate_states(self) -> tuple[Rule, ...]:
        return _rules(self.params["L"], self.params["k"], self.params["merge"])[0]

    def query_args(self, name: str) -> list[tuple]:
        return [(s,) for s in inputs(self.params["L"], self.params["k"])]

    def example_args(self, name: str) -> tuple:
        return ("".join(str(i % self.params["k"]) for i in range(self.params["L"])),)

    def parse_query(self, name: str, content: str) -> tuple:
        return super().parse_query(name, re.sub(r"[\s,]+", "", content))  # "0 1 2" = "012"

    def respond(self, hidden: Rule, name: str, args: tuple) -> Hashable:
        n, k = self.params["L"], self.params["k"]
        outputs = _rules(n, k, self.params["merge"])[2].get(hidden)
        index = _input_index(n, k).get(args[0])
        return outputs[index] if outputs is not None and index is not None else apply_rule(hidden, args[0])

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
        if self.params["merge"]:
            if len(relabel) != k or max(relabel) >= str(k):
                raise InvalidAction(
                    f"the relabelling must give one new label from 0 to {k - 1} to each of the {k} digits "
                    f"0 to {k - 1}, in that order, e.g. map {self._example_map()}."
                )
        elif sorted(relabel) != list("0123456789"[:k]):
            raise InvalidAction(
                f"the relabelling must list each digit 0 to {k - 1} exactly once, e.g. map {self._example_map()}."
            )
        rule = (op, r, tuple(int(c) for c in relabel))
        return _rules(n, k, self.params["merge"])[1][_signature(rule, n, k)]

    def format_answer(self, target: Hashable) -> str:
        return format_rule(target)
