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

The sent {sequence} is drawn uniformly, the lost {positions} uniformly among the ``d``-subsets,
both drawn again while the outcome has fewer than ``least`` explanations (a level's floor; at
least 81% of the draws pass it); the hidden cause is then drawn uniformly among all
``d``-subsets that explain the outcome (the explanations). Levels grow ``(n, d, least)`` over 2
{kinds}: (8, 3, 4), (10, 4, 6), (12, 5, 10), (14, 6, 15), (16, 7, 20); on the benchmark split
an outcome has on average 11, 23, 39, 108 and 175 explanations (4-21, 6-84, 10-120, 20-294 and
40-560).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
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
    """Every ``d``-subset of positions of ``sent`` whose loss leaves exactly ``got``, in
    lexicographic order: the complements of the embeddings of ``got`` in ``sent`` as a
    subsequence (built directly, so the cost follows the number of explanations)."""
    n = len(sent)
    if len(got) != n - d:
        return ()
    out: list[Lost] = []

    def embed(j: int, start: int, kept: tuple[int, ...]) -> None:
        if j == len(got):
            gone = set(kept)
            out.append(tuple(i for i in range(1, n + 1) if i not in gone))
            return
        for i in range(start, n - (len(got) - j) + 1):  # room left for got[j + 1:]
            if sent[i] == got[j]:
                embed(j + 1, i + 1, (*kept, i + 1))

    embed(0, 0, ())
    return tuple(sorted(out))


class LostItems(Game):
    name = "LostItems"
    structure = "sequence"
    inference = "abductive"
    levels = tuple(
        {"n": n, "d": d, "alphabet": "AB", "least": least}
        for n, d, least in ((8, 3, 4), (10, 4, 6), (12, 5, 10), (14, 6, 15), (16, 7, 20))
    )
    budgets = (7, 8, 9, 10, 12)
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
        n, d, alphabet, least = params["n"], params["d"], params["alphabet"], params["least"]
        while True:  # an outcome with few explanations is too easy a puzzle: draw again
            sent = "".join(alphabet[int(i)] for i in rng.integers(len(alphabet), size=n))
            lost = tuple(sorted(int(i) + 1 for i in rng.choice(n, size=d, replace=False)))
            got = received(sent, lost)
            if len(explanations(sent, got, d)) >= least:
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
