"""Necessity judgment (paper sections 3.4, 3.5, appendix B): answer, prune, answer again.

A two-phase episode on one hidden instance; the agent asks no questions.

Phase 1: the observation holds the game's rules and the complete evidence pool
(``Game.evidence_pool()``: every legal query with its true answer, as numbered lines
``[i] <query_NAME>args</query_NAME>: VALUE``). The agent replies with BOTH tags::

    <answer>3</answer>
    <unnecessary>1, 4, 7-12</unnecessary>

``<unnecessary>`` lists the numbers of the observations it judges unnecessary (removable
while the rest still determines the answer): numbers and ranges ``a-b`` separated by commas
or spaces; an empty tag (or ``none``) keeps them all. Phase 2: those observations are removed;
the observation is self-contained again (rules + the remaining observations, with their
original numbers) and the agent replies with ``<answer>`` only. The episode ends there.

Format errors (a missing tag, a query tag, an unparseable answer, a number outside
``1..N``) re-prompt without spending a turn; ``max_format_errors`` in a row (the env's
setting) end the episode with ``format_error``.

Phase 2 is a fresh context, as in the paper: the phase-2 observation carries
``info["context_reset"] = True`` (``False`` on every other step), and an agent that keeps a
conversation starts a new one there, so the model answers from the rules and the pruned pool
alone, never from the phase-1 pool it still remembers. Our chat agents, the harness and the
framework adapters honour it; the transcript keeps both phases.

Outcome: ``success`` when the phase-2 answer is right AND the kept observations still
determine it (``pruned_sufficient``), else ``failure``: an agent that prunes evidence it
needed cannot pass by remembering or guessing the answer. Whether the phase-1 answer was
right is NOT shown before the end (it would leak into phase 2). ``info["turn"]`` counts the
two answers (``max_turns`` 2).

Score (the terminal reward): how much of what is removable a successful episode removed::

    score = removed / max_removable     on success (1.0 when max_removable is 0), else 0
    max_removable = pool_size - min_sufficient

``min_sufficient`` is the size of a smallest subset of the pool that still determines the
target: a minimum set cover of the "rivals" (candidate states whose target differs from the
true one), each observation covering the rivals it contradicts (:func:`minimum_cover`:
branch and bound, exact within ``node_limit`` search nodes, which every registered game and
level stays far within; past it the greedy cover's size, an upper bound, and ``min_exact``
is ``False``, the score then capped at 1). A sufficient kept set is never smaller than the
minimum, so the score lies in [0, 1]: 1.0 for an optimal pruner, 0.0 for a player that keeps
every observation (or prunes one it needed), and e.g. 0.5 for one that removes half of what
it could. The paper's Table 8 reads three figures per episode beside it: Complete Evidence
(``full_success``), After Pruning (the episode's success) and Pruning Ratio.

Information: ``info["necessity"]`` = ``phase`` (1 or 2), ``pool_size``, ``evidence`` (the
observations shown in this phase: ``[number, query, args, answer]``, what the text says, for
scripted agents) and, on the last step, ``full_success`` (the phase-1 answer, on the complete
pool, was right), ``pruned_success`` (the phase-2 answer was right, whether or not the kept
observations determine it), ``pruning_ratio`` (removed / pool size), ``removed`` (numbers),
``kept_size``, ``pruned_sufficient`` (whether the kept observations still determine the
target), ``min_sufficient``, ``max_removable``, ``optimal_ratio`` (max_removable / pool
size: the largest pruning ratio a success can have), ``min_exact``. An episode ended by
format errors has them too (``full_success`` False when it stopped in phase 1, and then
``pruning_ratio``, ``pruned_sufficient`` and ``kept_size`` ``None``: no pruning was judged).
The end-of-episode figures are also in ``info["hidden"]["probe"]`` (the record the eval
harness logs).

``pruned_sufficient`` and the minimum are exact for enumerable games of at most
``exact_limit`` state x observation checks, else ``None``: the answer alone decides success
then and the score is the pruning ratio (every registered game and level is computable at
the default limit).

The rules shown in both phases are the game's rules with its asking and turn-budget
sentences retold for this protocol (there are no questions and no budget here), see
:func:`observation_rules`.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from mtp_gym.core import FormatErrors, InvalidAction, read_reply
from mtp_gym.games.base import ACTION_NAMES, Evidence, Game, missing_action
from mtp_gym.games.env import GameEnv
from mtp_gym.parsing import find_tags
from mtp_gym.wrappers.probes.base import ProbeWrapper

__all__ = [
    "NecessityJudgment",
    "parse_unnecessary",
    "determines_target",
    "format_numbers",
    "contradiction_matrix",
    "minimum_cover",
    "minimum_sufficient_subset",
    "necessity_score",
    "observation_rules",
    "NODE_LIMIT",
]

#: Search nodes the exact minimum cover may take before it settles for the greedy bound (the
#: registered games need at most a few thousand at level 5).
NODE_LIMIT = 50_000

_UNNECESSARY_OPEN = re.compile(r"<\s*unnecessary\b", re.IGNORECASE)


def parse_unnecessary(text: str, pool_size: int) -> list[int]:
    """The sorted observation numbers of the ``<unnecessary>`` tag (repeated tags must agree);
    ``InvalidAction`` if there is none, two differ, or a number is malformed or outside
    ``1..pool_size``."""
    tags = find_tags(text, "unnecessary")
    if not tags:
        if _UNNECESSARY_OPEN.search(text):
            raise InvalidAction("the <unnecessary> tag is not closed.")
        raise InvalidAction("no <unnecessary>...</unnecessary> tag found (leave it empty to keep every observation).")
    lists = {tuple(_unnecessary_numbers(t.content, pool_size)) for t in tags}
    if len(lists) > 1:
        raise InvalidAction("the reply holds different <unnecessary> lists; give exactly one.")
    return list(lists.pop())


def _unnecessary_numbers(content: str, pool_size: int) -> list[int]:
    content = content.strip("[](){}.")
    if content.lower() in ("", "none"):
        return []
    numbers: set[int] = set()
    for part in (p for p in re.split(r"[,;\s]+", content) if p):
        m = re.fullmatch(r"\[?(\d+)\]?(?:-\[?(\d+)\]?)?", part)
        if m is None:
            raise InvalidAction(f"<unnecessary>: {part[:30]!r} is not an observation number or a range a-b.")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if not 1 <= lo <= hi <= pool_size:
            raise InvalidAction(f"<unnecessary>: {part[:30]!r} is outside the observations 1..{pool_size}.")
        numbers.update(range(lo, hi + 1))
    return sorted(numbers)


def format_numbers(numbers: Sequence[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    out, numbers = [], sorted(numbers)
    i = 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(str(numbers[i]) if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ", ".join(out)


def determines_target(
    game: Game, evidence: Sequence[Evidence], target: Hashable, limit: int | None = None
) -> bool | None:
    """Whether every candidate state agreeing with ``evidence`` has ``target`` (exact), or
    ``None`` when the game is not enumerable or the check would exceed ``limit`` state x
    observation comparisons."""
    if not game.enumerable:
        return None
    states = game.candidate_states()
    if limit is not None and len(states) * max(1, len(evidence)) > limit:
        return None
    for s in states:
        if all(game.respond(s, q, a) == v for q, a, v in evidence) and game.target(s) != target:
            return False
    return True


def contradiction_matrix(
    game: Game, evidence: Sequence[Evidence], target: Hashable, limit: int | None = None
) -> np.ndarray | None:
    """``covers[i, j]``: observation ``i`` contradicts rival ``j`` (a candidate state whose target
    is not ``target``); ``None`` when the game is not enumerable or the matrix would take more
    than ``limit`` state x observation checks. A subset of ``evidence`` determines ``target``
    exactly when its rows cover every column."""
    if not game.enumerable:
        return None
    states = game.candidate_states()
    if limit is not None and len(states) * max(1, len(evidence)) > limit:
        return None
    rivals = np.flatnonzero([game.target(s) != target for s in states])
    covers = np.zeros((len(evidence), len(rivals)), dtype=bool)
    for i, (q, a, v) in enumerate(evidence):
        answers = game.candidate_answers(q, a)
        if isinstance(answers, np.ndarray):
            covers[i] = answers[rivals] != v
        else:
            covers[i] = [answers[j] != v for j in rivals.tolist()]
    return covers


class _OutOfNodes(Exception):
    pass


def _bitsets(matrix: np.ndarray) -> list[int]:
    """Each row of a boolean matrix as an int (bit ``j`` = column ``j``)."""
    packed = np.packbits(matrix, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _greedy(bits: list[int], universe: int) -> list[int]:
    """Greedy set cover (most uncovered columns first), then a backward pass dropping every
    chosen row the others make redundant: an irreducible cover."""
    left, chosen = universe, []
    while left:
        best = max(range(len(bits)), key=lambda r: (bits[r] & left).bit_count())
        chosen.append(best)
        left &= ~bits[best]
    for r in reversed(list(chosen)):
        rest = 0
        for s in chosen:
            if s != r:
                rest |= bits[s]
        if rest == universe:
            chosen.remove(r)
    return chosen


def minimum_cover(covers: np.ndarray, node_limit: int = NODE_LIMIT) -> tuple[list[int], bool]:
    """The rows of a smallest set of rows of ``covers`` covering every column that some row
    covers, and whether it is proven smallest.

    Reductions first (identical columns merged; a row contained in another dropped, as the
    other can replace it in any cover), then iterative deepening from a lower bound (columns no
    two of which share a row each need their own row) up to the greedy cover's size: a
    depth-first search that branches on the rows covering the uncovered column with the fewest
    rows, pruned when ``uncovered > rows_left x the most any row still covers``. Exact unless
    the search takes more than ``node_limit`` nodes; then the greedy cover and ``False``.
    """
    covers = np.asarray(covers, dtype=bool)
    covers = covers[:, covers.any(axis=0)] if covers.size else covers.reshape(len(covers), 0)
    n_rows = covers.shape[0]
    if covers.shape[1] == 0:
        return [], True
    cols = np.unique(np.packbits(covers.T, axis=1), axis=0)
    cols = np.unpackbits(cols, axis=1, count=n_rows).astype(bool)  # (columns, rows)
    cols = cols[np.argsort(cols.sum(axis=1), kind="stable")]  # bit 0: the column fewest rows cover
    bits = _bitsets(cols.T)
    # row dominance: identical rows once, rows contained in another dropped
    rows: list[int] = []
    for r in sorted(range(n_rows), key=lambda r: -bits[r].bit_count()):
        if bits[r] and not any(bits[r] & ~bits[s] == 0 for s in rows):
            rows.append(r)
    universe = (1 << len(cols)) - 1
    col_bits = _bitsets(cols[:, rows])  # bit i: rows[i] covers the column
    col_rows: dict[int, list[int]] = {}

    def rows_of(j: int) -> list[int]:
        """The rows covering column ``j``, those covering most first."""
        if j not in col_rows:
            b, col_rows[j] = col_bits[j], []
            while b:
                low = b & -b
                col_rows[j].append(rows[low.bit_length() - 1])
                b ^= low
        return col_rows[j]

    best = [rows[i] for i in _greedy([bits[r] for r in rows], universe)]
    used, lower = 0, 0
    for b in col_bits:
        if not b & used:
            lower += 1
            used |= b
    nodes = 0

    def search(uncovered: int, k: int) -> list[int] | None:
        nonlocal nodes
        nodes += 1
        if nodes > node_limit:
            raise _OutOfNodes
        if not uncovered:
            return []
        if k == 0:
            return None
        hardest = rows_of((uncovered & -uncovered).bit_length() - 1)
        if k == 1:
            return next(([r] for r in hardest if uncovered & ~bits[r] == 0), None)
        if uncovered.bit_count() > k * max((bits[r] & uncovered).bit_count() for r in rows):
            return None
        for r in hardest:
            found = search(uncovered & ~bits[r], k - 1)
            if found is not None:
                return [r, *found]
        return None

    try:
        for k in range(lower, len(best)):
            found = search(universe, k)
            if found is not None:
                return sorted(found), True
    except _OutOfNodes:
        return sorted(best), False
    return sorted(best), True


def minimum_sufficient_subset(
    game: Game,
    evidence: Sequence[Evidence],
    target: Hashable,
    limit: int | None = None,
    node_limit: int = NODE_LIMIT,
) -> tuple[list[int], bool] | None:
    """Indices into ``evidence`` of a smallest subset that still determines ``target``, and
    whether it is proven smallest (:func:`minimum_cover` of :func:`contradiction_matrix`);
    ``None`` when not computable within ``limit``."""
    covers = contradiction_matrix(game, evidence, target, limit)
    return None if covers is None else minimum_cover(covers, node_limit)


def necessity_score(success: bool, removed: int, pool_size: int, min_sufficient: int | None) -> float:
    """The probe's score (module docstring): 0 unless ``success``, else ``removed /
    max_removable`` (``max_removable = pool_size - min_sufficient``; 1.0 when it is 0), capped
    at 1; the pruning ratio when ``min_sufficient`` is unknown."""
    if not success:
        return 0.0
    if min_sufficient is None:
        return removed / pool_size if pool_size else 1.0
    removable = pool_size - min_sufficient
    return 1.0 if removable <= 0 else min(1.0, removed / removable)


_ASK_QUESTION = re.compile(r"You may ask one question per turn")
_ASK_FOR = re.compile(r"You may ask for one ([^.:()\n]+?) per turn")
_ASK_OTHER = re.compile(r"You may [^.:()\n]*?\bone ([^.:()\n]+?) per turn")
_BUDGET = re.compile(r"[ \t]*You have \d+ turns? in all(?: \([^)\n]*\))?\.")


def observation_rules(rules: str) -> str:
    """A game's rules text retold for the necessity protocol: the sentence that invites one
    question per turn introduces the observations instead (the query formats it announces
    are how the observations are written), and the turn-budget sentence goes (no questions,
    no budget here)."""
    rules = _ASK_QUESTION.sub("The observations below answer questions", rules)
    rules = _ASK_FOR.sub(r"Each observation below gives one \1", rules)
    rules = _ASK_OTHER.sub(r"Each observation below gives the reply to one \1", rules)
    return _BUDGET.sub("", rules).rstrip()


class NecessityJudgment(ProbeWrapper):
    """The two-phase necessity-judgment episode (see the module docstring)."""

    probe = "necessity"
    obs_max_length = 1 << 20
    base: GameEnv

    def __init__(self, env: gym.Env, exact_limit: int = 20_000_000, seed: int = 0) -> None:
        super().__init__(env, seed=seed, exact_limit=exact_limit)
        self.exact_limit = exact_limit
        self._done = True

    # ------------------------------------------------------------------ text
    def _pool_lines(self, numbers: Sequence[int]) -> str:
        game = self.base.live_game
        return "\n".join(f"[{i}] {game.reply(*self.pool[i - 1])}" for i in numbers)

    def _phase1_text(self) -> str:
        n = len(self.pool)
        return (
            "The rules of a hidden-state game follow. In this version you ask no questions: the answer "
            "to every legal question about the hidden instance is given below as numbered observations.\n\n"
            f"--- RULES ---\n{observation_rules(self.base.live_game.rules())}\n\n"
            f"--- OBSERVATIONS ({n}) ---\n{self._pool_lines(range(1, n + 1))}\n\n"
            "--- TASK (phase 1 of 2) ---\n"
            "Submit the answer, and name the observations that are unnecessary: those that can be "
            "removed while the remaining observations still determine the answer. Reply with both tags, e.g.\n"
            f"{self.base.live_game.answer_format}\n<unnecessary>1, 4, 7-9</unnecessary>\n"
            "(observation numbers, ranges a-b allowed; an empty tag keeps every observation). The "
            "observations you name will be removed and you will answer again from the remaining ones only."
        )

    def _phase2_text(self) -> str:
        n, k = len(self.pool), len(self.removed)
        return (
            f"Phase 2 of 2: you judged {k} of the {n} observations unnecessary and they have been removed. "
            f"Answer again using only the {n - k} remaining observations (the removed ones no longer count).\n\n"
            f"--- RULES ---\n{observation_rules(self.base.live_game.rules())}\n\n"
            f"--- REMAINING OBSERVATIONS ({n - k} of {n}) ---\n{self._pool_lines(self.kept)}\n\n"
            "--- TASK (phase 2 of 2) ---\nReply with the answer only, in the format of the rules "
            f"(e.g. {self.base.live_game.answer_format})."
        )

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        _, info = self.env.reset(seed=seed, options=options)
        self.pool: list[Evidence] = self.base.live_game.evidence_pool()
        self.phase, self.turn = 1, 0
        self.removed: list[int] = []
        self.kept: list[int] = list(range(1, len(self.pool) + 1))
        self.errors = FormatErrors(self.base.max_format_errors)
        self.outcome: str | None = None
        self.score = 0.0  # until the outcome, as the base env (vector envs need one type)
        self.results: dict[str, Any] = {}
        self._done = False
        self._context_reset = False
        obs = self._phase1_text()
        self._set_last_message(obs)
        return obs, self._info(info, {}, True)

    def step(self, action: str):
        if self._done:
            raise RuntimeError("step() called after the episode ended (or before reset()); call reset()")
        try:
            text = read_reply(action)
            answer = self._parse_answer(text)
            removed = parse_unnecessary(text, len(self.pool)) if self.phase == 1 else []
        except InvalidAction as err:
            return self._reject(action if isinstance(action, str) else repr(action), str(err))
        self.errors.accept()
        self.turn += 1
        game = self.base.live_game
        correct = game.check(answer)
        if self.phase == 1:
            self.full_answer, self.full_correct = answer, correct
            self.removed = removed
            dropped = set(removed)
            self.kept = [i for i in range(1, len(self.pool) + 1) if i not in dropped]
            self.phase = 2
            self._context_reset = True
            obs, reward, terminated = self._phase2_text(), 0.0, False
            feedback = {"phase": 1, "answer": answer, "unnecessary": list(removed)}
        else:
            target = game.target(game.hidden)
            self.results = self._results(target, correct)
            sufficient = self.results["pruned_sufficient"] is not False
            success = bool(correct and sufficient)
            self.outcome = "success" if success else "failure"
            self.score = necessity_score(success, len(self.removed), len(self.pool), self.results["min_sufficient"])
            self._done = terminated = True
            reward = self.score
            verdict = "Correct!" if correct else "Wrong."
            if correct and not sufficient:
                verdict = "Right answer, but the observations you kept no longer determine it, so it does not count."
            obs = (
                f"{verdict} The answer was {game.format_answer(target)}. Your phase-1 answer (on every "
                f"observation) was {'right' if self.full_correct else 'wrong'}; you removed "
                f"{len(self.removed)} of {len(self.pool)} observations{self._removable_note()}. The game is over."
            )
            feedback = {"phase": 2, "answer": answer, "correct": correct}
        self.base.record_exchange(action, obs)
        return obs, reward, terminated, False, self._info(self.base.build_info(feedback, True), feedback, True)

    # ------------------------------------------------------------------ helpers
    def _results(self, target: Hashable, correct: bool) -> dict[str, Any]:
        """The end-of-episode figures (module docstring), from one contradiction matrix."""
        game, n = self.base.live_game, len(self.pool)
        covers = contradiction_matrix(game, self.pool, target, self.exact_limit)
        if covers is None:
            sufficient, smallest, exact = None, None, None
        else:
            kept = [i - 1 for i in self.kept]
            sufficient = bool(covers[kept].any(axis=0).all()) if covers.shape[1] else True
            rows, exact = minimum_cover(covers)
            smallest = len(rows)
        removable = None if smallest is None else n - smallest
        return {
            "full_success": bool(self.full_correct),
            "pruned_success": bool(correct),
            "pruning_ratio": len(self.removed) / n,
            "removed": list(self.removed),
            "pool_size": n,
            "kept_size": len(self.kept),
            "pruned_sufficient": sufficient,
            "min_sufficient": smallest,
            "max_removable": removable,
            "optimal_ratio": None if removable is None else removable / n,
            "min_exact": exact,
        }

    def _format_error_results(self) -> dict[str, Any]:
        """The figures of an episode ended by format errors: no right answer in the phase it
        stopped in (``full_success`` False in phase 1), no pruning judged in phase 1
        (``pruning_ratio`` and ``pruned_sufficient`` ``None``); the pool's own figures
        (``min_sufficient``, ``optimal_ratio``) as always."""
        game = self.base.live_game
        if self.phase == 1:
            self.full_correct = False
        results = self._results(game.target(game.hidden), False)
        if self.phase == 1:
            results.update(pruning_ratio=None, pruned_sufficient=None, removed=[], kept_size=None)
        return results

    def _removable_note(self) -> str:
        removable = self.results.get("max_removable")
        if removable is None:
            return ""
        most = "exactly" if self.results["min_exact"] else "at least"
        return f" ({most} {removable} could go while the rest still determine the answer)"

    def _parse_answer(self, text: str) -> Hashable:
        """The answer of a reply (read as the base env reads moves: :meth:`TextPuzzleEnv.read_tags`)."""
        return self.base.read_tags(
            text, ACTION_NAMES, self._read_answer, "answers", show=str, missing=lambda: missing_action(text)
        )

    def _read_answer(self, found: tuple[str, str]) -> Hashable:
        tag, content = found
        if tag != "answer":
            raise InvalidAction(
                "no questions in this probe: reply with <answer>...</answer>"
                + (" and <unnecessary>...</unnecessary>." if self.phase == 1 else ".")
            )
        if not content:
            raise InvalidAction(f"the answer is empty; submit as {self.base.live_game.answer_format}.")
        return self.base.live_game.parse_answer(content)

    def _reject(self, action: str, message: str):
        hint = "Reply with <answer>...</answer>" + (" and <unnecessary>...</unnecessary>." if self.phase == 1 else ".")
        obs, terminated = self.errors.reject(message, hint)
        if terminated:
            self.outcome, self.score, self._done = "format_error", 0.0, True
            self.results = self._format_error_results()
        self.base.record_exchange(action, obs)
        feedback = {"error": message}
        return obs, 0.0, terminated, False, self._info(self.base.build_info(feedback, False), feedback, False)

    def _info(self, info: dict[str, Any], feedback: dict[str, Any], valid: bool) -> dict[str, Any]:
        info.update(
            turn=self.turn,
            max_turns=2,
            feedback=feedback,
            valid_action=valid,
            format_errors=self.errors.total,
            outcome=self.outcome,
            score=self.score,
            context_reset=self._context_reset,
        )
        self._context_reset = False
        shown = range(1, len(self.pool) + 1) if self.phase == 1 else self.kept
        info["necessity"] = {
            "phase": self.phase,
            "pool_size": len(self.pool),
            "evidence": [[i, *self.pool[i - 1][:2], self.pool[i - 1][2]] for i in shown] if not self._done else [],
            **self.results,
        }
        return self._tag(info)

    def _secret(self) -> dict[str, Any]:
        return {"name": self.probe, **self.results}
