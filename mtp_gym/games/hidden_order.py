"""Hidden Order (sequence, deductive): find where two loose {items} stand in a hidden order.

A row holds ``n`` numbered {items} ``1, 2, ..., n`` in increasing order (told) and two loose
{items} ``X`` and ``Y`` merged into it at hidden places (anywhere, in either order): the hidden
state is the merged order of the ``n + 2`` {items}. Queries compare a loose {item} with any
other: ``before(a, b)`` (is ``a`` placed before ``b``?) and ``adjacent(a, b)`` (are they next to
each other?), where ``a`` or ``b`` is ``X`` or ``Y`` (the order of the numbered {items} is
known). The agent submits the place of ``X`` and of ``Y`` in the row (1 first), which fixes the
whole order: the game is well-posed (the ``before`` answers of ``X`` and ``Y`` with every
{item} fix their places).

This is the unbalanced merge of a long sorted list with a short one: binary insertion places
a loose {item} in about ``log2(n)`` comparisons, while a read-off of the pairs in order (a
linear merge) compares each loose {item} with the numbered ones one by one until it passes it.
Sorting a whole permutation by comparisons does not separate the two (a fixed-order read-off
with exact books is quicksort, within about 15% of ``log2(m!)`` comparisons), so the levels
keep the permutation simple and the row long. Level 1 is small (2 numbered {items}: 12 orders);
levels 2-5 have 56, 64, 72 and 80 numbered {items}: 3306, 4290, 5402 and 6642 orders.
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

#: Item names of games that need letters (Swap History's row).
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LOOSE = ("X", "Y")

Places = tuple[int, int]  # (place of X, place of Y), 1-based in the merged row of n + 2 items


@cache
def _placements(n: int) -> tuple[Places, ...]:
    """Every (place of X, place of Y) in a row of ``n + 2`` items."""
    size = n + 2
    return tuple((x, y) for x in range(1, size + 1) for y in range(1, size + 1) if x != y)


def merged(n: int, places: Places) -> tuple[str, ...]:
    """The row of ``n`` numbered items with X and Y at ``places``."""
    numbers = iter(str(i) for i in range(1, n + 1))
    where = {places[0]: "X", places[1]: "Y"}
    return tuple(where[p] if p in where else next(numbers) for p in range(1, n + 3))


@cache
def _placement_columns(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The places of X, of Y, and the lower and higher of the two, in :func:`_placements` order."""
    xs, ys = np.array(_placements(n), dtype=np.int64).T
    columns = xs, ys, np.minimum(xs, ys), np.maximum(xs, ys)
    for column in columns:
        column.flags.writeable = False  # cached: shared by every game of this size
    return columns


def places_of(n: int, item: str) -> np.ndarray:
    """:func:`place_of` ``item`` in every placement of :func:`_placements`, in that order."""
    xs, ys, low, high = _placement_columns(n)
    if item == "X":
        return xs
    if item == "Y":
        return ys
    place = int(item) + (low <= int(item))
    return place + (high <= place)


def place_of(n: int, places: Places, item: str) -> int:
    """The 1-based place of ``item`` (a number as text, ``X`` or ``Y``) in the merged row."""
    if item == "X":
        return places[0]
    if item == "Y":
        return places[1]
    place = int(item)
    for p in sorted(places):  # each loose item at or before it pushes it one place on
        if p <= place:
            place += 1
    return place


def parse_letters(text: str, allowed: str) -> tuple[str, ...]:
    """The letters of ``text`` (comma/space separated or run together), upper-cased."""
    cleaned = re.sub(r"[\s,;>\-\[\]().{}'\"]+", "", text.upper())
    if not cleaned or any(c not in allowed for c in cleaned):
        raise InvalidAction(f"the answer {text[:60]!r} must list letters from {', '.join(allowed)}.")
    return tuple(cleaned)


