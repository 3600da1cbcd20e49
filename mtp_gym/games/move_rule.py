"""Move Rule (graph, inductive): infer which kinds of moves link the cells of a board.

The {cells} of a ``w x h`` {board} are numbered left to right, top to bottom (the grid is shown). A hidden
{piece} moves by a hidden non-empty set of {move} kinds from a menu (``step``: 1 {cell}
orthogonally; ``diagonal``: 1 {cell} diagonally; ``knight``: 2+1 like a chess knight;
``jump``: 2 {cells} orthogonally; ``leap``: 2 {cells} diagonally; ``camel``: 3+1; ``zebra``:
3+2), in every direction. Two {cells} are linked when the {piece} can go from one to the
other in a single move: the rule generates a graph on the {cells}. Queries are examples of
that graph: ``linked(a, b)`` and ``degree(a)`` (how many {cells} the {piece} can reach from
``a`` in one move). The agent submits the set of move kinds: the generalization behind the
examples. Levels grow the menu by one kind each (the first ``kinds`` of the list above) and
the {board} where the menu needs room, ``(w x h, kinds)``: 3x3 with 3 kinds, 3x3 with 4, 5x5
with 5, 6x6 with 6, 6x6 with 7; 2^kinds - 1 = 7, 15, 31, 63, 127 rules. A larger {board} alone
makes the game easier, not harder (more {cells} with distinct counts per kind, so one
``degree`` reply tells more kinds apart), hence the slow growth of the {board}: the oracle's
expected turns over every rule rise at each level (about 2.6, 2.8, 3.0, 3.7, 4.3).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import combinations
from typing import Any

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec, answer_items

#: move kind -> (displacement (dx, dy) up to sign and swap, description)
KINDS: dict[str, tuple[tuple[int, int], str]] = {
    "step": ((1, 0), "1 {cell} up, down, left or right"),
    "diagonal": ((1, 1), "1 {cell} diagonally"),
    "knight": ((2, 1), "2 {cells} in one direction and 1 sideways, like a chess knight"),
    "jump": ((2, 0), "exactly 2 {cells} up, down, left or right"),
    "leap": ((2, 2), "exactly 2 {cells} diagonally"),
    "camel": ((3, 1), "3 {cells} in one direction and 1 sideways"),
    "zebra": ((3, 2), "3 {cells} in one direction and 2 sideways"),
}
KIND_ORDER = tuple(KINDS)


def kind_of(width: int, a: int, b: int) -> str | None:
    """The move kind that goes from cell ``a`` to cell ``b`` (numbered row by row), if any."""
    (ya, xa), (yb, xb) = divmod(a - 1, width), divmod(b - 1, width)
    dx, dy = abs(xa - xb), abs(ya - yb)
    key = (max(dx, dy), min(dx, dy))
    for name, (d, _) in KINDS.items():
        if d == key:
            return name
    return None


@cache
def _rules(n_kinds: int) -> tuple[tuple[str, ...], ...]:
    kinds = KIND_ORDER[:n_kinds]
    return tuple(c for r in range(1, n_kinds + 1) for c in combinations(kinds, r))


@cache
def _kind_table(width: int, height: int) -> dict[tuple[int, int], str | None]:
    cells = width * height
    return {(a, b): kind_of(width, a, b) for a in range(1, cells + 1) for b in range(1, cells + 1) if a != b}


class MoveRule(Game):
    name = "MoveRule"
    structure = "graph"
    inference = "inductive"
    levels = tuple({"w": w, "h": h, "kinds": k} for w, h, k in ((3, 3, 3), (3, 3, 4), (5, 5, 5), (6, 6, 6), (6, 6, 7)))
    budgets = (5, 6, 7, 8, 9)
    queries = (
        QuerySpec(
            "linked", (int, int), "can the {piece} move between these two {cells} in one {move} (smaller number first)?"
        ),
        QuerySpec("degree", (int,), "to how many {cells} can the {piece} move from this {cell} in one {move}?"),
    )
    vocabulary = {
        "cell": "cell",
        "cells": "cells",
        "board": "board",
        "piece": "piece",
        "move": "move",
        "moves": "moves",
        "columns": "columns",
        "rows": "rows",
    }
    rules_template = (
        "A {board} has {w} {columns} and {h} {rows} of {cells}, numbered from left to right, top to bottom:\n{grid}\n"
        "A hidden {piece} moves by one or more of these kinds of {moves}, in any direction that stays "
        "on the {board} (it cannot stay still):\n{menu_text}\n"
        "Your goal is to find exactly which kinds of {moves} the {piece} has. You may ask one question "
        "per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the names of its kinds of {moves}, separated by commas:\n"
        "{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>step, knight</answer>"

    def rules_fields(self) -> dict[str, Any]:
        w, h = self.params["w"], self.params["h"]
        width = len(str(w * h))
        grid = "\n".join("  " + " ".join(str(r * w + c + 1).rjust(width) for c in range(w)) for r in range(h))
        menu_text = "\n".join(
            "  " + k + ": " + KINDS[k][1].format(**self.vocab) for k in KIND_ORDER[: self.params["kinds"]]
        )
        return {"grid": grid, "menu_text": menu_text}

    def candidate_states(self) -> tuple[tuple[str, ...], ...]:
        return _rules(self.params["kinds"])

    def query_args(self, name: str) -> list[tuple]:
        cells = self.params["w"] * self.params["h"]
        if name == "linked":
            return [(a, b) for a in range(1, cells + 1) for b in range(a + 1, cells + 1)]
        return [(a,) for a in range(1, cells + 1)]

    def example_args(self, name: str) -> tuple:
        return (1, 5) if name == "linked" else (2,)

    def respond(self, hidden: tuple[str, ...], name: str, args: tuple) -> Hashable:
        table = _kind_table(self.params["w"], self.params["h"])
        if name == "linked":
            return table[args] in hidden
        a = args[0]
        cells = self.params["w"] * self.params["h"]
        return sum(table[(a, b)] in hidden for b in range(1, cells + 1) if b != a)

    def parse_answer(self, text: str) -> tuple[str, ...]:
        words = [w for w in answer_items(text.lower()) if w not in ("and", "&")]
        allowed = KIND_ORDER[: self.params["kinds"]]
        unknown = [w for w in words if w not in allowed]
        if unknown or not words:
            raise InvalidAction(
                f"name one or more kinds of {self.vocab['moves']} among {', '.join(allowed)}, as {self.answer_format}."
            )
        chosen = set(words)
        return tuple(k for k in allowed if k in chosen)

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(target)
