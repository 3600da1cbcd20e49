"""Range Sums (sequence, deductive): find a sparse hidden sequence of values from running totals.

The env hides a {sequence} of ``L`` {values} at {positions} 1..L: at least 1 and at most ``k``
of them are whole numbers from 1 to ``top``, every other one is 0 (``L``, ``k`` and ``top`` are
told; how many are not 0 is not: it is drawn uniformly from 1..k, then their {positions} and
{values} uniformly). One query: ``sum(j)``, the running total of the {values} at {positions}
``1..j`` (a range from the start: the total of ``i..j`` is ``sum(j) - sum(i - 1)``; running
totals rather than every range ``i..j`` keep the questions to ``L``, where every range would be
``L(L+1)/2``, 8256 at level 5, too many for a version-space player to weigh each turn). The agent
submits the whole {sequence}: its non-zero entries as ``position:value`` pairs (``2:1, 4:2``),
or all ``L`` {values} in order. The answer follows deductively from the replies (the totals of
every ``j`` give every {value}), so the game is well-posed.

The hidden state is the list of non-zero entries, ``((position, value), ...)`` in order of
{position}; the target is the whole {sequence} of ``L`` {values}.

What makes it a sequence game rather than a set of {positions} to find: the {values} differ
(``top = 2`` at every level) and are read off the running totals, whose steps are the {values}
in order of {position}; a total does not tell how many non-zero {values} lie before ``j``
(a total of 2 is one 2 or two 1s); the answer is the ordered {sequence}, not a set of marked
{positions}, and there is no membership or count query.

Levels grow ``L``: 4, 64, 80, 88, 128 with ``k = 2`` and ``top = 2`` (32, 8192, 12800, 15488
and 32768 candidate {sequences}; level 1 is small). From level 2 on, the totals ``sum(1), sum(2),
...`` asked in order (a scan with exact books) can stop early only once they have met ``k``
non-zero {values}; with fewer they must reach ``L``, far beyond the budget (about 2.5 times the
oracle's turns, the rule of ``mtp_gym/games/README.md``). A planner asks ``sum(L)`` first and
halves the range where the total steps up.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from itertools import combinations, product

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec, answer_ints
from mtp_gym.games.domains import Story, nouns

Entries = tuple[tuple[int, int], ...]


@cache
def _sparse(length: int, k: int, top: int) -> tuple[Entries, ...]:
    """Every hidden state: 1 to ``k`` ``(position, value)`` pairs, positions in 1..length
    increasing, values in 1..top (the non-zero entries of the sequence)."""
    return tuple(
        tuple(zip(where, values))
        for count in range(1, k + 1)
        for where in combinations(range(1, length + 1), count)
        for values in product(range(1, top + 1), repeat=count)
    )


def _total(entries: Entries, j: int) -> int:
    """The running total up to position ``j`` (a plain loop: the oracle calls it per state)."""
    total = 0
    for i, v in entries:
        if i > j:
            break
        total += v
    return total


@cache
def _totals(length: int, k: int, top: int) -> np.ndarray:
    """``totals[s, j]``: the running total up to position ``j`` (0 to ``length``) of state ``s``
    of :func:`_sparse`; column-major, so a column (a query's answers) is contiguous."""
    states = _sparse(length, k, top)
    totals = np.zeros((len(states), length + 1), dtype=np.min_scalar_type(k * top), order="F")
    for row, entries in enumerate(states):
        for i, v in entries:
            totals[row, i] += v
    np.cumsum(totals, axis=1, out=totals)
    totals.flags.writeable = False  # cached: shared by every game of this size
    return totals


_PAIR = re.compile(r"^\s*(\d+)\s*[:=]\s*(\d+)\s*$")


class RangeSums(Game):
    """Range Sums (sequence, deductive): find a sparse hidden sequence from running totals.

    Hidden: a sequence of ``L`` values, 1 to ``k`` of them from ``1..top`` and the rest 0. Query:
    ``sum(j)`` (the total of the values at positions ``1..j``). Answer: the sequence, as its
    non-zero ``position:value`` pairs. Levels: ``L`` = 4, 64, 80, 88, 128 with ``k`` = ``top`` = 2:
    32 to 32768 sequences.
    """

    name = "RangeSums"
    structure = "sequence"
    inference = "deductive"
    levels = tuple(
        {"length": n, "k": k, "top": top} for n, k, top in ((4, 2, 2), (64, 2, 2), (80, 2, 2), (88, 2, 2), (128, 2, 2))
    )
    budgets = (11, 27, 28, 29, 30)
    queries = (QuerySpec("sum", (int,), "what is the total of the {values} at {positions} 1 to this one (inclusive)?"),)
    vocabulary = {
        "sequence": "sequence",
        "position": "position",
        "positions": "positions",
        "value": "value",
        "values": "values",
    }
    rules_template = (
        "I have chosen a hidden {sequence} of {length} {values}, at {positions} 1 to {length}. Between 1 "
        "and {k} of them (how many is not told) are whole numbers from 1 to {top}; every other {value} is 0. "
        "Your goal is to find every {value} of the {sequence}. You may ask one question per turn using the "
        "following format:\n{query_formats}\nWhen you know the answer, submit each non-zero {value} as "
        "{position}:{value}, in order of {position} and separated by commas (every {position} not listed "
        "is zero):\n{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "sequence position positions value values",
        education={
            "sequence": "weekly quiz record",
            "position": "week",
            "positions": "weeks",
            "value": "quiz score",
            "values": "quiz scores",
        },
        healthcare={
            "sequence": "dosing schedule",
            "position": "day",
            "positions": "days",
            "value": "dose",
            "values": "doses",
        },
        transportation={
            "sequence": "ridership log",
            "position": "stop",
            "positions": "stops",
            "value": "boarding count",
            "values": "boarding counts",
        },
        manufacturing={
            "sequence": "production log",
            "position": "shift",
            "positions": "shifts",
            "value": "defect count",
            "values": "defect counts",
        },
        law={
            "sequence": "docket",
            "position": "day",
            "positions": "days",
            "value": "filing count",
            "values": "filing counts",
        },
    )
    story = Story(
        setting="A {sequence} with {length} {values} has been filled in out of your sight, one for each of "
        "the {positions} 1 to {length}. Somewhere between 1 and {k} of these {values} (you are not told how "
        "many) are whole numbers from 1 to {top}; each of the rest is 0. Recover every {value} in the {sequence}.",
        answer="only the non-zero {values}, each one written as {position}:{value}, going from the first "
        "{position} to the last with commas between them (any {position} you leave out counts as zero)",
        queries={
            "sum": "adding up the {values} from {position} 1 through this one, what do you get?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return f"<answer>{self.format_answer(self.target(self._example()))}</answer>"

    def _example(self) -> Entries:
        """A valid instance for the rules' example: the non-zero values at every other position."""
        k, top = self.params["k"], self.params["top"]
        return tuple((2 * j + 2, 1 + j % top) for j in range(k))

    def candidate_states(self) -> tuple[Entries, ...]:
        return _sparse(self.params["length"], self.params["k"], self.params["top"])

    def sample_hidden(self, rng: np.random.Generator) -> Entries:
        n, k, top = self.params["length"], self.params["k"], self.params["top"]
        count = int(rng.integers(1, k + 1))
        where = sorted(int(i) + 1 for i in rng.choice(n, size=count, replace=False))
        return tuple(zip(where, (int(v) for v in rng.integers(1, top + 1, size=count))))

    def target(self, hidden: Entries) -> tuple[int, ...]:
        seq = [0] * self.params["length"]
        for i, v in hidden:
            seq[i - 1] = v
        return tuple(seq)

    def query_args(self, name: str) -> list[tuple]:
        return [(j,) for j in range(1, self.params["length"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (3,)

    def answer_columns(self, name: str, args: tuple) -> np.ndarray | None:
        length = self.params["length"]
        if not (type(args[0]) is int and 0 <= args[0] <= length):
            return None
        return _totals(length, self.params["k"], self.params["top"])[:, args[0]]

    def respond(self, hidden: Entries, name: str, args: tuple) -> Hashable:
        return _total(hidden, args[0])

    def parse_answer(self, text: str) -> tuple[int, ...]:
        n, k, top = self.params["length"], self.params["k"], self.params["top"]
        usage = (
            f"submit each non-zero {self.vocab['value']} as {self.vocab['position']}:{self.vocab['value']} "
            f"({self.vocab['positions']} 1 to {n}, {self.vocab['values']} 1 to {top}), as {self.answer_format}"
        )
        if ":" in text or "=" in text:
            seq = [0] * n
            for item in filter(str.strip, re.split(r"[,;\n]", text.strip(" .{}[]()"))):
                match = _PAIR.match(item)
                if not match:
                    raise InvalidAction(f"{item.strip()[:30]!r} is not a {self.vocab['position']}:value pair; {usage}.")
                i, v = int(match[1]), int(match[2])
                if not (1 <= i <= n and 0 <= v <= top) or (seq[i - 1] and v):
                    raise InvalidAction(f"{item.strip()[:30]!r} does not fit; {usage}.")
                seq[i - 1] = v
            values = tuple(seq)
        else:
            values = tuple(answer_ints(text, self.answer_format))
            if len(values) != n or not all(0 <= v <= top for v in values):
                raise InvalidAction(f"{usage}, or all {n} {self.vocab['values']} in order.")
        nonzero = sum(v != 0 for v in values)
        if not 1 <= nonzero <= k:
            raise InvalidAction(
                f"the {self.vocab['sequence']} has between 1 and {k} non-zero {self.vocab['values']}; "
                f"this answer has {nonzero}."
            )
        return values

    def format_answer(self, target: tuple[int, ...]) -> str:
        return ", ".join(f"{i}:{v}" for i, v in enumerate(target, 1) if v)
