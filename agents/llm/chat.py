"""The chat-agent base class: one conversation per episode, token accounting, hand-over."""

from __future__ import annotations

import asyncio
from typing import Any

from mtp_gym.agents.llm.prompts import PromptStyle, get_prompt_style
from mtp_gym.history import cap_history, check_max_history

__all__ = ["ChatAgent"]


class ChatAgent:
    """A policy that keeps the chat history of its episode and asks a model for each action.

    Subclasses implement :meth:`complete` (messages in, reply text and token counts out).
    ``usage`` counts the tokens of the current episode (``prompt_tokens``,
    ``completion_tokens``, ``calls``, ``retries``); ``history`` is the conversation so far
    (system prompt, then alternating user/assistant messages); ``reasoning`` holds, per
    action, the reasoning the model returned apart from its reply (``None`` if none): a
    subclass sets ``last_reasoning`` in :meth:`complete`. It is stored in the episode's
    transcript, never sent back to the model. ``max_history=K`` sends only the system prompt,
    the rules and the last ``K`` turns (:mod:`mtp_gym.history`; default: the whole history,
    as in the papers). An observation whose ``info["context_reset"]`` is true starts a new
    conversation (system prompt kept).
    """

    def __init__(
        self,
        prompt_style: str | PromptStyle = "plain",
        system_prompt: str | None = None,
        max_history: int | None = None,
    ) -> None:
        self.style = get_prompt_style(prompt_style, system_prompt)
        self.max_history = check_max_history(max_history)
        self.history: list[dict[str, str]] = []
        self.usage: dict[str, int] = {}
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed
        self.history = [{"role": "system", "content": self.style.system_prompt}] if self.style.system_prompt else []
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "retries": 0}
        self.reasoning: list[str | None] = []
        self.last_reasoning: str | None = None

    def act(self, observation: str, info: dict[str, Any]) -> str:
        return self._record(*self.complete(self._prompt(observation, info)))

    async def aact(self, observation: str, info: dict[str, Any]) -> str:
        """:meth:`act` on the running event loop (the harness's ``async`` executor)."""
        return self._record(*await self.acomplete(self._prompt(observation, info)))

    def _prompt(self, observation: str, info: dict[str, Any]) -> list[dict[str, str]]:
        """The messages to send for this observation (the history, capped)."""
        if info.get("context_reset"):  # the env starts a fresh context here (the necessity probe's phase 2)
            self.history = self.history[:1] if self.style.system_prompt else []
        self.history.append({"role": "user", "content": self.style.user_message(observation)})
        self.last_reasoning = None
        return cap_history(self.history, self.max_history)

    def _record(self, text: str, prompt_tokens: int, completion_tokens: int) -> str:
        self.reasoning.append(self.last_reasoning)
        self.usage["prompt_tokens"] += prompt_tokens
        self.usage["completion_tokens"] += completion_tokens
        self.usage["calls"] += 1
        self.history.append({"role": "assistant", "content": text})
        return text

    def take_over(self, messages: list[dict[str, str]]) -> None:
        """Continue a conversation another agent started (hand-off runs, paper section 3.3).

        ``messages`` are the env's observations (``user``) and the actions played
        (``assistant``) so far, ending with an assistant message; the next :meth:`act`
        brings the env's latest reply.
        """
        head = [{"role": "system", "content": self.style.system_prompt}] if self.style.system_prompt else []
        self.history = head + [
            {
                "role": m["role"],
                "content": self.style.user_message(m["content"]) if m["role"] == "user" else m["content"],
            }
            for m in messages
        ]

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        """The model's reply to ``messages`` and the (prompt, completion) token counts."""
        raise NotImplementedError

    async def acomplete(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        """:meth:`complete` without blocking the event loop (default: in a worker thread)."""
        return await asyncio.to_thread(self.complete, messages)

    async def aclose(self) -> None:
        """Release what the event-loop path holds (connections); the harness calls it when an
        in-flight slot is done with the agent. Default: nothing to release."""
