"""Move Rule (graph, inductive): infer which kinds of moves link the cells of a board.

The {cells} of a square {board} are numbered left to right, top to bottom (the grid is shown).
A hidden {piece} stands on the middle {cell} and moves by one or more kinds of {move}, at most
``k`` of them, out of a menu: the kind ``p+q`` moves ``p`` {cells} along one axis and ``q``
along the other, in any direction (``1+0`` is a king's straight step, ``1+1`` its diagonal
step, ``2+1`` a knight's move); the menu is every ``p+q`` with ``reach >= p >= q >= 0`` and
``p >= 1``, and the {board} has side ``2 * reach + 1`` so that every kind lands in all its
directions. Two {cells} are linked when the {piece} can go from one to the other in a single
{move}: the rule generates a graph on the {cells}, and the queries are examples of it around
the middle {cell} ``c``: ``linked(b)`` (can the {piece} move from ``c`` to {cell} ``b``?) and
``reach(b)`` (how many of the {cells} ``1..b`` can it reach from ``c``?). The agent submits the
set of kinds: the generalization behind the examples.

Levels grow the menu and the {board}, ``(reach, k)``: (2, 2), (5, 2), (6, 2), (7, 2), (8, 2),
i.e. boards of side 5, 11, 13, 15, 17 with 5, 20, 27, 35 and 44 kinds, so 15, 210, 378, 630
and 990 rules. The number of kinds the {piece} has is drawn uniformly from 1 to ``k`` (then the
kinds), and it is not told.

No reasoning-free sweep fits the budget from level 2 on: a ``linked`` question per {cell} in
order tests one kind at a time (a kind's other landings are then known) and, as the {piece}
may have fewer than ``k`` kinds, must test every kind of the menu unless it finds ``k`` early:
20 to 44 questions against budgets of 11 to 14; ``reach`` of 1, 2, 3, ... in turn does the
same. A ``reach`` count ending near the middle of the {cells} still in doubt splits the rules
several ways at once (each kind lands on 4 to 8 {cells} spread over the rows), so the oracle
needs 4 to 6 turns.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from functools import cache, cached_property
from itertools import combinations
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec
from mtp_gym.games.domains import Story, nouns

_KIND_RE = re.compile(r"(\d+)\s*\+\s*(\d+)")


def kind_name(dx: int, dy: int) -> str | None:
    """The kind ``p+q`` of a move by ``dx`` columns and ``dy`` rows (any signs); None for no move."""
    p, q = max(abs(dx), abs(dy)), min(abs(dx), abs(dy))
    return f"{p}+{q}" if p else None


def kind_of(width: int, a: int, b: int) -> str | None:
    """The kind of the move from cell ``a`` to cell ``b`` of a board ``width`` cells wide
    (cells numbered row by row from 1)."""
    (ya, xa), (yb, xb) = divmod(a - 1, width), divmod(b - 1, width)
    return kind_name(xb - xa, yb - ya)


@cache
def menu(reach: int) -> tuple[str, ...]:
    """Every kind ``p+q`` with ``reach >= p >= q >= 0``, ``p >= 1``, by ``p`` then ``q``."""
    return tuple(f"{p}+{q}" for p in range(1, reach + 1) for q in range(p + 1))


@cache
def _rules(reach: int, k: int) -> tuple[tuple[str, ...], ...]:
    kinds = menu(reach)
    return tuple(c for r in range(1, k + 1) for c in combinations(kinds, r))


@cache
def _tables(reach: int) -> tuple[int, tuple[str | None, ...], dict[str, tuple[int, ...]]]:
    """On the board of side ``2 * reach + 1``: the center cell, the kind of the move from the
    center to every cell (index = cell number), and per kind ``reach`` of every cell ``b`` (how
    many of the cells ``1..b`` it lands on from the center)."""
    side = 2 * reach + 1
    center = (side * side + 1) // 2
    kind_at = (None,) + tuple(kind_of(side, center, b) for b in range(1, side * side + 1))
    landed = {}
    for kind in menu(reach):
        counts, running = [0], 0
        for b in range(1, side * side + 1):
            running += kind_at[b] == kind
            counts.append(running)
        landed[kind] = tuple(counts)
    return center, kind_at, landed


class MoveRule(Game):
    """Move Rule (graph, inductive): infer which kinds of moves a piece on a board has.

    Shown: a square board (numbered cells) and the menu of move kinds ``p+q``. Hidden: the 1 to
    ``k`` kinds the piece on the middle cell has. Queries: ``linked(b)`` (can it reach cell ``b``
    in one move?, Yes/No) and ``reach(b)`` (how many of the cells ``1..b`` can it reach?). Answer:
    the kinds. Levels: boards of side 5, 11, 13, 15, 17 with ``k`` = 2: 15 to 990 rules.
    """

    name = "MoveRule"
    structure = "graph"
    inference = "inductive"
    levels = tuple({"reach": r, "w": 2 * r + 1, "k": k} for r, k in ((2, 2), (5, 2), (6, 2), (7, 2), (8, 2)))
    budgets = (8, 11, 12, 13, 14)
    transient = ("_reach_rows",)
    queries = (
        QuerySpec("linked", (int,), "can the {piece} move from {cell} {center} to this {cell} in one {move}?"),
        QuerySpec(
            "reach",
            (int,),
            "how many of the {cells} numbered 1 up to this one can the {piece} reach from {cell} {center} in one {move}?",
        ),
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
        "A {board} has {w} {columns} and {w} {rows} of {cells}, numbered from left to right, top to bottom:\n{grid}\n"
        "A hidden {piece} stands on the middle {cell}, {center}. It has at least one and at most {k} kinds of "
        "{moves} out of a menu, where the kind p+q goes p {cells} along the {rows} or the {columns} and q "
        "{cells} along the other, in any direction ({knight} is the move of a chess knight). The menu: "
        "{menu_text}.\n"
        "Your goal is to find exactly which kinds of {moves} the {piece} has. You may ask one question "
        "per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit its kinds of {moves}, separated by commas:\n"
        "{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>2+1, 1+0</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "cell cells board piece move moves columns rows",
        education={
            "cell": "classroom",
            "cells": "classrooms",
            "board": "school floor plan",
            "piece": "hall monitor",
            "move": "walk",
            "moves": "walks",
            "columns": "columns",
            "rows": "rows",
        },
        healthcare={
            "cell": "bed",
            "cells": "beds",
            "board": "ward layout",
            "piece": "nurse",
            "move": "round",
            "moves": "rounds",
            "columns": "columns",
            "rows": "rows",
        },
        transportation={
            "cell": "parking bay",
            "cells": "parking bays",
            "board": "parking grid",
            "piece": "tow truck",
            "move": "manoeuvre",
            "moves": "manoeuvres",
            "columns": "lanes",
            "rows": "rows",
        },
        manufacturing={
            "cell": "storage slot",
            "cells": "storage slots",
            "board": "warehouse grid",
            "piece": "robot",
            "move": "transfer",
            "moves": "transfers",
            "columns": "aisles",
            "rows": "shelf levels",
        },
        law={
            "cell": "district",
            "cells": "districts",
            "board": "city map",
            "piece": "patrol officer",
            "move": "patrol leg",
            "moves": "patrol legs",
            "columns": "avenues",
            "rows": "streets",
        },
    )
    story = Story(
        setting="The {board} consists of {cells} arranged {w} {columns} across and {w} {rows} down; they are "
        "numbered row by row, starting at the top, each row from left to right:\n{grid}\n"
        "A {piece} waits on {cell} {center}, right in the middle. Out of sight, it was given some kinds of "
        "{moves}, never more than {k} of them. A kind written p+q carries it p {cells} one way (along a "
        "row or a column) and q {cells} the other way, heading wherever it likes; a chess knight, for one, "
        "makes {knight} {moves}. These are all the kinds it could have been given: {menu_text}.\n"
        "Pin down exactly which kinds it got.",
        answer="those kinds of {moves}, written p+q, with commas between them",
        queries={
            "linked": "with a single {move}, could the {piece} get from {cell} {center} to the {cell} named here?",
            "reach": "counting every {cell} from number 1 through the number named here, how many could the "
            "{piece} get to with a single {move} from {cell} {center}?",
        },
    )

    def rules_fields(self) -> dict[str, Any]:
        w = self.params["w"]
        width = len(str(w * w))
        grid = "\n".join("  " + " ".join(str(r * w + c + 1).rjust(width) for c in range(w)) for r in range(w))
        return {
            "grid": grid,
            "menu_text": ", ".join(menu(self.params["reach"])),
            "knight": "2+1",
            "center": _tables(self.params["reach"])[0],
        }

    def candidate_states(self) -> tuple[tuple[str, ...], ...]:
        return _rules(self.params["reach"], self.params["k"])

    def sample_hidden(self, rng: np.random.Generator) -> tuple[str, ...]:
        """1 to ``k`` kinds, the number drawn uniformly, then the kinds."""
        kinds = menu(self.params["reach"])
        size = int(rng.integers(1, self.params["k"] + 1))
        return tuple(kinds[i] for i in sorted(int(x) for x in rng.choice(len(kinds), size=size, replace=False)))

    def query_args(self, name: str) -> list[tuple]:
        center = _tables(self.params["reach"])[0]
        return [(b,) for b in range(1, self.params["w"] ** 2 + 1) if b != center]

    def example_args(self, name: str) -> tuple:
        center = _tables(self.params["reach"])[0]
        return (center - 2 * self.params["w"] - 1,) if name == "linked" else (center - 1,)

    @cached_property
    def _reach_rows(self) -> dict[tuple[str, ...], tuple[int, ...]]:
        """Per rule (filled on the first ``reach`` question about it), ``reach`` of every cell;
        left out of pickles."""
        return {}

    def respond(self, hidden: tuple[str, ...], name: str, args: tuple) -> Hashable:
        _, kind_at, landed = _tables(self.params["reach"])
        if name == "linked":
            return kind_at[args[0]] in hidden
        row = self._reach_rows.get(hidden)
        if row is None:
            row = self._reach_rows[hidden] = tuple(map(sum, zip(*(landed[kind] for kind in hidden))))
        return row[args[0]]

    def parse_answer(self, text: str) -> tuple[str, ...]:
        allowed = menu(self.params["reach"])
        found = [kind_name(int(p), int(q)) for p, q in _KIND_RE.findall(text)]
        rest = _KIND_RE.sub(" ", text).lower()
        leftover = [w for w in re.split(r"[\s,;.&]+|\band\b", rest) if w]
        chosen = set(found)
        if not found or leftover or not chosen <= set(allowed) or len(chosen) > self.params["k"]:
            raise InvalidAction(
                f"name 1 to {self.params['k']} kinds of {self.vocab['moves']} from the menu (p+q with "
                f"{self.params['reach']} >= p >= q >= 0, p >= 1), as {self.answer_format}."
            )
        return tuple(kind for kind in allowed if kind in chosen)

    def format_answer(self, target: tuple[str, ...]) -> str:
        return ", ".join(target)
