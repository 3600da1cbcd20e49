"""Swap History (sequence, abductive): explain an observed reordering by the swaps that caused it.

A row of ``n`` {items} ``A, B, C, ...`` started in alphabetical order. During ``T`` {ticks}
exactly two {moves} were made, at two different {ticks}; each {move} swapped the {items} at
two neighbouring {places} ``p`` and ``p + 1``. The final row is the observed outcome, shown in
the rules (``public["final"]``). The hidden cause is the pair of {moves}: the {tick} and the
``p`` of each. The outcome tells which {items} were swapped (two swaps of {places} far apart
leave two pairs exchanged and happened in either order; two swaps of overlapping {places}
leave three {items} rotated, in one order only) but never when: the agent questions the
history with ``row(t)`` (the whole row right after {tick} ``t``, ``t < T``), then submits
``tick:p`` for each {move}. The rows after every {tick} fix both {moves} (the row after the
last {tick} is the outcome): the game is well-posed.

The outcome is drawn by making two {moves} of {places} far apart (they share no {item}) at two
random {ticks}, so it shows two pairs exchanged and either {move} may have come first; the
hidden cause is then drawn uniformly among all the pairs of {moves} that explain it
(``2 * C(T, 2)``). A ``row`` question is a split in time (has each {move}
happened by then?), so about ``2 log2 T`` questions find both {ticks}, while a look at the
rows {tick} after {tick} finds the later {move} only by reaching it. Levels grow ``(n, T)``:
(4, 3), (4, 48), (5, 64), (5, 72), (6, 80): 6, 2256, 4032, 5112 and 6320 explanations.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import combinations, product
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec
from mtp_gym.games.domains import Story, nouns
from mtp_gym.games.hidden_order import LETTERS

Moves = tuple[tuple[int, int], ...]  # ((tick, p), (tick, p)), ticks increasing


def rows(n: int, moves: Moves) -> list[tuple[str, ...]]:
    """The row before the first move and after each move (``rows[k]`` after move ``k``)."""
    row = list(LETTERS[:n])
    out = [tuple(row)]
    for _, p in moves:
        row[p - 1], row[p] = row[p], row[p - 1]
        out.append(tuple(row))
    return out


def row_after(n: int, moves: Moves, tick: int) -> tuple[str, ...]:
    """The row right after ``tick`` (the moves made at ``tick`` or earlier)."""
    (t1, _), (t2, _) = moves
    return _rows(n, moves)[(tick >= t1) + (tick >= t2)]


@cache
def _rows(n: int, moves: Moves) -> tuple[tuple[str, ...], ...]:
    return tuple(rows(n, moves))


@cache
def _histories(n: int, ticks: int) -> dict[tuple[str, ...], tuple[Moves, ...]]:
    """Every pair of moves (two different ticks, two places) grouped by the final row it
    produces; a pair that leaves the row as it started is not kept (it is never drawn)."""
    start = tuple(LETTERS[:n])
    out: dict[tuple[str, ...], list[Moves]] = {}
    for t1, t2 in combinations(range(1, ticks + 1), 2):
        for p1, p2 in product(range(1, n), repeat=2):
            moves = ((t1, p1), (t2, p2))
            final = rows(n, moves)[-1]
            if final != start:
                out.setdefault(final, []).append(moves)
    return {k: tuple(v) for k, v in out.items()}


class SwapHistory(Game):
    """Swap History (sequence, abductive): which two swaps, and when, explain a reordered row?

    Shown: the row of ``n`` items at the start and at the end of ``T`` minutes. Hidden: the two
    moves (each swapped two neighbouring places ``p`` and ``p + 1``, at two different minutes).
    Query: ``row(t)`` (the row just after minute ``t < T``). Answer: each move as ``minute:p``.
    Levels ``(n, T)``: (4, 3), (4, 48), (5, 64), (5, 72), (6, 80): 6 to 6320 explanations.
    """

    name = "SwapHistory"
    structure = "sequence"
    inference = "abductive"
    levels = tuple({"n": n, "T": ticks} for n, ticks in ((4, 3), (4, 48), (5, 64), (5, 72), (6, 80)))
    budgets = (8, 25, 27, 27, 28)
    queries = (
        QuerySpec(
            "row",
            (int,),
            "what was the order of the {row} right after this {tick} (ask about {ticks} 1 to {before_last})?",
        ),
    )
    vocabulary = {
        "item": "item",
        "items": "items",
        "row": "row",
        "place": "place",
        "places": "places",
        "move": "move",
        "moves": "moves",
        "tick": "minute",
        "ticks": "minutes",
    }
    rules_template = (
        "A {row} of {n} {items} started in the order {start} ({place} 1 first). During the next {T} "
        "{ticks}, exactly two {moves} were made, at two different {ticks}; each {move} swapped the two "
        "{items} at two neighbouring {places} p and p+1. Afterwards the {row} was observed in the order "
        "{final_text}. Your goal is to find which {moves} caused this: the {tick} and the {place} p of "
        "each {move}. You may ask one question per turn using the following format ({ticks} are "
        "numbered 1 to {T}):\n{query_formats}\n"
        "When you know the answer, submit each {move} as {tick}:p, in the order they were made, "
        "separated by commas:\n{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "item items row place places move moves tick ticks",
        education={
            "item": "student",
            "items": "students",
            "row": "line",
            "place": "spot",
            "places": "spots",
            "move": "swap",
            "moves": "swaps",
            "tick": "lesson",
            "ticks": "lessons",
        },
        healthcare={
            "item": "patient",
            "items": "patients",
            "row": "waiting list",
            "place": "slot",
            "places": "slots",
            "move": "reordering",
            "moves": "reorderings",
            "tick": "hour",
            "ticks": "hours",
        },
        transportation={
            "item": "train",
            "items": "trains",
            "row": "track queue",
            "place": "slot",
            "places": "slots",
            "move": "shunt",
            "moves": "shunts",
            "tick": "minute",
            "ticks": "minutes",
        },
        manufacturing={
            "item": "pallet",
            "items": "pallets",
            "row": "conveyor line",
            "place": "station",
            "places": "stations",
            "move": "swap",
            "moves": "swaps",
            "tick": "shift",
            "ticks": "shifts",
        },
        law={
            "item": "case",
            "items": "cases",
            "row": "docket",
            "place": "slot",
            "places": "slots",
            "move": "rescheduling",
            "moves": "reschedulings",
            "tick": "day",
            "ticks": "days",
        },
    )
    story = Story(
        setting="A {row} held {n} {items}, at first in the order {start}, listed from {place} 1 onward. "
        "Over the following {T} {ticks}, out of sight, exactly two {moves} took place, never two in the same "
        "{tick}; each {move} exchanged the {items} standing at two adjacent {places}, p and p+1. When the "
        "{row} was looked at afterwards, its order was {final_text}. Reconstruct what happened: when each "
        "{move} took place and the {place} p at which it made its exchange (p being the lower of the two "
        "{places}). The {ticks} count from 1 to {T}.",
        answer="each {move} as {tick}:p, the earlier one first, with commas between them",
        queries={
            "row": "just after this {tick}, in what order did the {items} of the {row} stand (only {ticks} 1 to "
            "{before_last} may be asked about)?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        ticks = self.params["T"]
        return f"<answer>{max(1, ticks // 4)}:1, {max(2, ticks // 2)}:2</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        n, ticks = cls.levels[level - 1]["n"], cls.levels[level - 1]["T"]
        t1, t2 = sorted(int(t) + 1 for t in rng.choice(ticks, size=2, replace=False))
        far = [(p, q) for p in range(1, n) for q in range(1, n) if abs(p - q) >= 2]
        p1, p2 = far[int(rng.integers(len(far)))]
        return {"final": rows(n, ((t1, p1), (t2, p2)))[-1]}

    def rules_fields(self) -> dict[str, Any]:
        return {
            "start": ", ".join(LETTERS[: self.params["n"]]),
            "final_text": ", ".join(self.public.get("final", ())),
            "before_last": self.params["T"] - 1,
        }

    def candidate_states(self) -> tuple[Moves, ...]:
        return _histories(self.params["n"], self.params["T"]).get(tuple(self.public["final"]), ())

    def query_args(self, name: str) -> list[tuple]:
        return [(t,) for t in range(1, self.params["T"])]

    def example_args(self, name: str) -> tuple:
        return (2,)

    def respond(self, hidden: Moves, name: str, args: tuple) -> tuple[str, ...]:
        (tick,) = args
        (t1, _), (t2, _) = hidden
        return _rows(self.params["n"], hidden)[(tick >= t1) + (tick >= t2)]

    def render_value(self, name: str, args: tuple, value: tuple[str, ...]) -> str:
        return ", ".join(value)

    def parse_answer(self, text: str) -> Moves:
        n, ticks = self.params["n"], self.params["T"]
        message = (
            f"submit the two {self.vocab['moves']} as {self.vocab['tick']}:p (a {self.vocab['tick']} from 1 to "
            f"{ticks}, p from 1 to {n - 1}), in the order they were made, as {self.answer_format}."
        )
        numbers = [int(x) for x in re.findall(r"-?\d+", text)]
        if len(numbers) != 4:
            raise InvalidAction(message)
        moves = ((numbers[0], numbers[1]), (numbers[2], numbers[3]))
        if not all(1 <= t <= ticks and 1 <= p < n for t, p in moves) or moves[0][0] >= moves[1][0]:
            raise InvalidAction(message)
        return moves

    def format_answer(self, target: Moves) -> str:
        return ", ".join(f"{t}:{p}" for t, p in target)