class HiddenOrder(Game):
    """Hidden Order (sequence, deductive): find where two loose items stand in a hidden order.

    Hidden: the places of the loose items X and Y merged into the row ``1, 2, ..., n`` (anywhere,
    either first). Queries: ``before(a, b)`` and ``adjacent(a, b)`` (Yes/No), where ``a`` or ``b``
    is X or Y. Answer: the place of X and the place of Y. Levels: ``n`` = 2, 56, 64, 72, 80: 12 to
    6642 orders.
    """

    name = "HiddenOrder"
    structure = "sequence"
    inference = "deductive"
    levels = tuple({"n": n} for n in (2, 56, 64, 72, 80))
    budgets = (11, 30, 31, 31, 32)
    queries = (
        QuerySpec("before", (str, str), "is the first {item} placed before the second one in the {order}?"),
        QuerySpec("adjacent", (str, str), "are these two {items} next to each other in the {order}?"),
    )
    vocabulary = {"item": "item", "items": "items", "order": "sequence"}
    rules_template = (
        "I have arranged {size} {items} in a hidden {order}: the numbered {items} 1 to {n}, which keep "
        "their numerical order, and two loose {items} X and Y, which may stand anywhere (X before or "
        "after Y). Your goal is to find the whole {order}, that is, the place of X and of Y "
        "({places_text}). You may ask one question per turn about X or Y and any other {item} "
        "using the following format:\n{query_formats}\n"
        "When you know the answer, submit the places of X and Y:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "item items order",
        education={"order": "presentation order"},
        healthcare={"order": "treatment queue"},
        transportation={"item": "train", "items": "trains", "order": "departure order"},
        manufacturing={"item": "job", "items": "jobs", "order": "production schedule"},
        law={"item": "case", "items": "cases", "order": "hearing schedule"},
    )
    story = Story(
        setting="Out of sight, {size} {items} were lined up in a {order}: the {items} numbered 1 to {n}, "
        "which keep to their numerical order among themselves, and two loose {items}, X and Y, which could "
        "have been slotted in anywhere, either one first. Recover the full {order} by finding where X and "
        "where Y ended up ({places_text}). Every question compares X or Y with some other {item}.",
        answer="the place of X and the place of Y",
        queries={
            "before": "does the first {item} come ahead of the second one in the {order}?",
            "adjacent": "do these two {items} stand side by side in the {order}?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return f"<answer>X {max(1, self.params['n'] // 4)}, Y {self.params['n'] // 2 + 2}</answer>"

    def rules_fields(self) -> dict[str, Any]:
        size = self.params["n"] + 2
        return {"size": size, "places_text": f"places 1 to {size}, place 1 first"}

    def candidate_states(self) -> tuple[Places, ...]:
        return _placements(self.params["n"])

    def _items(self) -> list[str]:
        return [str(i) for i in range(1, self.params["n"] + 1)] + list(LOOSE)

    def query_args(self, name: str) -> list[tuple]:
        items = self._items()
        return [(a, b) for a in items for b in items if a != b and (a in LOOSE or b in LOOSE)]

    def example_args(self, name: str) -> tuple:
        return ("X", str(max(1, self.params["n"] // 2)))

    def parse_query(self, name: str, content: str) -> tuple:
        return super().parse_query(name, content.upper())

    def answer_columns(self, name: str, args: tuple) -> np.ndarray | None:
        n = self.params["n"]
        i, j = places_of(n, args[0]), places_of(n, args[1])
        return i < j if name == "before" else np.abs(i - j) == 1

    def respond(self, hidden: Places, name: str, args: tuple) -> Hashable:
        n = self.params["n"]
        i, j = place_of(n, hidden, args[0]), place_of(n, hidden, args[1])
        return i < j if name == "before" else abs(i - j) == 1

    def parse_answer(self, text: str) -> Places:
        size = self.params["n"] + 2
        message = f"submit the place (1 to {size}) of X and of Y, two different places, as {self.answer_format}."
        numbers = re.findall(r"-?\d+", text)
        if len(numbers) != 2:
            raise InvalidAction(message)
        pairs = re.findall(r"\b([xy])\b\D{0,12}?(\d+)", text.lower())
        found = {letter: int(place) for letter, place in pairs}
        if len(pairs) != 2 or set(found) != {"x", "y"}:
            if re.search(r"[a-z]", text.lower()):  # bare "5, 40" is X first, then Y
                raise InvalidAction(message)
            found = {"x": int(numbers[0]), "y": int(numbers[1])}
        places = (found["x"], found["y"])
        if not all(1 <= p <= size for p in places) or places[0] == places[1]:
            raise InvalidAction(message)
        return places

    def format_answer(self, target: Places) -> str:
        return f"X {target[0]}, Y {target[1]}"
