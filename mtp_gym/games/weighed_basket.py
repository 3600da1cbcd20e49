"""Weighed Basket (set, abductive): explain an observed total weight by the subset behind it.

The configuration (public) shows ``n`` {items} numbered ``1..n`` with their {weights}, the
number ``k`` of {items} put in a hidden {basket}, and the observed outcome: the {basket}'s
total {weight}. The hidden state is the cause of that total: which ``k`` {items} were put in it.
Several ``k``-subsets reach the same total (a subset-sum inverse problem); the agent reasons
backward from the total and gathers evidence to single out the true one:

* ``contains(i)``: is {item} ``i`` in the {basket}? (Yes/No)
* ``count(a, b)``: how many {items} in the {basket} are numbered ``a`` to ``b`` (``a <= b``; a number)

Asking ``contains`` on every {item} always identifies the subset, so the game is well-posed.

Configurations: {weights} are random integers in ``1..w``; a subset is drawn, its total
computed, and the draw is kept only when the number of ``k``-subsets with that total lies in
the level's range (the hidden subset is then uniform over them, the posterior under a uniform
prior). Levels ``(n, k, w)`` and explanations: (8, 4, 9) 4-7, (9, 4, 9) 8-15, (11, 5, 12)
16-40, (13, 6, 15) 41-100, (15, 7, 18) 101-250. Level 1 thus offers at least 4 candidate
explanations (a random guess wins at most 1 in 4), level 5 over 100.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from mtp_gym.games.base import Game, QuerySpec, answer_subset

Basket = tuple  # sorted item numbers (1-based)


@lru_cache(maxsize=1024)  # bounded: generated configs bring new keys forever
def explanations(weights: tuple[int, ...], k: int, total: int) -> tuple[Basket, ...]:
    """Every ``k``-subset of {items} (1-based, sorted) whose {weights} sum to ``total``."""
    return tuple(
        tuple(i + 1 for i in combo)
        for combo in combinations(range(len(weights)), k)
        if sum(weights[i] for i in combo) == total
    )


class WeighedBasket(Game):
    name = "WeighedBasket"
    structure = "set"
    inference = "abductive"
    levels = (
        {"n": 8, "k": 4, "w": 9, "explanations": (4, 7)},
        {"n": 9, "k": 4, "w": 9, "explanations": (8, 15)},
        {"n": 11, "k": 5, "w": 12, "explanations": (16, 40)},
        {"n": 13, "k": 6, "w": 15, "explanations": (41, 100)},
        {"n": 15, "k": 7, "w": 18, "explanations": (101, 250)},
    )
    budgets = (6, 7, 8, 10, 11)
    queries = (
        QuerySpec("contains", (int,), "is this {item} in the {basket}?"),
        QuerySpec("count", (int, int), "how many {items} of the {basket} are numbered in this range (inclusive)?"),
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
            if low <= len(explanations(weights, p["k"], total)) <= high:
                return {"weights": weights, "total": total}

    def rules_fields(self) -> dict[str, Any]:
        lines = [f"  {self.vocab['item']} {i}: {w}" for i, w in enumerate(self.public["weights"], 1)]
        return {"weight_lines": "\n".join(lines)}

    def candidate_states(self) -> tuple[Basket, ...]:
        return explanations(tuple(self.public["weights"]), self.params["k"], self.public["total"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name == "contains":
            return [(i,) for i in range(1, n + 1)]
        return [(a, b) for a in range(1, n + 1) for b in range(a, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "contains" else (2, 5)

    def respond(self, hidden: Basket, name: str, args: tuple) -> Hashable:
        if name == "contains":
            return args[0] in hidden
        a, b = args
        return sum(a <= i <= b for i in hidden)

    def parse_answer(self, text: str) -> Basket:
        n, k = self.params["n"], self.params["k"]
        message = f"submit exactly {k} distinct {self.vocab['items']} from 1 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, k, 1, n, message)

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(x) for x in target)
