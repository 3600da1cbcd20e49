"""A chat agent behind any OpenAI-compatible endpoint (hosted APIs, vLLM, llama.cpp, SGLang, Ollama)."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import random
import time
from collections.abc import Callable, Generator
from typing import Any
from urllib.parse import unquote

from mtp_gym.agents.llm.async_endpoint import AsyncConnection
from mtp_gym.agents.llm.chat import ChatAgent
from mtp_gym.agents.llm.endpoint import Connection, Dropped, Fault, Unreachable, classify, redact_url
from mtp_gym.agents.llm.prompts import PromptStyle
from mtp_gym.episode import ContextOverflow, EndpointUnreachable, InfrastructureError

__all__ = ["OpenAIChatAgent", "OPENAI_BASE_URL", "BASE_URL_ENV", "API_KEY_ENV"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: The environment variable of the default endpoint, and of the key (``api_key_env``'s default).
BASE_URL_ENV, API_KEY_ENV = "OPENAI_BASE_URL", "OPENAI_API_KEY"
_log = logging.getLogger(__name__)
#: Endpoints already warned about replies without usable token counts (one warning each).
_WARNED_USAGE: set[str] = set()


class OpenAIChatAgent(ChatAgent):
    """Plays through an endpoint's ``/chat/completions``.

    Args:
        model: the model name the endpoint serves.
        base_url: the endpoint (default: ``$OPENAI_BASE_URL``, else OpenAI's API);
            ``user:password@`` in it is sent as basic auth and never logged.
        api_key_env: environment variable holding the key (default ``OPENAI_API_KEY``); a
            local endpoint (``base_url`` given) gets a placeholder key when it is unset.
        temperature, top_p, max_tokens, seed, stop: sampling parameters (``None``: the
            endpoint's default, as the Multi-Turn Puzzles paper used); ``extra`` adds any other
            request field (e.g. ``{"reasoning_effort": "high"}``).
        prompt_style, system_prompt: see :mod:`mtp_gym.agents.llm.prompts`.
        max_history: send only the rules and the last ``max_history`` turns (:mod:`mtp_gym.history`).
        timeout: seconds for one whole request, connection to last byte (default 120).
        action_timeout: seconds for one action, retries and waits included (default 600).
        max_retries: tries after the first for faults a retry can cure: lost or refused
            connections, a passed deadline, HTTP 408/409/425/429/5xx, and a 200 whose body is
            not a chat completion (malformed JSON, a proxy's HTML page, no ``choices``,
            content neither text nor a list of parts, a body over
            :data:`~mtp_gym.agents.llm.endpoint.MAX_BODY`, cut off there).
            Waits double from ``backoff`` seconds (capped at ``max_backoff``, jittered), or
            follow the server's ``Retry-After``.

    When the retries or the action's time are spent, or at once for any other error (bad
    request, auth, unknown model), :class:`~mtp_gym.episode.InfrastructureError` is raised
    (:class:`~mtp_gym.episode.EndpointUnreachable` when no connection could be made): the
    harness records ``infra_error``, never a model loss. A prompt that no longer fits the
    context window raises :class:`~mtp_gym.episode.ContextOverflow` at once: the episode
    ends as ``context_overflow``, the model's failure. ``reasoning_content`` (or
    ``reasoning``) of a reply is kept in ``agent.reasoning``, one entry per action. Content
    sent as a list of parts is read as their text; token counts that are not counts (missing
    ``usage``, a string, NaN) add 0 and are counted in ``usage["unknown_usage"]`` (with one
    warning per endpoint), never a reason to stop.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = API_KEY_ENV,
        temperature: float | None = None,
        top_p: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        stop: list[str] | None = None,
        extra: dict[str, Any] | None = None,
        prompt_style: str | PromptStyle = "plain",
        system_prompt: str | None = None,
        max_history: int | None = None,
        max_retries: int = 6,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        timeout: float = 120.0,
        action_timeout: float = 600.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model:
            raise ValueError("model: empty model name; use 'openai:MODEL'")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        for name, value in (("timeout", timeout), ("action_timeout", action_timeout)):
            if not value > 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        base_url = base_url or os.environ.get(BASE_URL_ENV)
        api_key = os.environ.get(api_key_env)
        if api_key is None:
            if base_url is None:
                raise ValueError(f"api_key_env: ${api_key_env} is not set (needed for OpenAI's API; or give base_url)")
            api_key = "no-key"
        self.model = model
        self.connection = Connection(base_url or OPENAI_BASE_URL)
        self._aconnection: AsyncConnection | None = None
        self.base_url = redact_url(base_url)
        self.where = self.base_url or "OpenAI"
        self.headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "mtp-gym"}
        if self.connection.userinfo is not None:
            basic = base64.b64encode(unquote(self.connection.userinfo).encode()).decode()
            self.headers["Authorization"] = f"Basic {basic}"
        else:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self.params = {
            k: v
            for k, v in {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens, "stop": stop}.items()
            if v is not None
        } | dict(extra or {})
        self.fixed_seed = seed
        self.max_retries, self.backoff, self.max_backoff = max_retries, backoff, max_backoff
        self.timeout, self.action_timeout = timeout, action_timeout
        self._sleep = sleep
        self._jitter = random.Random()
        super().__init__(prompt_style, system_prompt, max_history)

    def _payload(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        payload = {"model": self.model, "messages": messages, **self.params}
        seed = self.fixed_seed if self.fixed_seed is not None else self.seed
        if seed is not None:
            payload["seed"] = seed
        return payload

    def _attempts(self) -> Generator[tuple[str, float], Any, tuple[str, int, int]]:
        """The retry policy, apart from any I/O: yields ``("post", deadline)`` and is sent the
        outcome (a reply dict or a :class:`Fault`), or yields ``("sleep", seconds)``; returns
        (text, prompt tokens, completion tokens) or raises what ends the action."""
        end = time.monotonic() + self.action_timeout
        for attempt in range(self.max_retries + 1):
            fault = yield "post", min(end, time.monotonic() + self.timeout)
            if not isinstance(fault, Fault):
                self.last_reasoning = fault["reasoning"]
                if fault["usage_note"] is not None:
                    self._unknown_usage(fault["usage_note"])
                return fault["content"], fault["prompt_tokens"] or 0, fault["completion_tokens"] or 0
            if fault.overflow:
                raise ContextOverflow(f"{self.where}: {fault.message}")
            if not fault.transient:
                raise InfrastructureError(f"{self.where}: {fault.message}")
            delay = fault.wait
            if delay is None:
                delay = min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + self._jitter.random() / 2)
            delay = min(delay, self.max_backoff)
            if attempt == self.max_retries or time.monotonic() + delay >= end:
                spent = (
                    "tries" if attempt == self.max_retries else f"tries within action_timeout={self.action_timeout:g}s"
                )
                if fault.unreachable:
                    raise EndpointUnreachable(
                        f"endpoint unreachable: {self.where} after {attempt + 1} {spent}: {fault.message}"
                    )
                raise InfrastructureError(f"{self.where} after {attempt + 1} {spent}: {fault.message}")
            if fault.unreachable and attempt == 0:
                _log.warning(
                    "%s is unreachable (%s); retrying for up to %d tries", self.where, fault.message, self.max_retries
                )
            self.usage["retries"] += 1
            yield "sleep", delay
        raise AssertionError("unreachable")  # the loop returns or raises

    def _unknown_usage(self, note: str) -> None:
        """Count a reply whose token counts are unknown (they add 0); say so once per endpoint."""
        self.usage["unknown_usage"] = self.usage.get("unknown_usage", 0) + 1
        if self.where not in _WARNED_USAGE:
            _WARNED_USAGE.add(self.where)
            _log.warning(
                "%s: token usage unknown (%s): such replies count 0 tokens (agent.usage['unknown_usage'] counts them)",
                self.where,
                note,
            )

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        payload = self._payload(messages)
        policy = self._attempts()
        outcome: Any = None
        try:
            while True:
                kind, value = policy.send(outcome)
                outcome = self._try(payload, value) if kind == "post" else self._sleep(value)
        except StopIteration as done:
            return done.value

    async def acomplete(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        payload = self._payload(messages)
        policy = self._attempts()
        outcome: Any = None
        try:
            while True:
                kind, value = policy.send(outcome)
                if kind == "post":
                    outcome = await self._atry(payload, value)
                    continue
                if self._sleep is time.sleep:
                    await asyncio.sleep(value)
                else:  # an injected clock (tests) decides how waiting works
                    self._sleep(value)
                outcome = None
        except StopIteration as done:
            return done.value

    async def aclose(self) -> None:
        """Close the keep-alive connection of the event-loop path (a later action opens a new one)."""
        if self._aconnection is not None:
            self._aconnection.close()
            self._aconnection = None

    def _try(self, payload: dict[str, Any], deadline: float) -> dict[str, Any] | Fault:
        try:
            answer = self.connection.post("/chat/completions", payload, self.headers, deadline)
        except (Unreachable, Dropped) as err:
            return _transport_fault(err)
        return _meaning(answer)

    async def _atry(self, payload: dict[str, Any], deadline: float) -> dict[str, Any] | Fault:
        if self._aconnection is None:
            self._aconnection = AsyncConnection(self.connection)
        try:
            answer = await self._aconnection.post("/chat/completions", payload, self.headers, deadline)
        except (Unreachable, Dropped) as err:
            return _transport_fault(err)
        return _meaning(answer)


def _transport_fault(err: Exception) -> Fault:
    return Fault(str(err), transient=True, unreachable=isinstance(err, Unreachable))


def _meaning(answer: Any) -> dict[str, Any] | Fault:
    """What an answer means; one :func:`classify` cannot read is an endpoint fault, never a crash."""
    try:
        result = classify(answer)
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as err:
        reading = f"{type(err).__name__}: {err}"
        return Fault(f"HTTP {answer.status} with an answer that could not be read ({reading})", transient=True)
    return result if isinstance(result, Fault) else result[1]
