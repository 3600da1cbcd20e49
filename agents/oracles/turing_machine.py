"""Turing Machine (TurnBench-MS) oracle: exact hypothesis tracking + expected-information play.

The oracle reads the verifier cards from the instructions (the text a player sees) and keeps
every hypothesis still consistent with the results
(:class:`mtp_gym.turing_machine.inference.TuringMachineBelief`, hypotheses weighted uniformly).

Play, per stage (queries are the cost to minimise, rounds second):

* proposal: the code whose best single query has the highest expected information gain
  about the answer (ties: the sum of the gains of all its queries, then the lowest code);
* question: query the verifier with the highest expected gain on the round's code while that
  gain is positive and at least ``patience`` times the best gain any fresh code could give
  (else SKIP and start a new round); SKIP as soon as the answer is certain;
* deduce: submit when every remaining hypothesis has the same answer, else SKIP.

When a result contradicts every hypothesis (a published setup with a redundant verifier, whose
truth the no-redundancy rule excludes), the belief drops that rule and replays the results;
``robust=True`` also refuses to submit until the hypotheses without that rule agree.

Figures (the oracle on the published and generated setups, beside the paper's Best Human
and best model): ``python benchmarks/turing_machine.py``. :func:`min_expected_queries` gives
the exact optimum of the expected number of classic-mode queries, to compare the greedy play
with.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from mtp_gym.turing_machine import rules
from mtp_gym.turing_machine.inference import TuringMachineBelief, read_instructions


class TuringMachineOracle:
    """Plays the published protocol from the observation text and ``info["feedback"]``.

    ``patience`` (0-1): keep querying the round's code while its best gain is at least this
    fraction of the best gain of any code (lower: fewer rounds, more queries).
    ``state_beliefs``: add ``<BELIEF>`` tags (the criteria each verifier's card may still have).
    ``robust``: also track the hypotheses without the no-redundancy rule and submit only when
    they agree too (solves the published setups whose truth breaks that rule, at the cost
    of a few more queries).
    """

    def __init__(self, patience: float = 0.5, state_beliefs: bool = False, robust: bool = False) -> None:
        self.patience = patience
        self.state_beliefs = state_beliefs
        self.robust = robust
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.belief: TuringMachineBelief | None = None
        self.relaxed: TuringMachineBelief | None = None
        self.cot = False
        self.stage = "proposal"
        self.code: int | None = None

    # ------------------------------------------------------------------ policy
    def act(self, observation: str, info: dict[str, Any]) -> str:
        fb = info.get("feedback") or {}
        if self.belief is None:
            cards, nightmare, self.cot = read_instructions(observation)
            self.belief = TuringMachineBelief(cards, nightmare)
            self.relaxed = TuringMachineBelief(cards, nightmare, non_redundant=False) if self.robust else None
            self.stage = "proposal"
        elif "error" not in fb:
            if fb.get("result") is not None and self.code is not None:
                for belief in (self.belief, self.relaxed):
                    if belief is not None:
                        belief.observe(self.code, int(fb["verifier"]), fb["result"] == "PASS")
            self.stage = fb.get("next_stage") or self.stage
        return self._format(self._decide())

    def _decide(self) -> str:
        belief = self.belief
        assert belief is not None  # made at the first observation (act)
        certain = belief.certain_answer()
        if certain is not None and self.relaxed is not None and self.relaxed.certain_answer() is None:
            belief, certain = self.relaxed, None  # the strict rules agree; make sure without them
        if self.stage == "proposal":
            if certain is not None:
                self.code = certain
            else:
                gains = belief.information_gain()
                best = gains.max(axis=0)
                order = np.lexsort((np.arange(rules.N_CODES), -gains.sum(axis=0), -best))
                self.code = int(order[0])
            return rules.choice_str(rules.CODES[self.code])
        if self.stage == "question":
            if certain is not None:
                return "SKIP"
            gains = belief.information_gain()
            here = gains[:, self.code]
            slot = int(np.argmax(here))
            if here[slot] <= 1e-12 or here[slot] < self.patience * gains.max() - 1e-12:
                return "SKIP"
            return str(slot)
        if certain is not None:
            return rules.choice_str(rules.CODES[certain])
        return "SKIP"

    def _format(self, choice: str) -> str:
        parts = []
        assert self.belief is not None  # made at the first observation (act)
        if self.cot:
            n = len(self.belief.candidate_answers())
            parts.append(
                f"<REASONING>: {n} candidate code(s) remain consistent with every result and the game's rules."
            )
        parts.append(f"<CHOICE>: {choice}")
        if self.state_beliefs:
            stated = ", ".join(
                f"{i}=" + "|".join(f"#{k}" for k in crits) for i, crits in enumerate(self.belief.criteria_beliefs())
            )
            parts.append(f"<BELIEF>: {stated}")
        return "\n".join(parts)


def min_expected_queries(card_ids: tuple[int, ...]) -> float:
    """Exact minimum expected number of verifier queries to know the answer in classic mode,
    hypotheses uniform, ignoring that a round fixes its code (so a lower bound for any
    player). Exhaustive search over the distinct splits of the hypothesis set, memoised."""
    belief = TuringMachineBelief(card_ids, nightmare=False)
    truth, answers = belief.truth, belief.answers
    n = len(answers)
    full = (1 << n) - 1
    weights = 1 << np.arange(n, dtype=object)
    splits = sorted(
        {int(truth[:, i, c].astype(object) @ weights) for i in range(truth.shape[1]) for c in range(rules.N_CODES)}
        - {0, full}
    )
    by_answer: dict[int, int] = {}
    for h, a in enumerate(answers.tolist()):
        by_answer[a] = by_answer.get(a, 0) | 1 << h

    @cache
    def total(s: int) -> int:  # queries summed over the hypotheses of s
        if sum(1 for m in by_answer.values() if m & s) <= 1:
            return 0
        best = None
        for p in splits:
            yes, no = s & p, s & ~p
            if yes and no:
                cost = total(yes) + total(no)
                best = cost if best is None or cost < best else best
        assert best is not None  # two answers or more: some verifier's split separates them
        return s.bit_count() + best

    return total(full) / n
