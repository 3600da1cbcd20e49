"""Hidden Number (set, deductive): the paper's minimal example (appendix B).

The env secretly picks a number from ``{1, ..., N}``; the agent may ask whether it is odd,
greater than ``x``, or equal to ``x``, then submits it. Level 1 is the paper's ``{1,2,3,4}``;
levels 2-5 grow the set to 128, 256, 512 and 1024 numbers (shown as ``{1,2,3,...,N}``).

A bisection by ``greater`` needs ``log2(N) + 1`` turns (8 to 11 from level 2), while a scan
(``greater`` or ``equal`` of 1, 2, 3, ... in turn) needs about ``x + 1`` turns to reach the
hidden ``x``: from level 2 the turn budget (19 to 26, the rule of ``mtp_gym/games/README.md``)
covers under 15% of the numbers, so a scan loses most configurations while a bisection that
wastes half its turns still fits.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from typing import Any

import numpy as np

from mtp_gym.games.base import Game, QuerySpec, answer_number
from mtp_gym.games.domains import Story, nouns


@cache
def _numbers(n: int) -> np.ndarray:
    """``1..n`` in :meth:`HiddenNumber.candidate_states` order."""
    numbers = np.arange(1, n + 1)
    numbers.flags.writeable = False  # cached: shared by every game of this size
    return numbers


class HiddenNumber(Game):
    """Hidden Number (set, deductive): find a hidden number of ``1..n``.

    Hidden: one number of ``1..n``. Queries: ``odd()`` (is it odd?), ``greater(x)`` (is it
    greater than ``x``?) and ``equal(x)`` (is it ``x``?), each answered Yes/No. Answer: the number.
    Levels: ``n`` = 4 (the paper's example), 128, 256, 512, 1024; budgets 8 to 26 turns.
    """

    name = "HiddenNumber"
    structure = "set"
    inference = "deductive"
    levels = tuple({"n": n} for n in (4, 128, 256, 512, 1024))
    budgets = (8, 19, 21, 24, 26)
    queries = (
        QuerySpec("odd", (), "is the hidden {number} odd?"),
        QuerySpec("greater", (int,), "is the hidden {number} greater than this one?"),
        QuerySpec("equal", (int,), "is the hidden {number} equal to this one?"),
    )
    vocabulary = {"number": "number"}
    rules_template = (
        "I have selected a hidden {number} from {{{domain}}}. Your goal is to find the {number}. "
        "You may ask one question per turn using the following format:\n{query_formats}\n"
        "When you know the answer, submit:\n{answer_format}\n"
        "You have {budget} turns in all (questions and the answer)."
    )
    answer_format = "<answer>3</answer>"

    #: The nouns and the story of the isomorphic probe (:mod:`mtp_gym.games.domains`).
    domains = nouns("number")
    story = Story(
        setting="One {number} out of {{{domain}}} is the one on file, and nobody has told you which. "
        "Work out which {number} it is.",
        answer="that {number}",
        queries={
            "odd": "is the {number} on file an odd one?",
            "greater": "is the {number} on file larger than this one?",
            "equal": "is this one the {number} on file?",
        },
    )

    def rules_fields(self) -> dict[str, Any]:
        n = self.params["n"]
        shown = range(1, n + 1) if n <= 16 else (1, 2, 3, "...", n)
        return {"domain": ",".join(str(i) for i in shown)}

    def candidate_states(self) -> tuple[int, ...]:
        return tuple(range(1, self.params["n"] + 1))

    def query_args(self, name: str) -> list[tuple]:
        if name == "odd":
            return [()]
        return [(x,) for x in range(1, self.params["n"] + 1)]

    def example_args(self, name: str) -> tuple:
        return {"odd": (), "greater": (2,), "equal": (3,)}[name]

    def answer_columns(self, name: str, args: tuple) -> np.ndarray | None:
        if args and type(args[0]) is not int:
            return None
        numbers = _numbers(self.params["n"])
        if name == "odd":
            return numbers % 2 == 1
        return numbers > args[0] if name == "greater" else numbers == args[0]

    def respond(self, hidden: int, name: str, args: tuple) -> Hashable:
        if name == "odd":
            return hidden % 2 == 1
        if name == "greater":
            return hidden > args[0]
        return hidden == args[0]

    def parse_answer(self, text: str) -> int:
        domain = self.candidate_states()
        message = f"submit one {self.vocab['number']} from {domain[0]} to {domain[-1]}, as {self.answer_format}."
        return answer_number(text, domain, message)
