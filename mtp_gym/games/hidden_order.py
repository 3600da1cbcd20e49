"""Hidden Order (sequence, deductive): find a hidden ordering of n {items} from order facts.

The env places the ``n`` {items} ``A, B, C, ...`` in a hidden order (a permutation, position 1
first). Queries: ``before(x, y)`` (is ``x`` placed before ``y``?) and ``adjacent(x, y)`` (are
``x`` and ``y`` next to each other?). The agent submits the whole order. The answer follows
deductively from the replies: the ``before`` answers of all pairs fix the order, so the game is
well-posed; a good player sorts by comparisons (about ``log2(n!)`` questions).
Levels grow ``n``: 3, 4, 5, 6, 7 {items}, i.e. 6 to 5040 hidden orders.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache
from itertools import permutations
from typing import Any

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec

LETTERS = "ABCDEFGHIJ"


@cache
def _orders(n: int) -> tuple[tuple[str, ...], ...]:
    return tuple(permutations(LETTERS[:n]))


def parse_letters(text: str, allowed: str) -> tuple[str, ...]:
    """The letters of ``text`` (comma/space separated or run together), upper-cased."""
    cleaned = re.sub(r"[\s,;>\-\[\]().{}'\"]+", "", text.upper())
    if not cleaned or any(c not in allowed for c in cleaned):
        raise InvalidAction(f"the answer {text[:60]!r} must list letters from {', '.join(allowed)}.")
    return tuple(cleaned)


class HiddenOrder(Game):
    name = "HiddenOrder"
    structure = "sequence"
    inference = "deductive"
    levels = tuple({"n": n} for n in (3, 4, 5, 6, 7))
    budgets = (8, 12, 16, 21, 27)
    queries = (
        QuerySpec("before", (str, str), "is the first {item} placed before the second one in the {order}?"),
        QuerySpec("adjacent", (str, str), "are these two {items} next to each other in the {order}?"),
    )
    vocabulary = {"item": "item", "items": "items", "order": "sequence"}
    rules_template = (
        "I have arranged the {n} {items} {letters} in a hidden {order} (each {item} exactly once). "
        "Your goal is to find the whole {order}, first {item} first. You may ask one question per "
        "turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {items} in {order} separated by commas:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(LETTERS[: self.params["n"]]) + "</answer>"

    def rules_fields(self) -> dict[str, Any]:
        return {"letters": ", ".join(LETTERS[: self.params["n"]])}

    def candidate_states(self) -> tuple[tuple[str, ...], ...]:
        return _orders(self.params["n"])

    def query_args(self, name: str) -> list[tuple]:
        items = LETTERS[: self.params["n"]]
        return [(x, y) for x in items for y in items if x != y]

    def example_args(self, name: str) -> tuple:
        return ("A", "C")

    def parse_query(self, name: str, content: str) -> tuple:
        return super().parse_query(name, content.upper())

    def respond(self, hidden: tuple[str, ...], name: str, args: tuple) -> Hashable:
        i, j = hidden.index(args[0]), hidden.index(args[1])
        return i < j if name == "before" else abs(i - j) == 1

    def parse_answer(self, text: str) -> tuple[str, ...]:
        items = LETTERS[: self.params["n"]]
        order = parse_letters(text, items)
        if sorted(order) != list(items):
            raise InvalidAction(
                f"submit each of the {self.params['n']} {self.vocab['items']} exactly once, as {self.answer_format}."
            )
        return order

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(target)
