"""Range Sums (sequence, deductive): find a sparse hidden sequence from range sums.

The env hides a {sequence} of ``L`` {values} at {positions} 1..L: exactly ``k`` of them are
whole numbers from 1 to ``m - 1`` (all equal to 1 when ``m = 2``), every other one is 0 (both
told). One query: ``sum(i, j)``, the total of the {values} at {positions} ``i..j``
(``i <= j``). The agent submits the whole {sequence}. The answer follows deductively from the
replies (``sum(i, i)`` reads one {value}), so the game is well-posed. Levels grow
``(L, k, m)``: (4, 2, 3), (24, 2, 3), (32, 2, 3), (32, 3, 2), (30, 4, 2), i.e. 24, 1104, 1984,
4960 and 27405 hidden {sequences}. Locating the non-zero {values} is the hard part (a range
holding one of them tells its {value} at once), so the upper levels hide more of them (3, then
4) and trade the {value} range for it (all of them 1, sums then count them), which keeps the
space small enough to enumerate: the oracle's mean turns over many random {sequences} rise at
each level (3.6, 6.9, 7.6, 10.0, 11.2). From level 2 on there are more {positions} than turns:
reading one {position} per query cannot finish, sums over ranges must locate the non-zero
{values} (a search, not a scan).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import combinations, product

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec, answer_ints


@cache
def _sequences(length: int, k: int, m: int) -> tuple[tuple[int, ...], ...]:
    """Every sequence of ``length`` values with exactly ``k`` of them in 1..m-1, the rest 0."""
    out = []
    for where in combinations(range(length), k):
        for values in product(range(1, m), repeat=k):
            seq = [0] * length
            for i, v in zip(where, values):
                seq[i] = v
            out.append(tuple(seq))
    return tuple(out)


class RangeSums(Game):
    name = "RangeSums"
    structure = "sequence"
    inference = "deductive"
    levels = tuple(
        {"length": n, "k": k, "m": m, "top": m - 1}
        for n, k, m in ((4, 2, 3), (24, 2, 3), (32, 2, 3), (32, 3, 2), (30, 4, 2))
    )
    budgets = (8, 14, 16, 21, 23)
    queries = (QuerySpec("sum", (int, int), "what is the total of the {values} at {positions} i to j (inclusive)?"),)
    vocabulary = {
        "sequence": "sequence",
        "position": "position",
        "positions": "positions",
        "value": "value",
        "values": "values",
    }
    rules_template = (
        "I have chosen a hidden {sequence} of {length} {values}, at {positions} 1 to {length}: exactly "
        "{k} of them are {nonzero}, every other one is 0. Your goal is to find every {value} of the "
        "{sequence}. You may ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {values} in order of {position}, separated by commas:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(v) for v in self._example()) + "</answer>"

    def rules_fields(self) -> dict[str, str]:
        top = self.params["top"]
        return {"nonzero": f"whole numbers from 1 to {top}" if top > 1 else "equal to 1"}

    def _example(self) -> list[int]:
        """A valid instance for the rules' example: the non-zero values at every other position."""
        n, k, top = self.params["length"], self.params["k"], self.params["top"]
        seq = [0] * n
        for j in range(k):
            seq[2 * j + 1] = 1 + j % top
        return seq

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return _sequences(self.params["length"], self.params["k"], self.params["m"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["length"]
        return [(i, j) for i in range(1, n + 1) for j in range(i, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (1, 3)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        i, j = args
        return sum(hidden[i - 1 : j])

    def parse_answer(self, text: str) -> tuple[int, ...]:
        values = tuple(answer_ints(text, self.answer_format))
        n, k, m = self.params["length"], self.params["k"], self.params["m"]
        if len(values) != n or not all(0 <= v < m for v in values):
            raise InvalidAction(
                f"submit exactly {n} {self.vocab['values']} from 0 to {m - 1}, as {self.answer_format}."
            )
        if sum(v != 0 for v in values) != k:
            raise InvalidAction(
                f"the {self.vocab['sequence']} has exactly {k} non-zero {self.vocab['values']}; "
                f"this answer has {sum(v != 0 for v in values)}."
            )
        return values

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(v) for v in target)
