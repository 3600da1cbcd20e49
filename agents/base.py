"""The policy interface every agent implements, and the agent registry behind ``make_agent``."""

from __future__ import annotations

from typing import Any, Callable, Protocol, runtime_checkable

__all__ = ["Policy", "register_agent", "make_agent", "agent_kinds"]


@runtime_checkable
class Policy(Protocol):
    """A thin policy around an env: it sees observations and ``info`` without ``hidden``.

    ``reset(seed)`` starts a new episode (the seed makes stochastic policies repeatable);
    ``act(observation, info)`` is called with the reset observation first, then with each
    reply, and returns the action text.
    """

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, observation: str, info: dict[str, Any]) -> str: ...


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
    """Build the agent named by ``spec`` (``"oracle"``, ``"random"``, …) for ``env_id``."""
    env_id = _base_id(env_id)
    if env_id not in _REGISTRY:
        raise ValueError(f"env_id={env_id!r} has no agents; allowed: {sorted(_REGISTRY)}")
    kinds = _REGISTRY[env_id]
    if spec not in kinds:
        raise ValueError(f"agent spec {spec!r} is not available for {env_id}; allowed: {sorted(kinds)}")
    return kinds[spec](**kwargs)
