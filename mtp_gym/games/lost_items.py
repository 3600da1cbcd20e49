"""Lost Items (sequence, abductive): explain a received sequence by the items lost on the way.

A {sequence} of ``n`` {items}, each of one of a few {kinds} (letters), was sent; ``d`` of its
{items} were lost on the way and the rest arrived in their original order. Both the sent
{sequence} and the received one are shown in the rules (``public["sent"]``,
``public["received"]``): the received {sequence} is the observed outcome. The hidden cause is
which {positions} of the sent {sequence} were lost. When {kinds} repeat, many sets of
{positions} explain the same outcome; the agent asks ``lost(i)`` (was the {item} at {position}
``i`` lost?) and ``arrived(i, j)`` (how many {items} of {positions} ``i..j`` arrived?), then
submits the lost {positions}. The ``lost`` answers of every {position} are the cause itself,
so the game is well-posed.

The sent {sequence} is drawn uniformly, the lost {positions} uniformly among the ``d``-subsets
(drawn again while the outcome has a single explanation); the hidden cause is then drawn uniformly among all ``d``-subsets that explain the outcome (the
explanations). Levels grow ``(n, d)`` over 2 {kinds}: (6, 2), (8, 3), (10, 4), (12, 5),
(14, 6); on the benchmark split an outcome has on average 4, 12, 15, 30 and 153 explanations (at most
10, 30, 34, 54 and 1287).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from mtp_gym.games.base import Game, QuerySpec, answer_subset

Lost = tuple[int, ...]


def received(sent: str, lost: Lost) -> str:
    """What arrives of ``sent`` when the (1-based) positions ``lost`` are lost."""
    gone = set(lost)
    return "".join(c for i, c in enumerate(sent, 1) if i not in gone)


@lru_cache(maxsize=1024)  # bounded: generated configs bring new outcomes forever
def explanations(sent: str, got: str, d: int) -> tuple[Lost, ...]:
    """Every ``d``-subset of positions of ``sent`` whose loss leaves exactly ``got``."""
    return tuple(lost for lost in combinations(range(1, len(sent) + 1), d) if received(sent, lost) == got)


class LostItems(Game):
    name = "LostItems"
    structure = "sequence"
    inference = "abductive"
    levels = tuple({"n": n, "d": d, "alphabet": "AB"} for n, d in ((6, 2), (8, 3), (10, 4), (12, 5), (14, 6)))
    budgets = (6, 7, 7, 9, 11)
    queries = (
        QuerySpec("lost", (int,), "was the {item} at this {position} of the sent {sequence} lost?"),
        QuerySpec(
            "arrived", (int, int), "how many {items} at {positions} i to j (inclusive) of the sent {sequence} arrived?"
        ),
    )
    vocabulary = {
        "sequence": "sequence",
        "item": "item",
        "items": "items",
        "kind": "kind",
        "kinds": "kinds",
        "position": "position",
        "positions": "positions",
    }
    rules_template = (
        "A {sequence} of {n} {items} was sent; there are two {kinds} of {items}, A and B, and each {item} is of one {kind}. On the way exactly "
        "{d} of the {items} were lost; the others arrived in their original order.\n"
        "Sent ({positions} 1 to {n}): {sent_text}\nArrived: {received_text}\n"
        "Your goal is to find which {positions} of the sent {sequence} were lost. You may ask one "
        "question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {d} lost {positions} separated by commas:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(2 * i + 1) for i in range(self.params["d"])) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        params = cls.levels[level - 1]
        n, d, alphabet = params["n"], params["d"], params["alphabet"]
        while True:  # an outcome with a single explanation is no puzzle: draw again
            sent = "".join(alphabet[int(i)] for i in rng.integers(len(alphabet), size=n))
            lost = tuple(sorted(int(i) + 1 for i in rng.choice(n, size=d, replace=False)))
            got = received(sent, lost)
            if len(explanations(sent, got, d)) > 1:
                return {"sent": sent, "received": got}

    def rules_fields(self) -> dict[str, Any]:
        return {
            "sent_text": " ".join(self.public.get("sent", "")),
            "received_text": " ".join(self.public.get("received", "")),
        }

    def candidate_states(self) -> tuple[Lost, ...]:
        return explanations(self.public["sent"], self.public["received"], self.params["d"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name == "lost":
            return [(i,) for i in range(1, n + 1)]
        return [(i, j) for i in range(1, n + 1) for j in range(i, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "lost" else (2, 5)

    def respond(self, hidden: Lost, name: str, args: tuple) -> Hashable:
        if name == "lost":
            return args[0] in hidden
        i, j = args
        return (j - i + 1) - sum(i <= p <= j for p in hidden)

    def parse_answer(self, text: str) -> Lost:
        n, d = self.params["n"], self.params["d"]
        message = f"submit exactly {d} distinct {self.vocab['positions']} from 1 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, d, 1, n, message)

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(p) for p in target)
