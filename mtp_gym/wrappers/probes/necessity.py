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

Outcome and reward: ``success`` (score 1.0) when the phase-2 answer is right AND the kept
observations still determine it (``pruned_sufficient``), else ``failure``: an agent that
prunes evidence it needed cannot pass by remembering or guessing the answer. Whether the
phase-1 answer was right is NOT shown before the end (it would leak into phase 2).
``info["turn"]`` counts the two answers (``max_turns`` 2).

Information: ``info["necessity"]`` = ``phase`` (1 or 2), ``pool_size``, ``evidence`` (the
observations shown in this phase: ``[number, query, args, answer]``, what the text says, for
scripted agents) and, on the last step, ``full_success``, ``pruned_success``,
``pruning_ratio`` (removed / pool size), ``removed`` (numbers), ``pruned_sufficient``
(whether the kept observations still determine the target: exact for enumerable games
of at most ``exact_limit`` state x observation checks, else ``None``). The end-of-episode
figures are also in ``info["hidden"]["probe"]`` (the record the eval harness logs).

``pruned_sufficient`` is ``None`` only when the check is not computable within
``exact_limit``; the answer alone decides then (every registered game and level is
computable at the default limit).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

import gymnasium as gym

from mtp_gym.core import InvalidAction
from mtp_gym.games.base import ACTION_NAMES, Evidence, Game, missing_action
from mtp_gym.parsing import MAX_DIGITS, find_tags, long_number, prepare_reply
from mtp_gym.wrappers.probes.base import ProbeWrapper

__all__ = ["NecessityJudgment", "parse_unnecessary", "determines_target", "format_numbers"]

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


class NecessityJudgment(ProbeWrapper):
    """The two-phase necessity-judgment episode (see the module docstring)."""

    probe = "necessity"
    obs_max_length = 1 << 20

    def __init__(self, env: gym.Env, exact_limit: int = 20_000_000, seed: int = 0) -> None:
        super().__init__(env, seed=seed, exact_limit=exact_limit)
        self.exact_limit = exact_limit
        self._done = True

    # ------------------------------------------------------------------ text
    def _pool_lines(self, numbers: Sequence[int]) -> str:
        game = self.base.game
        return "\n".join(f"[{i}] {game.reply(*self.pool[i - 1])}" for i in numbers)

    def _phase1_text(self) -> str:
        n = len(self.pool)
        return (
            "The rules of a hidden-state game follow. In this version you ask no questions: the answer "
            "to every legal question about the hidden instance is given below as numbered observations.\n\n"
            f"--- RULES ---\n{self.base.game.rules()}\n\n"
            f"--- OBSERVATIONS ({n}) ---\n{self._pool_lines(range(1, n + 1))}\n\n"
            "--- TASK (phase 1 of 2) ---\n"
            "Submit the answer, and name the observations that are unnecessary: those that can be "
            "removed while the remaining observations still determine the answer. Reply with both tags, e.g.\n"
            f"{self.base.game.answer_format}\n<unnecessary>1, 4, 7-9</unnecessary>\n"
            "(observation numbers, ranges a-b allowed; an empty tag keeps every observation). The "
            "observations you name will be removed and you will answer again from the remaining ones only."
        )

    def _phase2_text(self) -> str:
        n, k = len(self.pool), len(self.removed)
        return (
            f"Phase 2 of 2: you judged {k} of the {n} observations unnecessary and they have been removed. "
            f"Answer again using only the {n - k} remaining observations (the removed ones no longer count).\n\n"
            f"--- RULES ---\n{self.base.game.rules()}\n\n"
            f"--- REMAINING OBSERVATIONS ({n - k} of {n}) ---\n{self._pool_lines(self.kept)}\n\n"
            "--- TASK (phase 2 of 2) ---\nReply with the answer only, in the format of the rules "
            f"(e.g. {self.base.game.answer_format})."
        )

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        _, info = self.env.reset(seed=seed, options=options)
        self.pool: list[Evidence] = self.base.game.evidence_pool()
        self.phase, self.turn = 1, 0
        self.removed: list[int] = []
        self.kept: list[int] = list(range(1, len(self.pool) + 1))
        self.format_errors = self.consecutive_errors = 0
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
        base = self.base
        try:
            if not isinstance(action, str):
                raise InvalidAction(f"the action must be text (str), got {type(action).__name__}.")
            text = prepare_reply(action)
            if long_number(text):
                raise InvalidAction(f"the reply holds a number of more than {MAX_DIGITS} digits.")
            answer = self._parse_answer(text)
            removed = parse_unnecessary(text, len(self.pool)) if self.phase == 1 else None
        except InvalidAction as err:
            return self._reject(action if isinstance(action, str) else repr(action), str(err))
        self.consecutive_errors = 0
        self.turn += 1
        game = base.game
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
            kept = [self.pool[i - 1] for i in self.kept]
            self.results = {
                "full_success": bool(self.full_correct),
                "pruned_success": bool(correct),
                "pruning_ratio": len(self.removed) / len(self.pool),
                "removed": list(self.removed),
                "pool_size": len(self.pool),
                "kept_size": len(self.kept),
                "pruned_sufficient": determines_target(game, kept, target, self.exact_limit),
            }
            sufficient = self.results["pruned_sufficient"] is not False
            self.outcome, self.score = ("success", 1.0) if correct and sufficient else ("failure", 0.0)
            self._done = terminated = True
            reward = self.score
            verdict = "Correct!" if correct else "Wrong."
            if correct and not sufficient:
                verdict = "Right answer, but the observations you kept no longer determine it, so it does not count."
            obs = (
                f"{verdict} The answer was {game.format_answer(target)}. Your phase-1 answer (on every "
                f"observation) was {'right' if self.full_correct else 'wrong'}; you removed "
                f"{len(self.removed)} of {len(self.pool)} observations. The game is over."
            )
            feedback = {"phase": 2, "answer": answer, "correct": correct}
        self._log(action, obs)
        return obs, reward, terminated, False, self._info(base._info(feedback, True), feedback, True)

    # ------------------------------------------------------------------ helpers
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
            raise InvalidAction(f"the answer is empty; submit as {self.base.game.answer_format}.")
        return self.base.game.parse_answer(content)

    def _reject(self, action: str, message: str):
        self.format_errors += 1
        self.consecutive_errors += 1
        limit = self.base.max_format_errors
        count = f"(format error {self.consecutive_errors} of {limit} in a row)"
        terminated = self.consecutive_errors >= limit
        if terminated:
            self.outcome, self.score, self._done = "format_error", 0.0, True
            obs = f"Invalid action: {message} {count} The game is over."
        else:
            hint = "Reply with <answer>...</answer>" + (
                " and <unnecessary>...</unnecessary>." if self.phase == 1 else "."
            )
            obs = f"Invalid action: {message} {hint} {count}"
        self._log(action, obs)
        feedback = {"error": message}
        return obs, 0.0, terminated, False, self._info(self.base._info(feedback, False), feedback, False)

    def _log(self, action: str, obs: str) -> None:
        self.base._transcript.append({"role": "assistant", "content": action})
        self.base._transcript.append({"role": "user", "content": obs})

    def _info(self, info: dict[str, Any], feedback: dict[str, Any], valid: bool) -> dict[str, Any]:
        info.update(
            turn=self.turn,
            max_turns=2,
            feedback=feedback,
            valid_action=valid,
            format_errors=self.format_errors,
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
