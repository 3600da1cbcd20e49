"""Hand-off runs (Multi-Turn Puzzles, section 3.3): one agent opens, another finishes."""

from __future__ import annotations

from typing import Any

from mtp_gym.core import check_int

__all__ = ["HandoffAgent"]


class HandoffAgent:
    """``first`` plays turns 1 … n-1, ``finisher`` takes over the same conversation at turn ``n``.

    Turns count legal moves (``info["turn"]``), as the env does; the finisher receives the whole
    conversation so far (the env's messages and ``first``'s actions) through its
    ``take_over(messages)`` method, so it must be a chat agent (``openai:`` / ``hf:``) or a
    policy that implements ``take_over``. ``first`` may be any policy. ``actors`` records who
    produced each action of the episode (``"first"`` / ``"finisher"``); ``usage`` adds both
    agents' token counts.
    """

    def __init__(self, first: Any, finisher: Any, handoff_turn: int) -> None:
        check_int("handoff_turn", handoff_turn)
        if not callable(getattr(finisher, "take_over", None)):
            raise ValueError(
                f"finisher: {type(finisher).__name__} cannot continue another agent's conversation "
                "(needs take_over(messages)); allowed: a chat agent, 'openai:MODEL' or 'hf:PATH'"
            )
        self.first, self.finisher, self.handoff_turn = first, finisher, handoff_turn
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.first.reset(seed=seed)
        self.finisher.reset(seed=seed)
        self.messages: list[dict[str, str]] = []
        self.actors: list[str] = []
        self._handed_over = False

    @property
    def usage(self) -> dict[str, int]:
        keys = ("prompt_tokens", "completion_tokens", "calls", "retries")
        return {
            k: getattr(self.first, "usage", {}).get(k, 0) + getattr(self.finisher, "usage", {}).get(k, 0) for k in keys
        }

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self._played(observation, self._agent(info).act(observation, info))

    async def aact(self, observation: str, info: dict[str, Any]) -> str:
        agent = self._agent(info)
        if hasattr(agent, "aact"):
            return self._played(observation, await agent.aact(observation, info))
        return self._played(observation, agent.act(observation, info))

    async def aclose(self) -> None:
        """Close both agents' event-loop resources (:meth:`ChatAgent.aclose`)."""
        for agent in (self.first, self.finisher):
            aclose = getattr(agent, "aclose", None)
            if aclose is not None:
                await aclose()

    def _agent(self, info: dict[str, Any]) -> Any:
        if not self._handed_over and info.get("turn", 0) + 1 >= self.handoff_turn:
            self.finisher.take_over(self.messages)
            self._handed_over = True
        return self.finisher if self._handed_over else self.first

    def _played(self, observation: str, action: str) -> str:
        self.messages += [{"role": "user", "content": observation}, {"role": "assistant", "content": action}]
        self.actors.append("finisher" if self._handed_over else "first")
        return action
