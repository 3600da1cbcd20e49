"""Weighed Basket (set, abductive): explain an observed total weight by the subset behind it.

The configuration (public) shows ``n`` {items} numbered ``1..n`` with their {weights}, the
number ``k`` of {items} put in a hidden {basket}, and the observed outcome: the {basket}'s
total {weight}. The hidden state is the cause of that total: which ``k`` {items} were put in it.
Several ``k``-subsets reach the same total (a subset-sum inverse problem); the agent reasons
backward from the total and gathers evidence to single out the true one:

* ``contains(i)``: is {item} ``i`` in the {basket}? (Yes/No)
* ``weight(b)``: the total {weight} of the {basket}'s {items} numbered ``1`` to ``b`` (weighing
  part of the {basket}; a number)

Asking ``contains`` on every {item} always identifies the subset, so the game is well-posed.

Configurations: {weights} are random integers in ``1..w``; a subset is drawn, its total
computed, and the draw is kept only when the number of ``k``-subsets with that total lies in
the level's range (the hidden subset is then uniform over them, the posterior under a uniform
prior). Levels ``(n, k, w)`` and explanations: (8, 4, 9) 4-7, (36, 3, 40) 80-160, (40, 4, 40)
800-1700, (48, 4, 50) 1600-2800, (56, 4, 60) 3000-5000. Level 1 thus offers at least 4
candidate explanations (a random guess wins at most 1 in 4).

From level 2 there are far more {items} than turns, and a scan ``contains(1), contains(2), ...``
(or ``weight`` of 1, 2, ... in turn), even skipping what the replies settle, must reach the
second or third {item} of the {basket} before the total pins the rest: 13 to 26 questions (median)
against budgets of 10 to 13. Weighing a well-chosen part of the {basket} instead splits the
explanations by its {weight} (a partial sum): the oracle needs 4 to 5 turns. The game used to
count the {basket}'s {items} in a range (``count(a, b)``), at most about 2 bits a question: with
so many {items}, a scan kept up with it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable
from functools import lru_cache
from typing import Any

import numpy as np

from mtp_gym.games.base import Game, QuerySpec, answer_subset
from mtp_gym.games.domains import Story, nouns

Basket = tuple  # sorted item numbers (1-based)


def count_explanations(weights: tuple[int, ...], k: int, total: int) -> int:
    """How many ``k``-subsets of {items} have {weights} summing to ``total`` (a counting DP)."""
    if total < 0 or k > len(weights):
        return 0
    table = np.zeros((k + 1, total + 1), dtype=np.int64)
    table[0, 0] = 1
    for w in weights:
        if w <= total:
            table[1:, w:] += table[:-1, : total + 1 - w].copy()
    return int(table[k, total])


def _suffix_counts(weights: tuple[int, ...], k: int, total: int) -> np.ndarray:
    """``counts[i, j, s]``: how many ``j``-subsets of the {items} ``i..n-1`` (0-based) have
    {weights} summing to ``s`` (``s <= total``)."""
    n = len(weights)
    counts = np.zeros((n + 1, k + 1, total + 1), dtype=np.int64)
    counts[n, 0, 0] = 1
    for i in range(n - 1, -1, -1):
        counts[i] = counts[i + 1]
        w = weights[i]
        if w <= total:
            counts[i, 1:, w:] += counts[i + 1, :-1, : total + 1 - w]
    return counts


def nth_explanation(weights: tuple[int, ...], k: int, total: int, index: int) -> Basket:
    """``explanations(weights, k, total)[index]`` without listing them: at each place, skip the
    subsets that start with a smaller {item} (counted by :func:`_suffix_counts`)."""
    counts = _suffix_counts(weights, k, total)
    if not 0 <= index < counts[0, k, total]:
        raise IndexError(f"explanation {index} of {int(counts[0, k, total])}")
    picked: list[int] = []
    x, j, rest = 0, k, total
    while j:
        w = weights[x]
        here = int(counts[x + 1, j - 1, rest - w]) if w <= rest else 0
        if index < here:
            picked.append(x + 1)
            j, rest = j - 1, rest - w
        else:
            index -= here
        x += 1
    return tuple(picked)


@lru_cache(maxsize=1024)  # bounded: generated configs bring new keys forever
def explanations(weights: tuple[int, ...], k: int, total: int) -> tuple[Basket, ...]:
    """Every ``k``-subset of {items} (1-based, sorted) whose {weights} sum to ``total``, in
    lexicographic order (a search that only follows choices the remaining {items} can complete)."""
    n = len(weights)
    # reach[i][j]: the set of sums that j of the items i..n-1 can make
    reach: list[list[set[int]]] = [[set() for _ in range(k + 1)] for _ in range(n + 1)]
    for i in range(n, -1, -1):
        reach[i][0].add(0)
        if i < n:
            for j in range(1, k + 1):
                reach[i][j] = reach[i + 1][j] | {s + weights[i] for s in reach[i + 1][j - 1] if s + weights[i] <= total}
    out: list[Basket] = []
    picked: list[int] = []

    def walk(i: int, j: int, rest: int) -> None:
        if j == 0:
            out.append(tuple(picked))
            return
        for x in range(i, n - j + 1):
            w = weights[x]
            if w <= rest and rest - w in reach[x + 1][j - 1]:
                picked.append(x + 1)
                walk(x + 1, j - 1, rest - w)
                picked.pop()

    if total in reach[0][k]:
        walk(0, k, total)
    return tuple(out)


class WeighedBasket(Game):
    """Weighed Basket (set, abductive): which ``k`` items explain the basket's total weight?

    Shown: ``n`` items with their weights, ``k``, and the total weight of a basket of ``k`` of
    them. Hidden: which ``k`` items are in the basket (one of the subsets with that total).
    Queries: ``contains(i)`` (is item ``i`` in it?, Yes/No) and ``weight(b)`` (the total weight of
    its items numbered ``1..b``). Answer: the ``k`` items. Levels ``(n, k)``: (8, 4), (36, 3),
    (40, 4), (48, 4), (56, 4): 4-7 up to 3000-5000 explanations.
    """

    name = "WeighedBasket"
    structure = "set"
    inference = "abductive"
    levels = (
        {"n": 8, "k": 4, "w": 9, "explanations": (4, 7)},
        {"n": 36, "k": 3, "w": 40, "explanations": (80, 160)},
        {"n": 40, "k": 4, "w": 40, "explanations": (800, 1700)},
        {"n": 48, "k": 4, "w": 50, "explanations": (1600, 2800)},
        {"n": 56, "k": 4, "w": 60, "explanations": (3000, 5000)},
    )
    budgets = (8, 10, 11, 11, 13)
    queries = (
        QuerySpec("contains", (int,), "is this {item} in the {basket}?"),
        QuerySpec(
            "weight", (int,), "what do the {items} of the {basket} numbered up to this one (inclusive) weigh in total?"
        ),
    )
    vocabulary = {"item": "item", "items": "items", "basket": "basket", "weight": "weight", "weights": "weights"}
    rules_template = (
        "There are {n} {items}, numbered 1 to {n}, with these {weights}:\n{weight_lines}\n"
        "Exactly {k} different {items} were put in a hidden {basket}. Observed outcome: the "
        "total {weight} of the {basket} is {total}. Your goal is to find which {k} {items} are in "
        "the {basket}; several sets of {k} {items} could explain this total. You may ask one "
        "question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {k} {items} separated by commas:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "item items basket weight weights",
        education={
            "item": "course",
            "items": "courses",
            "basket": "study plan",
            "weight": "credit load",
            "weights": "credit loads",
        },
        healthcare={
            "item": "medication",
            "items": "medications",
            "basket": "daily prescription",
            "weight": "dosage",
            "weights": "dosages",
        },
        transportation={
            "item": "parcel",
            "items": "parcels",
            "basket": "delivery van",
            "weight": "load",
            "weights": "loads",
        },
        manufacturing={
            "item": "component",
            "items": "components",
            "basket": "shipping crate",
            "weight": "mass",
            "weights": "masses",
        },
        law={"item": "claim", "items": "claims", "basket": "settlement", "weight": "amount", "weights": "amounts"},
    )
    story = Story(
        setting="On file are {n} {items}, numbered 1 to {n}, and each has a known {weight}:\n{weight_lines}\n"
        "Out of your sight, {k} distinct ones among them went into a {basket}; all that is known is the "
        "result: their {weights} add up to {total}. More than one choice of {k} {items} would reach that same sum, "
        "so work out which {k} really make up the {basket}.",
        answer="the numbers of those {k} {items}, with commas between them",
        queries={
            "contains": "did this {item} go into the {basket}?",
            "weight": "put on the scale only those {items} in the {basket} whose number is at most this one: "
            "what does the scale read?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(i) for i in range(1, self.params["k"] + 1)) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        low, high = p["explanations"]
        while True:
            weights = tuple(int(x) for x in rng.integers(1, p["w"] + 1, size=p["n"]))
            packed = rng.choice(p["n"], size=p["k"], replace=False)
            total = sum(weights[int(i)] for i in packed)
            if low <= count_explanations(weights, p["k"], total) <= high:
                return {"weights": weights, "total": total}

    def rules_fields(self) -> dict[str, Any]:
        lines = [f"  {self.vocab['item']} {i}: {w}" for i, w in enumerate(self.public["weights"], 1)]
        return {"weight_lines": "\n".join(lines)}

    def candidate_states(self) -> tuple[Basket, ...]:
        return explanations(tuple(self.public["weights"]), self.params["k"], self.public["total"])

    def sample_hidden(self, rng: np.random.Generator) -> Basket:
        """Uniform over the explanations (the default's draw), reading only the drawn one."""
        weights, k, total = tuple(self.public["weights"]), self.params["k"], self.public["total"]
        return nth_explanation(weights, k, total, int(rng.integers(count_explanations(weights, k, total))))

    def query_args(self, name: str) -> list[tuple]:
        return [(i,) for i in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "contains" else (self.params["n"] // 2,)

    def respond(self, hidden: Basket, name: str, args: tuple) -> Hashable:
        if name == "contains":
            return args[0] in hidden
        weights = self.public["weights"]
        return sum(weights[i - 1] for i in hidden[: bisect_right(hidden, args[0])])

    def parse_answer(self, text: str) -> Basket:
        n, k = self.params["n"], self.params["k"]
        message = f"submit exactly {k} distinct {self.vocab['items']} from 1 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, k, 1, n, message)

    def format_answer(self, target: Basket) -> str:
        return ", ".join(str(x) for x in target)
