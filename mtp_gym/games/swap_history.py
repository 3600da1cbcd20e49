"""Swap History (sequence, abductive): explain an observed reordering by the swaps that caused it.

A row of ``n`` {items} ``A, B, C, ...`` started in alphabetical order; then ``m`` {moves} were
made, each {move} swapping the {items} at two neighbouring {places} ``p`` and ``p + 1`` (two
{moves} may swap the same {places}). The final row is the observed outcome, shown
in the rules (``public["final"]``). The hidden cause is the list of {moves} (the ``p`` of
each). Several {move} lists usually explain the same final row; the agent questions the
history: ``place(x, t)`` (where was {item} ``x`` right after {move} ``t``, ``t < m``?) and
``moved(x, t)`` (was {item} ``x`` one of the two swapped at {move} ``t``?), then submits the
list. The ``place`` answers of every {item} after every {move} fix every intermediate row
(the last one is the observed outcome), hence every {move}: the game is well-posed.

The outcome is drawn by making ``m`` random {moves}, drawn again while fewer than ``least``
{move} lists explain it (a level's floor; at least 82% of the draws pass it); the hidden cause
is then drawn uniformly among all {move} lists that explain it. Levels grow ``(n, m, least)``:
(3, 4, 4), (4, 4, 8), (5, 5, 20), (5, 6, 30), (6, 7, 40) (16 to 78125 {move} lists); on the
benchmark split an outcome has on average 6, 12, 64, 190 and 887 explanations (5-6, 9-17,
33-95, 48-358 and 132-2240).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import product
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec, answer_ints
from mtp_gym.games.hidden_order import LETTERS

Moves = tuple[int, ...]


def rows(n: int, moves: Moves) -> list[tuple[str, ...]]:
    """The row after each move (``rows[t]`` after move ``t``; ``rows[0]`` the start)."""
    row = list(LETTERS[:n])
    out = [tuple(row)]
    for p in moves:
        row[p - 1], row[p] = row[p], row[p - 1]
        out.append(tuple(row))
    return out


@cache
def _histories(n: int, m: int) -> dict[tuple[str, ...], tuple[Moves, ...]]:
    """Every allowed move list of a level, grouped by the final row it produces."""
    out: dict[tuple[str, ...], list[Moves]] = {}
    for moves in product(range(1, n), repeat=m):
        out.setdefault(rows(n, moves)[-1], []).append(moves)
    return {k: tuple(v) for k, v in out.items()}


@cache
def _trace(n: int, moves: Moves) -> tuple[dict[str, int], ...]:
    """Per row (after move t), item -> its 1-based place."""
    return tuple({x: i + 1 for i, x in enumerate(row)} for row in rows(n, moves))


class SwapHistory(Game):
    name = "SwapHistory"
    structure = "sequence"
    inference = "abductive"
    levels = tuple(
        {"n": n, "m": m, "least": least} for n, m, least in ((3, 4, 4), (4, 4, 8), (5, 5, 20), (5, 6, 30), (6, 7, 40))
    )
    budgets = (7, 7, 11, 14, 16)
    queries = (
        QuerySpec(
            "place",
            (str, int),
            "at which {place} (1 to {n}) was this {item} right after this {move} (ask about {moves} 1 to {before_last})?",
        ),
        QuerySpec("moved", (str, int), "was this {item} one of the two swapped at this {move}?"),
    )
    vocabulary = {
        "item": "item",
        "items": "items",
        "row": "row",
        "place": "place",
        "places": "places",
        "move": "move",
        "moves": "moves",
    }
    rules_template = (
        "A {row} of {n} {items} started in the order {start} ({place} 1 first). Then {m} {moves} "
        "were made; each {move} swapped the two {items} at two neighbouring {places} p and p+1 (several "
        "{moves} may swap the same two {places}). Afterwards the {row} was observed "
        "in the order {final_text}. Your goal is to find which {moves} caused this: the {place} p "
        "of each of the {m} {moves}, in order. You may ask one question per turn using the "
        "following format ({moves} are numbered 1 to {m}):\n{query_formats}\n"
        "When you know the answer, submit the p of every {move} in order, separated by commas:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(1 + (t % 2)) for t in range(self.params["m"])) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        n, m, least = (cls.levels[level - 1][k] for k in ("n", "m", "least"))
        histories = _histories(n, m)
        while True:  # an outcome with few explanations is too easy a puzzle: draw again
            moves = tuple(int(p) for p in rng.integers(1, n, size=m))
            final = rows(n, moves)[-1]
            if len(histories[final]) >= least:
                return {"final": final}

    def rules_fields(self) -> dict[str, Any]:
        return {
            "start": ", ".join(LETTERS[: self.params["n"]]),
            "final_text": ", ".join(self.public.get("final", ())),
            "before_last": self.params["m"] - 1,
        }

    def candidate_states(self) -> tuple[Moves, ...]:
        return _histories(self.params["n"], self.params["m"]).get(tuple(self.public["final"]), ())

    def query_args(self, name: str) -> list[tuple]:
        n, m = self.params["n"], self.params["m"]
        last = m - 1 if name == "place" else m
        return [(x, t) for x in LETTERS[:n] for t in range(1, last + 1)]

    def example_args(self, name: str) -> tuple:
        return ("B", 1)

    def parse_query(self, name: str, content: str) -> tuple:
        return super().parse_query(name, content.upper())

    def respond(self, hidden: Moves, name: str, args: tuple) -> Hashable:
        x, t = args
        if name == "place":
            return _trace(self.params["n"], hidden)[t][x]
        p = hidden[t - 1]
        return _trace(self.params["n"], hidden)[t - 1][x] in (p, p + 1)

    def parse_answer(self, text: str) -> Moves:
        moves = tuple(answer_ints(text, self.answer_format))
        n, m = self.params["n"], self.params["m"]
        if len(moves) != m or not all(1 <= p < n for p in moves):
            raise InvalidAction(
                f"submit exactly {m} {self.vocab['places']} p from 1 to {n - 1}, as {self.answer_format}."
            )
        return moves

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(p) for p in target)
