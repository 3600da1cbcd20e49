"""Fault Diagnosis (set, abductive): explain an observed set of affected {items} by its causes.

The configuration (public) shows ``s`` {sources} numbered ``1..s``, each linked to ``r`` = 2
{items} among ``1..n``, the number ``k`` of {sources} that have a {fault}, and the observed
outcome: the set of ``k * r`` {items} affected, which is exactly the union of the links of the
``k`` faulty {sources} (so their links split it, none overlapping). The hidden state is the
cause: those ``k`` {sources}. Of the many ``k``-sets of {sources}, the outcome rules out all but
the few whose links lie inside it and split it (from level 2, millions of 6-sets down to 50 to
1500); the agent reasons backward from the outcome and gathers evidence to single out the
true cause:

* ``faulty(x)``: does {source} ``x`` have a {fault}? (Yes/No)
* ``affected(x)``: which {items} the faulty {sources} numbered ``1`` to ``x`` affect (the outcome
  of those {faults} alone; a set of {items}, possibly none)

Asking ``faulty`` on every {source} always identifies the cause, so the game is well-posed.

Configurations: the outcome is a random set of ``k * r`` {items}; ``e`` {sources} are linked
inside it (``k`` of them split it, the others are random) and ``d`` more reach outside it (they
cannot be at fault); the {sources} are numbered in a random order. A draw is kept when the
number of explanations lies in the level's range (after a bounded number of draws, the closest
one is kept), and the hidden cause is uniform over the explanations (the posterior under a
uniform prior). Levels ``(n, k, e, d)`` and explanations: (8, 3, 10, 2) 4-7, (16, 6, 33, 4)
50-140, (16, 6, 36, 4) 120-300, (18, 6, 40, 6) 300-700, (20, 6, 46, 6) 700-1500.

From level 2 there are 37 to 52 {sources}, and a scan ``faulty(1), faulty(2), ...`` (or
``affected`` of 1, 2, ... in turn, which tells no more), even skipping the {sources} the
replies settle, must reach about the fifth faulty one before the outcome pins the last: more
questions than the budget in most configurations. ``affected`` over a well-chosen prefix tells
which part of the outcome its {sources} account for, and halving the prefixes finds the cause
in about 3 turns. The game used to ask ``reach(i)`` (how many faulty {sources} an {item} is
linked to): the outcome {items} were few, and a scan of them kept up with the oracle.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from mtp_gym.games.base import Game, QuerySpec, answer_subset
from mtp_gym.games.domains import Story, nouns

#: Per level: {items} ``n``, faulty {sources} ``k``, {sources} linked inside the outcome ``e``
#: and reaching outside it ``d``, and the range of explanations a configuration must have.
LEVELS = (
    (8, 3, 10, 2, (4, 7)),
    (16, 6, 33, 4, (50, 140)),
    (16, 6, 36, 4, (120, 300)),
    (18, 6, 40, 6, (300, 700)),
    (20, 6, 46, 6, (700, 1500)),
)
R = 2  # {items} per link
TRIES = 50  # draws per configuration before the closest one is kept
Cause = tuple  # sorted source numbers (1-based)
Links = tuple  # per source (numbered 1, 2, ...), its sorted item numbers


def _mask(items: tuple[int, ...]) -> int:
    return sum(1 << (i - 1) for i in items)


@lru_cache(maxsize=1024)  # bounded: generated configs bring new keys forever
def explanations(links: Links, outcome: tuple[int, ...], k: int) -> tuple[Cause, ...]:
    """Every ``k``-set of {sources} (numbers, sorted) whose links' union is exactly ``outcome``,
    sorted. The outcome has ``k * r`` {items} and every link ``r``, so such a set splits the
    outcome (:func:`explanation_masks`)."""
    s = len(links)
    return tuple(_sources(mask, s) for mask in explanation_masks(links, outcome))


@lru_cache(maxsize=256)  # a draw counts them, then reads one; the list of tuples waits for a player
def explanation_masks(links: Links, outcome: tuple[int, ...]) -> tuple[int, ...]:
    """The sets of {sources} whose links split ``outcome``, each a bitmask with {source} ``x`` at
    bit ``s - x`` (``s`` links): the lowest number is the highest bit, so the masks in decreasing
    order (as returned) are the sets in increasing order. A search covers the lowest uncovered
    {item} by each link that holds it and fits."""
    target = _mask(outcome)
    s = len(links)
    holding: dict[int, list[tuple[int, int]]] = {}  # lowest-bit index -> links (source bit, mask) holding it
    for x, link in enumerate(links, 1):
        m = _mask(link)
        if m & ~target == 0:
            for i in link:
                holding.setdefault(i - 1, []).append((1 << (s - x), m))
    ends: dict[int, list[int]] = {target: [0]}

    def completions(covered: int) -> list[int]:
        # the sets of links that split what ``covered`` leaves; reached by several partial
        # sets, a covered set is completed once
        done = ends.get(covered)
        if done is None:
            free = target & ~covered
            done = ends[covered] = [
                bit | rest
                for bit, m in holding.get((free & -free).bit_length() - 1, ())
                if m & covered == 0
                for rest in completions(covered | m)
            ]
        return done

    return tuple(sorted(completions(0), reverse=True))


def _sources(mask: int, s: int) -> Cause:
    """The {sources} of a mask of :func:`explanation_masks`, in increasing order."""
    cause = []
    while mask:
        top = mask.bit_length()
        cause.append(s + 1 - top)
        mask ^= 1 << (top - 1)
    return tuple(cause)


def _draw(n: int, k: int, e: int, d: int, rng: np.random.Generator) -> tuple[Links, tuple[int, ...]]:
    """A random outcome of ``k * R`` {items} among ``1..n`` and ``e + d`` distinct ``R``-sets of
    {items} (links, numbered at random): ``k`` of them split the outcome, ``e - k`` more lie
    inside it, and ``d`` reach outside it."""
    order = [int(i) + 1 for i in rng.permutation(n)]
    o = k * R
    outcome, outside = tuple(sorted(order[:o])), set(order[o:])
    split = [tuple(sorted(order[j : j + R])) for j in range(0, o, R)]
    inside = [c for c in combinations(outcome, R) if c not in split]
    across = [c for c in combinations(range(1, n + 1), R) if outside.intersection(c)]
    links = split + [inside[int(i)] for i in rng.choice(len(inside), size=e - k, replace=False)]
    links += [across[int(i)] for i in rng.choice(len(across), size=d, replace=False)]
    return tuple(links[int(i)] for i in rng.permutation(len(links))), outcome


class FaultDiagnosis(Game):
    """Fault Diagnosis (set, abductive): which faulty sources explain the affected items?

    Shown: ``s`` sources, each linked to 2 of the items ``1..n``, and the outcome, the items
    affected. Hidden: the ``k`` faulty sources, one of the sets whose links split the outcome
    exactly. Queries: ``faulty(x)`` (is source ``x`` faulty?, Yes/No) and ``affected(x)`` (the items
    the faulty sources ``1..x`` affect). Answer: the ``k`` faulty sources. Levels ``(n, k)``:
    (8, 3), (16, 6), (16, 6), (18, 6), (20, 6) with 12, 37, 40, 46 and 52 sources: 4-7, 50-140,
    120-300, 300-700 and 700-1500 explanations.
    """

    name = "FaultDiagnosis"
    structure = "set"
    inference = "abductive"
    levels = tuple({"n": n, "k": k, "e": e, "d": d, "explanations": x} for n, k, e, d, x in LEVELS)
    budgets = (6, 7, 7, 8, 8)
    queries = (
        QuerySpec("faulty", (int,), "does this {source} have a {fault}?"),
        QuerySpec(
            "affected",
            (int,),
            "which {items} do the {sources} with a {fault} numbered from 1 to this one affect?",
        ),
    )
    vocabulary = {"source": "source", "sources": "sources", "item": "item", "items": "items", "fault": "fault"}
    rules_template = (
        "There are {s} {sources} (numbered 1 to {s}) and {n} {items} (1 to {n}). Each {source} is "
        "linked to two {items}:\n{link_lines}\nExactly {k} {sources} have a {fault}, and a {fault} "
        "affects every {item} linked to its {source}. Observed outcome: the {items} affected are "
        "exactly {outcome_text}. Your goal is to find the {k} {sources} with a {fault} that caused "
        "this outcome; several sets of {k} {sources} could explain it. You may ask one question "
        "per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit the {k} {sources} separated by commas:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns(
        "source sources item items fault",
        education={
            "source": "teacher",
            "sources": "teachers",
            "item": "class",
            "items": "classes",
            "fault": "grading error",
        },
        healthcare={
            "source": "supplier",
            "sources": "suppliers",
            "item": "ward",
            "items": "wards",
            "fault": "contaminated batch",
        },
        transportation={
            "source": "signal box",
            "sources": "signal boxes",
            "item": "line",
            "items": "lines",
            "fault": "power failure",
        },
        manufacturing={
            "source": "supplier",
            "sources": "suppliers",
            "item": "product line",
            "items": "product lines",
            "fault": "defective part",
        },
        law={
            "source": "informant",
            "sources": "informants",
            "item": "case",
            "items": "cases",
            "fault": "false statement",
        },
    )
    story = Story(
        setting="The {s} {sources} go by the numbers 1 to {s}, and the {n} {items} by the numbers 1 to {n}. "
        "The two {items} each {source} is tied to are listed below:\n{link_lines}\n"
        "Behind the scenes, exactly {k} of the {sources} have a {fault}, and whenever a {source} has one, "
        "every {item} tied to that {source} is hit. What was seen: the {items} hit were {outcome_text}, "
        "and no others. Find out which {k} {sources} are to blame; more than one group of {k} {sources} "
        "would account for what was seen.",
        answer="the numbers of those {k} {sources}, with commas between them",
        queries={
            "faulty": "does a {fault} lie with this {source}?",
            "affected": "counting only the {sources} numbered from 1 up to this one, which {items} do those "
            "with a {fault} hit?",
        },
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(i) for i in range(1, self.params["k"] + 1)) + "</answer>"

    @classmethod
    def sample_public(cls, level: int, rng: np.random.Generator) -> dict[str, Any]:
        p = cls.levels[level - 1]
        low, high = p["explanations"]
        best: tuple[int, dict[str, Any]] | None = None
        for _ in range(TRIES):
            links, outcome = _draw(p["n"], p["k"], p["e"], p["d"], rng)
            count = len(explanation_masks(links, outcome))
            miss = max(low - count, count - high, 0)
            if best is None or miss < best[0]:
                best = (miss, {"links": links, "outcome": outcome})
            if miss == 0:
                break
        assert best is not None
        return best[1]

    def rules_fields(self) -> dict[str, Any]:
        lines = [
            f"  {self.vocab['source']} {x}: {', '.join(map(str, link))}"
            for x, link in enumerate(self.public["links"], 1)
        ]
        return {
            "s": len(self.public["links"]),
            "link_lines": "\n".join(lines),
            "outcome_text": ", ".join(map(str, self.public["outcome"])),
        }

    def candidate_states(self) -> tuple[Cause, ...]:
        return explanations(tuple(self.public["links"]), tuple(self.public["outcome"]), self.params["k"])

    def sample_hidden(self, rng: np.random.Generator) -> Cause:
        """Uniform over the explanations (the default's draw), converting only the one drawn."""
        links = tuple(self.public["links"])
        masks = explanation_masks(links, tuple(self.public["outcome"]))
        return _sources(masks[int(rng.integers(len(masks)))], len(links))

    def query_args(self, name: str) -> list[tuple]:
        return [(x,) for x in range(1, len(self.public["links"]) + 1)]

    def example_args(self, name: str) -> tuple:
        return (2,) if name == "faulty" else (len(self.public["links"]) // 2,)

    def respond(self, hidden: Cause, name: str, args: tuple) -> str | tuple[int, ...]:
        if name == "faulty":  # yes/no as text: one info kind with the tuple replies of `affected`
            return "yes" if args[0] in hidden else "no"
        links = self.public["links"]
        return tuple(sorted({i for x in hidden if x <= args[0] for i in links[x - 1]}))

    def render_value(self, name: str, args: tuple, value: str | tuple[int, ...]) -> str:
        if name == "affected":
            return ", ".join(map(str, value)) if value else "none"
        return str(value).capitalize()

    def wrong_answer(self, name: str, args: tuple, hidden: Any = None) -> Hashable:
        """The other yes/no for ``faulty``; for ``affected``, the default, or, when every
        explanation gives the same reply, that reply without the {items} of its
        highest-numbered faulty {source} (or, for none, the first link inside the outcome)."""
        h = self.hidden if hidden is None else hidden
        truth = self.respond(h, name, args)
        if name == "faulty":
            return "no" if truth == "yes" else "yes"
        if any(self.respond(s, name, args) != truth for s in self.candidate_states()):
            return super().wrong_answer(name, args, hidden)
        links = self.public["links"]
        if truth:
            last = links[max(x for x in h if x <= args[0]) - 1]
            return tuple(i for i in truth if i not in last)
        return next(link for link in links if set(link) <= set(self.public["outcome"]))

    def parse_answer(self, text: str) -> Cause:
        s, k = len(self.public["links"]), self.params["k"]
        message = f"submit exactly {k} distinct {self.vocab['sources']} from 1 to {s}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, k, 1, s, message)

    def format_answer(self, target: Cause) -> str:
        return ", ".join(str(x) for x in target)
