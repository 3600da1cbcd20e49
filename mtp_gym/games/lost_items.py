"""Lost Items (sequence, abductive): explain a received sequence by the items lost on the way.

A {sequence} of ``n`` {items} of two {kinds}, alternating ``A, B, A, B, ...``, was sent; ``d``
of its {items} were lost on the way and the rest arrived in their original order. Both the
sent {sequence} and the received one are shown in the rules (``public["sent"]``,
``public["received"]``): the received {sequence} is the observed outcome. The hidden cause is
which {positions} of the sent {sequence} were lost. The agent asks ``lost(i)`` (was the {item}
at {position} ``i`` lost?) and ``arrived(j)`` (how many {items} of {positions} ``1..j``
arrived?), then submits the lost {positions}. The ``lost`` answers of every {position} are the
cause itself, so the game is well-posed.

The outcome is informative but never decisive: of the ``C(n, d)`` sets of {positions}, only
those that leave the received {sequence} explain it (a few thousand: one set in 4,000 at level
2, one in 220,000 at level 5). A lost single {item} leaves a visible break in the alternation (``A A`` or ``B B``),
placed up to a shift; a lost pair of neighbours leaves none and may have been anywhere, so the
explanations slide the pairs along the whole {sequence}. A count ``arrived(j)`` splits them
(how many were lost before ``j``?), while a scan of the {positions} in order finds a pair only
by reaching it.

Configurations: ``pairs`` non-overlapping pairs of neighbours and ``singles`` other {items} are
lost, drawn uniformly (drawn again in the rare case of more than ``MOST`` explanations: two
single losses that together act like a lost pair); the hidden cause is then drawn uniformly
among all the explanations. Levels ``(n, pairs, singles)``: (8, 1, 1), (64, 2, 1), (72, 2, 1),
(80, 2, 2), (96, 2, 2): 6, 1830, 2346, 2850 and 4186 explanations per outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cache, lru_cache
from itertools import accumulate
from typing import Any

import numpy as np

from mtp_gym.games.base import Game, QuerySpec, answer_subset
from mtp_gym.games.domains import Story, nouns

Lost = tuple[int, ...]

#: At most this many explanations per outcome (a draw with more is drawn again).
MOST = 5000


def received(sent: str, lost: Lost) -> str:
    """What arrives of ``sent`` when the (1-based) positions ``lost`` are lost."""
    gone = set(lost)
    return "".join(c for i, c in enumerate(sent, 1) if i not in gone)


def _runs(sent: str, got: str) -> list[list[int]]:
    """``run[i][j]``: over how many items ``sent[i:]`` and ``got[j:]`` agree from their start
    (one numpy row per position of ``sent``, from the end)."""
    n, m = len(sent), len(got)
    equal = np.frombuffer(sent.encode(), dtype=np.uint8)[:, None] == np.frombuffer(got.encode(), dtype=np.uint8)
    run = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n - 1, -1, -1):
        run[i, :m] = np.where(equal[i], run[i + 1, 1:] + 1, 0)
    return run.tolist()


@lru_cache(maxsize=16)  # a draw counts, then unranks, the same outcome
def _ways(sent: str, got: str) -> tuple[list[list[int]], Callable[[int, int], int]]:
    """``run`` (:func:`_runs`) and ``ways(i, j)``: how many sets of lost positions of
    ``sent[i:]`` leave exactly ``got[j:]``.

    Tabulated by diagonal, ``lost = i - j`` items lost so far, from the last (``lost = d``: what
    is left must match as it is): keeping ``x`` matching items and losing the next moves to
    ``(i + x + 1, j + x)`` on diagonal ``lost + 1``, so ``ways(i, j)`` adds up a stretch of that
    diagonal, read off its prefix sums."""
    n, m = len(sent), len(got)
    d = n - m
    run = _runs(sent, got)
    table: list[list[int]] = [[]] * (d + 1)  # table[lost][i] = ways(i, i - lost)
    for lost in range(d, -1, -1):
        row = [0] * (n + 1)
        if lost == d:
            for i in range(d, n + 1):
                row[i] = int(run[i][i - d] >= n - i)
        else:
            prefix = [0, *accumulate(table[lost + 1])]  # prefix[k]: the sum of its first k
            for i in range(lost, m + lost + 1):
                j = i - lost
                row[i] = prefix[i + 2 + min(run[i][j], m - j)] - prefix[i + 1]
        table[lost] = row
    return run, lambda i, j: table[i - j][i]


def count_explanations(sent: str, got: str, d: int) -> int:
    """How many ``d``-subsets of positions of ``sent`` leave exactly ``got`` (without listing them)."""
    if len(got) != len(sent) - d or d < 0:
        return 0
    return _ways(sent, got)[1](0, 0)


def nth_explanation(sent: str, got: str, d: int, index: int) -> Lost:
    """``explanations(sent, got, d)[index]`` without listing them: at each lost position, skip
    the explanations that lose an earlier one (counted by ``ways``)."""
    n, m = len(sent), len(got)
    if m != n - d or d < 0:
        raise IndexError(f"explanation {index} of 0")
    run, ways = _ways(sent, got)
    if not 0 <= index < ways(0, 0):
        raise IndexError(f"explanation {index} of {ways(0, 0)}")
    lost: list[int] = []
    i = j = 0
    while n - i != m - j:
        for x in range(min(run[i][j], m - j) + 1):
            here = ways(i + x + 1, j + x)
            if index < here:
                lost.append(i + x + 1)
                i, j = i + x + 1, j + x
                break
            index -= here
    return tuple(lost)


@lru_cache(maxsize=1024)  # bounded: generated configs bring new outcomes forever
def explanations(sent: str, got: str, d: int) -> tuple[Lost, ...]:
    """Every ``d``-subset of positions of ``sent`` whose loss leaves exactly ``got``, in
    lexicographic order. Built lost position by lost position: between two lost positions the
    kept items must match ``got`` (``run``), and a branch is followed only if the rest can
    still be explained (``ends``), so the cost follows the number of explanations."""
    n, m = len(sent), len(got)
    if m != n - d or d < 0:
        return ()
    run = _runs(sent, got)

    @cache
    def ends(i: int, j: int) -> bool:
        """Whether ``sent[i:]`` can lose exactly the items that leave ``got[j:]``."""
        if n - i == m - j:
            return run[i][j] >= m - j
        return any(ends(i + x + 1, j + x) for x in range(min(run[i][j], m - j) + 1))

    out: list[Lost] = []

    def walk(i: int, j: int, lost: tuple[int, ...]) -> None:
        if n - i == m - j:
            out.append(lost)
            return
        for x in range(min(run[i][j], m - j) + 1):  # keep x matching items, then lose sent[i + x]
            if ends(i + x + 1, j + x):
                walk(i + x + 1, j + x, (*lost, i + x + 1))

    if ends(0, 0):
        walk(0, 0, ())
    return tuple(out)


class LostItems(Game):
    """Lost Items (sequence, abductive): which positions of a sent sequence were lost?

    Shown: the sent sequence of ``n`` items alternating between two kinds and the received one,
    ``d`` items shorter. Hidden: the lost positions (one of the sets that explain the received
    sequence). Queries: ``lost(i)`` (was position ``i`` lost?, Yes/No) and ``arrived(j)`` (how many
    items of positions ``1..j`` arrived?). Answer: the lost positions. Levels ``(n, d)``: (8, 3),
    (64, 5), (72, 5), (80, 6), (96, 6): 6 to 4186 explanations.
    """

    name = "LostItems"
    structure = "sequence"
    inference = "abductive"
    #: ``n`` items alternating A, B; ``pairs`` stretches of two neighbouring items and ``singles``
    #: single items lost (``d = 2 * pairs + singles``).
    levels = tuple(
        {"n": n, "pairs": pairs, "singles": singles, "d": 2 * pairs + singles}
        for n, pairs, singles in ((8, 1, 1), (64, 2, 1), (72, 2, 1), (80, 2, 2), (96, 2, 2))
    )
    budgets = (7, 21, 23, 23, 24)
    queries = (
        QuerySpec("lost", (int,), "was the {item} at this {position} of the sent {sequence} lost?"),
        QuerySpec(
            "arrived",
            (int,),
            "how many {items} at {positions} 1 to this one (inclusive) of the sent {sequence} arrived?",
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
        "A {sequence} of {n} {items} was sent; there are two {kinds} of {items}, A and B, and the sent "
        "{sequence} alternates them, starting with A. On the way exactly {d} of the {items} were lost; the "
        "others arrived in their original order.\n"
        "Sent ({positions} 1 to {n}): {sent_text}\nArrived: {received_text}\n"
        "Your goal is to find which {positions} of the sent {sequence} were lost. You may ask one "
        "question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {d} lost {positions} separated by commas:\n"
        "{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "sequence item items kind kinds position positions",
        education={
            "sequence": "stack",
            "item": "exam paper",
            "items": "exam papers",
            "kind": "subject",
            "kinds": "subjects",
            "position": "place",
            "positions": "places",
        },
        healthcare={
            "sequence": "shipment",
            "item": "blood sample",
            "items": "blood samples",
            "kind": "blood type",
            "kinds": "blood types",
            "position": "slot",
            "positions": "slots",
        },
        transportation={
            "sequence": "convoy",
            "item": "truck",
            "items": "trucks",
            "kind": "model",
            "kinds": "models",
            "position": "place",
            "positions": "places",
        },
        manufacturing={
            "sequence": "production run",
            "item": "part",
            "items": "parts",
            "kind": "variant",
            "kinds": "variants",
            "position": "slot",
            "positions": "slots",
        },
        law={
            "sequence": "case file",
            "item": "document",
            "items": "documents",
            "kind": "document type",
            "kinds": "document types",
            "position": "page",
            "positions": "pages",
        },
    )
    story = Story(
        setting="Someone dispatched a {sequence} holding {n} {items}. Each {item} belongs to one of two "
        "{kinds}, called A and B, and the dispatched {sequence} switched {kind} at every {item}, A first. "
        "Somewhere along the way, exactly {d} {items} went missing, while the rest came through still in "
        "the order they were sent.\n"
        "Dispatched, in {positions} 1 to {n}: {sent_text}\nReceived: {received_text}\n"
        "Work out which {positions} of the dispatched {sequence} held the missing {items}.",
        answer="the {d} {positions} whose {items} went missing, with commas between them",
        queries={
            "lost": "did the {item} in this {position} of the dispatched {sequence} go missing?",
            "arrived": "of the {items} the dispatched {sequence} held at {positions} 1 up to this one, both ends "
            "counted, how many came through?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(2 * i + 1) for i in range(self.params["d"])) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        params = cls.levels[level - 1]
        n, pairs, singles, d = params["n"], params["pairs"], params["singles"], params["d"]
        sent = "AB" * (n // 2)
        while True:
            starts = sorted(int(s) + 1 for s in rng.choice(n - 1, size=pairs, replace=False))
            if any(b - a < 2 for a, b in zip(starts, starts[1:])):
                continue  # the lost pairs of neighbours do not overlap
            gone = {p + k for p in starts for k in (0, 1)}
            rest = [i for i in range(1, n + 1) if i not in gone]
            gone.update(int(i) for i in rng.choice(rest, size=singles, replace=False))
            got = received(sent, tuple(sorted(gone)))
            if count_explanations(sent, got, d) <= MOST:  # single losses that look like a lost pair: draw again
                return {"sent": sent, "received": got}

    def rules_fields(self) -> dict[str, Any]:
        return {
            "sent_text": " ".join(self.public.get("sent", "")),
            "received_text": " ".join(self.public.get("received", "")),
        }

    def candidate_states(self) -> tuple[Lost, ...]:
        return explanations(self.public["sent"], self.public["received"], self.params["d"])

    def sample_hidden(self, rng: np.random.Generator) -> Lost:
        """Uniform over the explanations (the default's draw), reading only the drawn one."""
        sent, got, d = self.public["sent"], self.public["received"], self.params["d"]
        return nth_explanation(sent, got, d, int(rng.integers(count_explanations(sent, got, d))))

    def query_args(self, name: str) -> list[tuple]:
        return [(i,) for i in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "lost" else (5,)

    def respond(self, hidden: Lost, name: str, args: tuple) -> Hashable:
        if name == "lost":
            return args[0] in hidden
        return args[0] - sum(p <= args[0] for p in hidden)

    def parse_answer(self, text: str) -> Lost:
        n, d = self.params["n"], self.params["d"]
        message = f"submit exactly {d} distinct {self.vocab['positions']} from 1 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, d, 1, n, message)

    def format_answer(self, target: Lost) -> str:
        return ", ".join(str(p) for p in target)
