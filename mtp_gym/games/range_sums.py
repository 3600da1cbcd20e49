"""Range Sums (sequence, deductive): find a hidden sequence of small numbers from range sums.

The env hides a {sequence} of ``L`` {values}, each an integer from 0 to ``m - 1``, at
{positions} 1..L. Queries: ``sum(i, j)`` (the total of the {values} at {positions} ``i..j``,
``i <= j``) and ``greater(i, j)`` (is the {value} at ``i`` greater than the one at ``j``?).
The agent submits the whole {sequence}. The answer follows deductively from the replies
(``sum(i, i)`` reads one {value}; differences of overlapping sums isolate the others), so the
game is well-posed. Levels grow ``(L, m)``: (3, 3), (4, 3), (4, 4), (5, 4), (6, 4), i.e. 27 to
4096 hidden {sequences}.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import product

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec, answer_ints


@cache
def _sequences(length: int, m: int) -> tuple[tuple[int, ...], ...]:
    return tuple(product(range(m), repeat=length))


class RangeSums(Game):
    name = "RangeSums"
    structure = "sequence"
    inference = "deductive"
    levels = tuple({"length": n, "m": m, "top": m - 1} for n, m in ((3, 3), (4, 3), (4, 4), (5, 4), (6, 4)))
    budgets = (8, 9, 10, 11, 13)
    queries = (
        QuerySpec("sum", (int, int), "what is the total of the {values} at {positions} i to j (inclusive)?"),
        QuerySpec(
            "greater", (int, int), "is the {value} at the first {position} greater than the {value} at the second?"
        ),
    )
    vocabulary = {
        "sequence": "sequence",
        "position": "position",
        "positions": "positions",
        "value": "value",
        "values": "values",
    }
    rules_template = (
        "I have chosen a hidden {sequence} of {length} {values}, at {positions} 1 to {length}; each "
        "{value} is a whole number from 0 to {top}. Your goal is to find every {value} of the "
        "{sequence}. You may ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {values} in order of {position}, separated by commas:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(i % self.params["m"]) for i in range(self.params["length"])) + "</answer>"

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return _sequences(self.params["length"], self.params["m"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["length"]
        if name == "sum":
            return [(i, j) for i in range(1, n + 1) for j in range(i, n + 1)]
        return [(i, j) for i in range(1, n + 1) for j in range(1, n + 1) if i != j]

    def example_args(self, name: str) -> tuple:
        return (1, 3) if name == "sum" else (2, 1)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        i, j = args
        if name == "sum":
            return sum(hidden[i - 1 : j])
        return hidden[i - 1] > hidden[j - 1]

    def parse_answer(self, text: str) -> tuple[int, ...]:
        values = tuple(answer_ints(text, self.answer_format))
        n, m = self.params["length"], self.params["m"]
        if len(values) != n or not all(0 <= v < m for v in values):
            raise InvalidAction(
                f"submit exactly {n} {self.vocab['values']} from 0 to {m - 1}, as {self.answer_format}."
            )
        return values

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(v) for v in target)
