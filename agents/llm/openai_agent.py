"""A chat agent behind any OpenAI-compatible endpoint (hosted APIs, vLLM, llama.cpp, SGLang, Ollama)."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any

from mtp_gym.agents.llm.chat import ChatAgent
from mtp_gym.agents.llm.prompts import PromptStyle
from mtp_gym.episode import InfrastructureError

__all__ = ["OpenAIChatAgent", "is_transient"]

#: HTTP statuses worth another try: request timeout, conflict, rate limit, server errors.
TRANSIENT_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))


def is_transient(err: BaseException) -> bool:
    """True for transport errors a retry can cure: timeouts, lost connections, 429, 5xx."""
    import openai

    if isinstance(err, (openai.APITimeoutError, openai.APIConnectionError)):
        return True
    return isinstance(err, openai.APIStatusError) and err.status_code in TRANSIENT_STATUSES


class OpenAIChatAgent(ChatAgent):
    """Plays through the official ``openai`` client's chat completions.

    Args:
        model: the model name the endpoint serves.
        base_url: the endpoint (default: ``$OPENAI_BASE_URL``, else OpenAI's API).
        api_key_env: environment variable holding the key (default ``OPENAI_API_KEY``); a
            local endpoint (``base_url`` given) gets a placeholder key when it is unset.
        temperature, top_p, max_tokens, seed, stop: sampling parameters (``None``: the
            endpoint's default, as the Multi-Turn Puzzles paper used); ``extra`` adds any other
            ``chat.completions.create`` argument (e.g. ``{"reasoning_effort": "high"}``).
        prompt_style, system_prompt: see :mod:`mtp_gym.agents.llm.prompts`.
        max_retries: tries after the first for transient transport errors (timeouts, lost
            connections, 429, 5xx), with exponential backoff from ``backoff`` seconds (doubling,
            capped at ``max_backoff``, jittered). When they are spent, or for any other API
            error (bad request, auth, unknown model), :class:`InfrastructureError` is raised:
            the harness records ``infra_error``, never a model loss.
        timeout: seconds per request.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float | None = None,
        top_p: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        stop: list[str] | None = None,
        extra: dict[str, Any] | None = None,
        prompt_style: str | PromptStyle = "plain",
        system_prompt: str | None = None,
        max_retries: int = 6,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        timeout: float = 600.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import openai

        if not model:
            raise ValueError("model: empty model name; use 'openai:MODEL'")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        api_key = os.environ.get(api_key_env)
        if api_key is None:
            if base_url is None:
                raise ValueError(f"api_key_env: ${api_key_env} is not set (needed for OpenAI's API; or give base_url)")
            api_key = "no-key"
        self.model = model
        self.base_url = base_url
        self.params = {
            k: v
            for k, v in {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens, "stop": stop}.items()
            if v is not None
        } | dict(extra or {})
        self.fixed_seed = seed
        self.max_retries, self.backoff, self.max_backoff = max_retries, backoff, max_backoff
        self._sleep = sleep
        self._jitter = random.Random()
        # The client's own retries are off: ours count, log and end in InfrastructureError.
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        super().__init__(prompt_style, system_prompt)

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        import openai

        params = dict(self.params)
        seed = self.fixed_seed if self.fixed_seed is not None else self.seed
        if seed is not None:
            params["seed"] = seed
        for attempt in range(self.max_retries + 1):
            try:
                response = self.client.chat.completions.create(model=self.model, messages=messages, **params)
                break
            except openai.OpenAIError as err:
                if not is_transient(err):
                    raise InfrastructureError(f"{type(err).__name__} from {self.base_url or 'OpenAI'}: {err}") from err
                if attempt == self.max_retries:
                    raise InfrastructureError(
                        f"{type(err).__name__} from {self.base_url or 'OpenAI'} after {attempt + 1} tries: {err}"
                    ) from err
                self.usage["retries"] += 1
                delay = min(self.max_backoff, self.backoff * 2**attempt)
                self._sleep(delay * (0.5 + self._jitter.random() / 2))
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content if choice and choice.message else None) or ""
        usage = response.usage
        return text, int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)
