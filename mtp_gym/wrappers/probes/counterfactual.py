"""Counterfactual revision (paper sections 3.4, 3.5, appendix B): one wrong answer, then its correction.

The env answers the agent's SECOND query wrongly (``Game.wrong_answer``, the paper's
``cf_make_wrong``: a bool flips, otherwise the most frequent other answer), in the reply text
and in ``info["feedback"]["answer"]``. With its next message (the following turn; a re-prompt
after a malformed action counts too) it states the correction explicitly::

    Correction: my earlier reply "<query_odd></query_odd>: No" was wrong. The correct
    reply is "<query_odd></query_odd>: Yes".
    <query_greater>2</query_greater>: Yes

and announces it in ``info["feedback"]["corrections"] = [{"query", "args", "answer"}]``.
The hidden state and the target never change. A scripted agent should not submit before the
correction can arrive (the query-game oracle: ``min_turns_before_answer=3``).

``info["hidden"]["probe"]`` records ``revised`` (query, args, wrong and true answer, turn)
and ``corrected``; the public ``info["probe"]`` only names the probe.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mtp_gym.core import check_int
from mtp_gym.games.env import feedback_value
from mtp_gym.wrappers.probes.base import ProbeWrapper

__all__ = ["CounterfactualRevision"]


class CounterfactualRevision(ProbeWrapper):
    """Falsify the answer to the agent's ``revise_query``-th query (paper: the 2nd), correct it
    with the next reply."""

    probe = "counterfactual"

    def __init__(self, env: gym.Env, revise_query: int = 2, seed: int = 0) -> None:
        super().__init__(env, seed=seed, revise_query=revise_query)
        check_int("revise_query", revise_query)
        self.revise_query = revise_query
        self._reset_state()

    def _reset_state(self) -> None:
        self._queries = 0
        self._pending: dict[str, Any] | None = None
        self.revised: dict[str, Any] | None = None
        self.corrected = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._reset_state()
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._tag(info)

    def step(self, action: str):
        obs, reward, terminated, truncated, info = self.env.step(action)
        feedback = dict(info.get("feedback") or {})
        game = self.base.game
        if self._pending is not None:
            c = self._pending
            obs = (
                f'Correction: my earlier reply "{game.reply(c["query"], c["args"], c["wrong"])}" was wrong. '
                f'The correct reply is "{game.reply(c["query"], c["args"], c["answer"])}".\n{obs}'
            )
            feedback["corrections"] = [{"query": c["query"], "args": c["args"], "answer": feedback_value(c["answer"])}]
            self._pending, self.corrected = None, True
        if "query" in feedback and info.get("valid_action", True):
            self._queries += 1
            if self._queries == self.revise_query:
                name, args = feedback["query"], tuple(feedback["args"])
                truth, wrong = game.respond(game.hidden, name, args), game.wrong_answer(name, args)
                true_text, wrong_text = game.reply(name, args, truth), game.reply(name, args, wrong)
                obs = obs.replace(true_text, wrong_text, 1)  # the reply starts the env's text
                feedback["answer"] = feedback_value(wrong)
                self.revised = {"query": name, "args": args, "wrong": wrong, "answer": truth, "turn": info["turn"]}
                self._pending = self.revised
        info["feedback"] = feedback
        self._set_last_message(obs)
        return obs, reward, terminated, truncated, self._tag(info)

    def _secret(self) -> dict[str, Any]:
        return {
            "name": self.probe,
            "revised": dict(self.revised) if self.revised else None,
            "corrected": self.corrected,
        }
