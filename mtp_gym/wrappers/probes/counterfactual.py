"""Counterfactual revision (paper sections 3.4, 3.5, appendix B): one wrong answer, then its correction.

The env answers one of the agent's queries wrongly (the paper: the second), in the reply text
and in ``info["feedback"]["answer"]``: the ``revise_query``-th valid query, or the first one
after it whose true answer the agent could not already infer, i.e. whose answer differs
between the hidden states still consistent with the rules and the (true) replies so far. The
wrong answer is the most frequent other answer among those states, so it is one the agent
cannot rule out (a bool flips). A query whose answer is already fixed is answered truly and
the revision moves to the next one.

With its next message (the following turn; a re-prompt after a malformed action counts too)
the env states the correction explicitly::

    Correction: my earlier reply "<query_odd></query_odd>: No" was wrong. The correct
    reply is "<query_odd></query_odd>: Yes".
    <query_greater>2</query_greater>: Yes

and announces it in ``info["feedback"]["corrections"] = [{"query", "args", "answer"}]``. An
answer submitted while a correction is pending is not taken: the reply brings the correction
and asks again (no turn spent, not a format error; ``info["feedback"]["deferred"]``), so the
correction always reaches the agent before it can submit. The hidden state and the target
never change.

``info["hidden"]["probe"]`` records ``revision`` (bool: whether an answer was falsified in
this episode), ``revised`` (query, args, wrong and true answer, turn; ``None`` without a
revision), ``skipped`` (queries past ``revise_query`` left alone because their answer was
already fixed) and ``corrected``; the public ``info["probe"]`` only names the probe.

A **vacuous** episode is one without a revision (``revision`` is ``False``): the agent
answered before its ``revise_query``-th query, or every query it asked from then on had an
answer the earlier replies already fixed. Such an episode is the clean game, so the probe's
drop is measured over the revised episodes only and the vacuous share is reported beside it
(``mtp-gym report``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mtp_gym.core import InvalidAction, check_int
from mtp_gym.games.env import GameEnv, feedback_value
from mtp_gym.wrappers.probes.base import ProbeWrapper

__all__ = ["CounterfactualRevision"]


class CounterfactualRevision(ProbeWrapper):
    """Falsify the answer to the agent's ``revise_query``-th query (paper: the 2nd), correct it
    with the next reply."""

    probe = "counterfactual"
    base: GameEnv

    def __init__(self, env: gym.Env, revise_query: int = 2, seed: int = 0) -> None:
        super().__init__(env, seed=seed, revise_query=revise_query)
        check_int("revise_query", revise_query)
        self.revise_query = revise_query
        self._reset_state()

    def _reset_state(self) -> None:
        self._queries = 0
        self._evidence: list[tuple[str, tuple, Any]] = []
        self._pending: dict[str, Any] | None = None
        self.revised: dict[str, Any] | None = None
        self.skipped: list[dict[str, Any]] = []
        self.corrected = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._reset_state()
        self._reseed(seed)
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._tag(info)

    def step(self, action: str):
        if self._pending is not None and self._is_answer(action):
            return self._defer(action)
        obs, reward, terminated, truncated, info = self.env.step(action)
        feedback = dict(info.get("feedback") or {})
        game = self.base.live_game
        if self._pending is not None:
            obs = f"{self._correction()}\n{obs}"
            feedback["corrections"] = self._corrections()
            self._pending, self.corrected = None, True
        if "query" in feedback and info.get("valid_action", True):
            self._queries += 1
            name, args = feedback["query"], tuple(feedback["args"])
            truth = game.respond(game.hidden, name, args)
            if self.revised is None and self._queries >= self.revise_query:
                wrong = self._possible_wrong_answer(name, args, truth)
                if wrong is None:
                    self.skipped.append({"query": name, "args": args, "turn": info["turn"]})
                else:
                    true_text, wrong_text = game.reply(name, args, truth), game.reply(name, args, wrong)
                    obs = obs.replace(true_text, wrong_text, 1)  # the reply starts the env's text
                    feedback["answer"] = feedback_value(wrong)
                    self.revised = {"query": name, "args": args, "wrong": wrong, "answer": truth, "turn": info["turn"]}
                    self._pending = self.revised
            self._evidence.append((name, args, truth))
        info["feedback"] = feedback
        self._set_last_message(obs)
        return obs, reward, terminated, truncated, self._tag(info)

    # ------------------------------------------------------------------ helpers
    def _possible_wrong_answer(self, name: str, args: tuple, truth: Any) -> Any:
        """The most frequent other answer to ``name(*args)`` among the hidden states consistent
        with the true replies so far, or ``None`` when every such state answers ``truth``."""
        game = self.base.live_game
        counts: dict[Any, int] = {}
        for state in game.sample_consistent(self._evidence, self.rng, 512):
            value = game.respond(state, name, args)
            if value != truth:
                counts[value] = counts.get(value, 0) + 1
        return max(counts, key=counts.__getitem__) if counts else None

    def _correction(self) -> str:
        c, game = self._pending, self.base.live_game
        assert c is not None
        return (
            f'Correction: my earlier reply "{game.reply(c["query"], c["args"], c["wrong"])}" was wrong. '
            f'The correct reply is "{game.reply(c["query"], c["args"], c["answer"])}".'
        )

    def _corrections(self) -> list[dict[str, Any]]:
        c = self._pending
        assert c is not None
        return [{"query": c["query"], "args": c["args"], "answer": feedback_value(c["answer"])}]

    def _is_answer(self, action: Any) -> bool:
        if not isinstance(action, str):
            return False
        try:
            kind, _ = self.base.read_move(action)
        except InvalidAction:
            return False
        return kind == "answer"

    def _defer(self, action: str):
        """An answer sent while a correction is pending: not taken; the reply brings the correction."""
        obs = (
            f"{self._correction()}\nYour answer was not taken, so that you can use the correction: ask or answer again."
        )
        feedback = {"corrections": self._corrections(), "deferred": True}
        self._pending, self.corrected = None, True
        self.base.record_exchange(action, obs)
        return obs, 0.0, False, False, self._tag(self.base.build_info(feedback, False))

    def _secret(self) -> dict[str, Any]:
        return {
            "name": self.probe,
            "revision": self.revised is not None,
            "revised": dict(self.revised) if self.revised else None,
            "skipped": [dict(s) for s in self.skipped],
            "corrected": self.corrected,
        }
