"""Turing Machine (TurnBench-MS): the hypotheses a player can still hold, from what it sees.

:func:`read_instructions` reads the verifier cards, the mode and the prompt style from the
first observation. :class:`TuringMachineBelief` keeps every hypothesis still consistent with
the results: a criteria assignment (one criterion per card) that obeys the game's stated
rules -- exactly one code satisfies all active criteria and no verifier is redundant
(``rules.consistent_assignments``) -- times, in nightmare mode, every permutation mapping
queried verifiers to the cards that answer (all ``K!``: the published mappings include the
identity). Hypotheses are weighted uniformly. When a result contradicts every hypothesis, the
belief drops the no-redundancy rule and replays the results.
"""

from __future__ import annotations

import itertools
import re
from functools import cache

import numpy as np

from mtp_gym.turing_machine import rules

_VERIFIER_RE = re.compile(r"^Verifier <(\d+)>: (.+)$")
_CRITERION_PREFIX = "- Possible criteria: "


def read_instructions(observation: str) -> tuple[tuple[int, ...], bool, bool]:
    """(card ids by verifier number, nightmare?, CoT style?) from the first observation."""
    lookup = rules.card_lookup()
    blocks: list[tuple[str, list[str]]] = []
    for line in observation.splitlines():
        m = _VERIFIER_RE.match(line)
        if m:
            if int(m.group(1)) != len(blocks):
                raise ValueError("verifiers are not numbered 0, 1, ... in order")
            blocks.append((m.group(2), []))
        elif line.startswith(_CRITERION_PREFIX) and blocks:
            blocks[-1][1].append(line[len(_CRITERION_PREFIX) :])
    if not blocks:
        raise ValueError("no Turing Machine game setup in this observation")
    card_ids = tuple(lookup[(desc, tuple(crits))] for desc, crits in blocks)
    nightmare = "mapping between Verifiers and their displayed results" in observation
    cot = "<REASONING>:" in observation
    return card_ids, nightmare, cot


@cache
def _permutations(k: int, nightmare: bool) -> np.ndarray:
    if not nightmare:
        return np.arange(k)[None, :]
    return np.array(list(itertools.permutations(range(k))), dtype=np.int64)


def _entropy(counts: np.ndarray, axis: int = 0) -> np.ndarray:
    """Entropy (bits) of the distributions given by non-negative counts along ``axis``."""
    total = counts.sum(axis=axis, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts, dtype=np.float64), where=total > 0)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=axis)


class TuringMachineBelief:
    """The hypothesis set of one game and the expected information of every query."""

    def __init__(self, card_ids: tuple[int, ...], nightmare: bool, non_redundant: bool = True) -> None:
        self.card_ids = card_ids
        self.nightmare = nightmare
        self.non_redundant = non_redundant
        self.history: list[tuple[int, int, bool]] = []  # (code index, verifier, passed)
        self._build()

    def _build(self) -> None:
        table = rules.cards()
        self.assign, self.answers = rules.consistent_assignments(self.card_ids, self.non_redundant)
        k = len(self.card_ids)
        h = len(self.assign)
        # truth[h, j, c]: does card j's criterion under hypothesis h pass code c?
        masks = np.array(
            [[table[c].criteria[a].mask for c, a in zip(self.card_ids, row)] for row in self.assign.tolist()],
            dtype=object,
        ).reshape(h, k)
        bits = np.array(
            [[[(m >> c) & 1 for c in range(rules.N_CODES)] for m in row] for row in masks.tolist()], dtype=bool
        )
        self.truth = bits.reshape(h, k, rules.N_CODES)
        self._truth_f = self.truth.astype(np.float64)
        self.perms = _permutations(k, self.nightmare)
        self.alive = np.ones((h, len(self.perms)), dtype=bool)
        # onehot[p, i, j] = perms[p, i] == j
        self._onehot = (self.perms[:, :, None] == np.arange(k)[None, None, :]).astype(np.float64)
        self.answer_ids, self._answer_index = np.unique(self.answers, return_inverse=True)
        for code, slot, passed in self.history:
            self._apply(code, slot, passed)

    # ------------------------------------------------------------------ updates
    def _apply(self, code: int, slot: int, passed: bool) -> None:
        predicted = self.truth[:, self.perms[:, slot], code]  # (H, P)
        self.alive &= predicted == passed

    def observe(self, code: int, slot: int, passed: bool) -> None:
        """Keep the hypotheses that predict this result (relax the rules if none does)."""
        self.history.append((code, slot, passed))
        self._apply(code, slot, passed)
        if not self.alive.any() and self.non_redundant:
            self.non_redundant = False
            self._build()

    # ------------------------------------------------------------------ queries
    def answer_counts(self) -> np.ndarray:
        """Alive (assignment, mapping) pairs per distinct answer."""
        per_h = self.alive.sum(axis=1).astype(np.float64)
        return np.bincount(self._answer_index, weights=per_h, minlength=len(self.answer_ids))

    def certain_answer(self) -> int | None:
        counts = self.answer_counts()
        alive = np.flatnonzero(counts > 0)
        return int(self.answer_ids[alive[0]]) if len(alive) == 1 else None

    def candidate_answers(self) -> np.ndarray:
        return self.answer_ids[self.answer_counts() > 0]

    def pass_counts(self, alive: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(pass[u, i, c], total[u]): alive pairs with answer ``u`` that would PASS a query of
        verifier ``i`` with code ``c``, and all alive pairs with answer ``u``."""
        alive = (self.alive if alive is None else alive).astype(np.float64)
        weights = np.einsum("hp,pij->hij", alive, self._onehot)  # pairs of h whose slot i reads card j
        per_h = np.einsum("hij,hjc->hic", weights, self._truth_f)
        u = len(self.answer_ids)
        passes = np.zeros((u,) + per_h.shape[1:])
        np.add.at(passes, self._answer_index, per_h)
        total = np.bincount(self._answer_index, weights=alive.sum(axis=1), minlength=u)
        return passes, total

    def information_gain(self, alive: np.ndarray | None = None) -> np.ndarray:
        """Expected information (bits) about the answer of querying verifier ``i`` with code
        ``c``, as an array ``[i, c]``."""
        passes, total = self.pass_counts(alive)
        fails = total[:, None, None] - passes
        n = total.sum()
        p_pass = passes.sum(axis=0) / n
        before = _entropy(total)
        after = p_pass * _entropy(passes) + (1 - p_pass) * _entropy(fails)
        return np.maximum(before - after, 0.0)

    def criteria_beliefs(self) -> list[list[int]]:
        """Per verifier, the criteria of its own card still possible."""
        live = self.alive.any(axis=1)
        return [sorted(set(self.assign[live, i].tolist())) for i in range(len(self.card_ids))]
