"""Hidden Subset (set, deductive): find a hidden set of 1 to k items of {1..n} from membership and counts.

The env hides a set ``S`` of between 1 and ``k`` distinct {items} of ``{1, ..., n}``: ``n`` and
``k`` are told, the size of ``S`` is not (it is drawn uniformly from 1..k, then its {items}
uniformly). Queries: ``member(x)`` (is ``x`` in ``S``?) and ``count(a, b)`` (how many {items}
of ``S`` lie in ``a..b``, ``a <= b``; ``count(1, n)`` is the size). The agent submits the whole
set, in any order; the answer follows deductively from the replies (asking every ``member(x)``
always suffices). Levels grow ``(n, k)``: (6, 2), (28, 3), (34, 3), (40, 3), (46, 3), i.e. 21,
3682, 6579, 10700 and 16261 candidate sets (level 1 is small).

From level 2 on, a scan with exact books (``member`` of 1, 2, 3, ..., ``count(x, x)``, or
``count(1, x)`` for growing ``x``) can stop early only once it has found ``k`` {items}; with
fewer it must reach ``n``, beyond the budget (about 2.5 times the oracle's turns, the rule of
``mtp_gym/games/README.md``), and with ``k`` of them it needs the largest one to come early. A
planner asks the size first and halves the ranges that hold {items}.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Sequence
from functools import cache
from itertools import combinations

import numpy as np

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import Evidence, Game, QuerySpec, answer_ints
from mtp_gym.games.domains import Story, nouns


@cache
def _subsets(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Every set of 1 to ``k`` items of ``1..n``, as a sorted tuple (by size, then in order)."""
    return tuple(s for size in range(1, k + 1) for s in combinations(range(1, n + 1), size))


@cache
def _counts_up_to(n: int, k: int) -> np.ndarray:
    """``counts[s, t]``: how many items of subset ``s`` of :func:`_subsets` are at most ``t``
    (``t`` from 0 to ``n``)."""
    subsets = _subsets(n, k)
    members = np.zeros((len(subsets), n + 1), dtype=np.int16)  # counts up to k; a difference may be negative
    for row, subset in enumerate(subsets):
        members[row, subset] = 1
    counts = np.cumsum(members, axis=1)
    counts.flags.writeable = False  # cached: shared by every game of this size
    return counts


class HiddenSubset(Game):
    """Hidden Subset (set, deductive): find a hidden set of 1 to ``k`` elements of ``1..n``.

    Hidden: a set of between 1 and ``k`` distinct elements (its size is not told). Queries:
    ``member(x)`` (is ``x`` in the set?, Yes/No) and ``count(a, b)`` (how many of its elements lie
    in ``a..b``?). Answer: every element of the set, in any order. Levels ``(n, k)``: (6, 2),
    (28, 3), (34, 3), (40, 3), (46, 3): 21 to 16261 sets.
    """

    name = "HiddenSubset"
    structure = "set"
    inference = "deductive"
    levels = tuple({"n": n, "k": k} for n, k in ((6, 2), (28, 3), (34, 3), (40, 3), (46, 3)))
    budgets = (12, 23, 25, 27, 27)
    queries = (
        QuerySpec("member", (int,), "is this {item} in the hidden {collection}?"),
        QuerySpec("count", (int, int), "how many {items} of the hidden {collection} lie in this range (inclusive)?"),
    )
    vocabulary = {"item": "element", "items": "elements", "collection": "set"}
    rules_template = (
        "I have selected a hidden {collection} of distinct {items} from the {items} numbered 1 to {n}. It "
        "holds at least 1 and at most {k} {items}; how many is not told. Your goal is to find every {item} "
        "of the hidden {collection}. You may ask one question per turn using the following format:\n"
        "{query_formats}\nWhen you know the answer, submit all the {items} of the {collection} separated by "
        "commas:\n{answer_format}\nYou have {budget} turns in all (questions and the answer)."
    )

    #: Two elements at every level: the example does not suggest that the set has ``k``.
    answer_format = "<answer>1, 2</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns("item items collection")
    story = Story(
        setting="Out of sight, a {collection} of different {items} has been put together from the {items} "
        "numbered 1 to {n}; it has no fewer than 1 and no more than {k} of them, and its size is kept secret. "
        "Find out which {items} belong to it.",
        answer="every {item} of the {collection}, with commas between them",
        queries={
            "member": "does this {item} belong to the {collection}?",
            "count": "how many {items} of the {collection} have a number in this range, both ends included?",
        },
    )

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return _subsets(self.params["n"], self.params["k"])

    def sample_hidden(self, rng: np.random.Generator) -> tuple[int, ...]:
        n, k = self.params["n"], self.params["k"]
        size = int(rng.integers(1, k + 1))
        return tuple(sorted(int(x) + 1 for x in rng.choice(n, size=size, replace=False)))

    def sample_consistent(
        self, evidence: Sequence[Evidence], rng: np.random.Generator, n: int
    ) -> list[tuple[int, ...]]:
        """Up to ``n`` sets that agree with ``evidence``, drawn uniformly from those of the
        enumeration (used when the game is played with ``enumerable = False``: rejection sampling
        of ``sample_hidden`` rarely meets a given set of the largest size once the replies have
        narrowed them down)."""
        states = [s for s in self.candidate_states() if all(self.respond(s, q, a) == v for q, a, v in evidence)]
        if len(states) > n:
            states = [states[i] for i in sorted(rng.choice(len(states), size=n, replace=False))]
        return states

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name == "member":
            return [(x,) for x in range(1, n + 1)]
        return [(a, b) for a in range(1, n + 1) for b in range(a, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "member" else (2, 5)

    def answer_columns(self, name: str, args: tuple) -> np.ndarray | None:
        n, k = self.params["n"], self.params["k"]
        if not all(type(a) is int and 1 <= a <= n for a in args):
            return None
        counts = _counts_up_to(n, k)
        if name == "member":
            return counts[:, args[0]] > counts[:, args[0] - 1]
        return counts[:, args[1]] - counts[:, args[0] - 1]

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        if name == "member":
            return args[0] in hidden
        return bisect_right(hidden, args[1]) - bisect_left(hidden, args[0])

    def parse_answer(self, text: str) -> tuple[int, ...]:
        n, k = self.params["n"], self.params["k"]
        values = answer_ints(text, self.answer_format)
        out = tuple(sorted(set(values)))
        if not 1 <= len(values) == len(out) <= k or not all(1 <= x <= n for x in out):
            raise InvalidAction(
                f"submit between 1 and {k} distinct {self.vocab['items']} from 1 to {n}, as {self.answer_format}."
            )
        return out

    def format_answer(self, target: tuple[int, ...]) -> str:
        return ", ".join(str(x) for x in target)
