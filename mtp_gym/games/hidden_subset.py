"""Hidden Subset (set, deductive): find a hidden k-subset of {1..n} from membership and counts.

The env hides a subset ``S`` of ``k`` distinct {item}s of ``{1, ..., n}`` (``n`` and ``k`` are
told). Queries: ``member(x)`` (is ``x`` in ``S``?) and ``count(a, b)`` (how many {item}s of
``S`` lie in ``a..b``, ``a <= b``). The agent submits the whole subset, in any order; the
answer follows deductively from the replies (asking every ``member(x)`` always suffices).
Levels grow ``(n, k)``: (6, 2), (28, 2), (36, 2), (36, 3), (40, 3), i.e. 15, 378, 630, 7140
and 9880 states. From level 2 on there are more {items} than turns (about twice as many): one
``member`` query per {item} cannot finish, the ``count`` queries must split the range.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from itertools import combinations

from mtp_gym.games.base import Game, QuerySpec, answer_subset


@cache
def _subsets(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations(range(1, n + 1), k))


class HiddenSubset(Game):
    name = "HiddenSubset"
    structure = "set"
    inference = "deductive"
    levels = tuple({"n": n, "k": k} for n, k in ((6, 2), (28, 2), (36, 2), (36, 3), (40, 3)))
    budgets = (9, 17, 18, 20, 21)
    queries = (
        QuerySpec("member", (int,), "is this {item} in the hidden {collection}?"),
        QuerySpec("count", (int, int), "how many {items} of the hidden {collection} lie in this range (inclusive)?"),
    )
    vocabulary = {"item": "element", "items": "elements", "collection": "set"}
    rules_template = (
        "I have selected a hidden {collection} of exactly {k} distinct {items} from the {items} "
        "numbered 1 to {n}. Your goal is to find every {item} of the hidden {collection}. You may "
        "ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit all {k} {items} separated by commas:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )

    @property
    def answer_format(self) -> str:  # type: ignore[override]
        return "<answer>" + ", ".join(str(i) for i in range(1, self.params["k"] + 1)) + "</answer>"

    def candidate_states(self) -> tuple[tuple[int, ...], ...]:
        return _subsets(self.params["n"], self.params["k"])

    def query_args(self, name: str) -> list[tuple]:
        n = self.params["n"]
        if name == "member":
            return [(x,) for x in range(1, n + 1)]
        return [(a, b) for a in range(1, n + 1) for b in range(a, n + 1)]

    def example_args(self, name: str) -> tuple:
        return (3,) if name == "member" else (2, 5)

    def respond(self, hidden: tuple[int, ...], name: str, args: tuple) -> Hashable:
        if name == "member":
            return args[0] in hidden
        a, b = args
        return sum(a <= x <= b for x in hidden)

    def parse_answer(self, text: str) -> tuple[int, ...]:
        n, k = self.params["n"], self.params["k"]
        message = f"submit exactly {k} distinct {self.vocab['items']} from 1 to {n}, as {self.answer_format}."
        return answer_subset(text, self.answer_format, k, 1, n, message)

    def format_answer(self, target: Hashable) -> str:
        return ", ".join(str(x) for x in target)
