"""Fault Diagnosis (set, abductive): explain an observed set of affected {items} by its causes.

The configuration (public) shows ``s`` {sources} ``A, B, ...``, each linked to a set of
{items} among ``1..n``, the number ``k`` of {sources} that have a {fault}, and the observed
outcome: the set of {items} affected, which is exactly the union of the links of the ``k``
faulty {sources}. The hidden state is the cause: those ``k`` {sources}. Several ``k``-sets of
{sources} explain the outcome (their links lie inside it and together cover it); the agent
reasons backward from the outcome and gathers evidence to single out the true cause:

* ``faulty(X)``: does {source} ``X`` have a {fault}? (Yes/No)
* ``reach(i)``: how many faulty {sources} are linked to {item} ``i``? (a number)

Asking ``faulty`` on every {source} always identifies the cause, so the game is well-posed.

Configurations: links are distinct random ``r``-sets of {items}; a cause is drawn, its outcome
computed, and the draw is kept only when the number of explanations of the outcome lies in
the level's range (then the hidden cause is uniform over these explanations, the posterior
under a uniform prior). Levels ``(s, n, k, r)`` and explanations: (8, 8, 3, 2) 4-7,
(10, 12, 4, 3) 8-15, (12, 12, 4, 3) 16-31, (14, 16, 5, 3) 32-63, (16, 16, 6, 3) 64-127; so
level 1 already offers at least 4 explanations, and the count doubles at each level.
"""

from __future__ import annotations

import string
from collections.abc import Hashable
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Game, QuerySpec, answer_items

Cause = tuple  # sorted source letters


@lru_cache(maxsize=1024)  # bounded: generated configs bring new keys forever
def explanations(links: tuple[tuple[int, ...], ...], outcome: tuple[int, ...], k: int) -> tuple[Cause, ...]:
    """Every ``k``-set of {sources} (letters) whose links' union is exactly ``outcome``."""
    target = frozenset(outcome)
    eligible = [i for i, link in enumerate(links) if target.issuperset(link)]
    out = []
    for combo in combinations(eligible, k):
        if frozenset().union(*(links[i] for i in combo)) == target:
            out.append(tuple(string.ascii_uppercase[i] for i in combo))
    return tuple(out)


class FaultDiagnosis(Game):
    name = "FaultDiagnosis"
    structure = "set"
    inference = "abductive"
    levels = (
        {"s": 8, "n": 8, "k": 3, "r": 2, "explanations": (4, 7)},
        {"s": 10, "n": 12, "k": 4, "r": 3, "explanations": (8, 15)},
        {"s": 12, "n": 12, "k": 4, "r": 3, "explanations": (16, 31)},
        {"s": 14, "n": 16, "k": 5, "r": 3, "explanations": (32, 63)},
        {"s": 16, "n": 16, "k": 6, "r": 3, "explanations": (64, 127)},
    )
    budgets = (7, 8, 10, 11, 12)
    queries = (
        QuerySpec("faulty", (str,), "does this {source} have a {fault}?"),
        QuerySpec("reach", (int,), "how many {sources} with a {fault} are linked to this {item}?"),
    )
    vocabulary = {"source": "source", "sources": "sources", "item": "item", "items": "items", "fault": "fault"}
    rules_template = (
        "There are {s} {sources} ({letters}) and {n} {items} (1 to {n}). Each {source} is linked "
        "to some {items}:\n{link_lines}\nExactly {k} {sources} have a {fault}, and a {fault} "
        "affects every {item} linked to its {source}. Observed outcome: the {items} affected are "
        "exactly {outcome_text}. Your goal is to find the {k} {sources} with a {fault} that caused "
        "this outcome; several sets of {k} {sources} could explain it. You may ask one question "
        "per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {k} {sources} separated by commas:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(string.ascii_uppercase[: self.params["k"]]) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        low, high = p["explanations"]
        while True:
            links = tuple(
                tuple(sorted(int(x) + 1 for x in rng.choice(p["n"], size=p["r"], replace=False))) for _ in range(p["s"])
            )
            if len(set(links)) < p["s"]:
                continue  # two sources with the same links could only be told apart by `faulty`
            cause = rng.choice(p["s"], size=p["k"], replace=False)
            outcome = tuple(sorted(set().union(*(links[int(i)] for i in cause))))
            if low <= len(explanations(links, outcome, p["k"])) <= high:
                return {"links": links, "outcome": outcome}

    def rules_fields(self) -> dict[str, Any]:
        lines = [
            f"  {self.vocab['source']} {string.ascii_uppercase[i]}: {', '.join(map(str, link))}"
            for i, link in enumerate(self.public["links"])
        ]
        return {
            "link_lines": "\n".join(lines),
            "outcome_text": ", ".join(map(str, self.public["outcome"])),
            "letters": ", ".join(string.ascii_uppercase[: self.params["s"]]),
        }

    def candidate_states(self) -> tuple[Cause, ...]:
        return explanations(tuple(self.public["links"]), tuple(self.public["outcome"]), self.params["k"])

    def query_args(self, name: str) -> list[tuple]:
        if name == "faulty":
            return [(x,) for x in string.ascii_uppercase[: self.params["s"]]]
        return [(i,) for i in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return ("B",) if name == "faulty" else (self.public["outcome"][0],)

    def respond(self, hidden: Cause, name: str, args: tuple) -> Hashable:
        if name == "faulty":
            return args[0] in hidden
        links = self.public["links"]
        return sum(args[0] in links[string.ascii_uppercase.index(x)] for x in hidden)

    def parse_answer(self, text: str) -> Cause:
        s, k = self.params["s"], self.params["k"]
        parts = answer_items(text)
        letters = string.ascii_uppercase[:s]
        values = tuple(sorted({p.upper() for p in parts}))
        if len(parts) != k or len(values) != k or not all(len(v) == 1 and v in letters for v in values):
            raise InvalidAction(
                f"submit exactly {k} distinct {self.vocab['sources']} among {', '.join(letters)}, as {self.answer_format}."
            )
        return values

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(target)
