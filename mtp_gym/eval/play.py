"""One episode of an agent config: what every backend runs (in this process, a thread or
process pool, an event loop, or a Ray worker), building the env and the agent from specs."""

from __future__ import annotations

import re
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.agents.base import is_model_spec, provider_of, transport_kwargs
from mtp_gym.episode import arun_episode, run_episode
from mtp_gym.eval.record import EpisodeRecord, episode_record
from mtp_gym.eval.splits import episode_seed

__all__ = ["AgentConfig", "aplay_config", "play_config"]


@dataclass(frozen=True)
class AgentConfig:
    """What plays: an agent spec with its kwargs, optionally handing over to a finisher.

    ``spec`` is anything :func:`mtp_gym.agents.make_agent` accepts (``oracle``, ``random``,
    ``openai:MODEL``, ``hf:PATH``, ``py:module:factory``). With ``finisher`` set, ``spec`` plays
    turns 1 … ``handoff_turn``-1 and ``finisher`` takes over the conversation at turn
    ``handoff_turn`` (:class:`mtp_gym.agents.llm.HandoffAgent`).
    """

    spec: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    finisher: str | None = None
    finisher_kwargs: dict[str, Any] = field(default_factory=dict)
    handoff_turn: int | None = None

    def __post_init__(self) -> None:
        if (self.finisher is None) != (self.handoff_turn is None):
            raise ValueError("--finisher and --handoff-turn go together: give both or neither")

    @property
    def label(self) -> str:
        """The name of this agent in logs and reports."""
        if self.finisher is None:
            return self.spec
        return f"{self.spec}>{self.finisher}@{self.handoff_turn}"

    @property
    def slug(self) -> str:
        """A directory name for the label."""
        return re.sub(r"[^A-Za-z0-9._@-]+", "_", self.label.replace(">", "_then_"))

    def identity(self) -> dict[str, Any]:
        """What must not change within one run directory (transport settings may: every model
        provider's ``transport_kwargs``, :func:`mtp_gym.agents.base.model_provider`)."""
        d = asdict(self)
        for kw in (d["kwargs"], d["finisher_kwargs"]):
            for key in transport_kwargs():
                kw.pop(key, None)
        return {"agent": self.label, **d}

    def build(self, env_id: str) -> Any:
        from mtp_gym.agents import make_agent

        agent = make_agent(self.spec, env_id, **self.kwargs)
        if self.finisher is None:
            return agent
        from mtp_gym.agents.llm.handoff import HandoffAgent

        assert self.handoff_turn is not None  # set with finisher (__post_init__)
        return HandoffAgent(agent, make_agent(self.finisher, env_id, **self.finisher_kwargs), self.handoff_turn)

    def is_endpoint(self) -> bool:
        """Whether every agent of the config plays through an endpoint (a provider with
        ``endpoint=True``: ``openai:``)."""
        return all(s is None or _endpoint_spec(s) for s in (self.spec, self.finisher))

    def is_model(self) -> bool:
        """Whether an agent of the config is a model (``openai:``, ``hf:``, ``py:``), not a scripted one."""
        return any(is_model_spec(s) for s in (self.spec, self.finisher))


def _endpoint_spec(spec: str) -> bool:
    provider = provider_of(spec)
    return provider is not None and provider.endpoint


# Per-worker (thread or process) envs and agents, built once and reused across episodes.
_LOCAL = threading.local()


def play_config(
    agent_config: AgentConfig,
    env_id: str,
    env_kwargs: dict[str, Any],
    config_id: int,
    sample: int = 0,
    seed: int | None = None,
) -> EpisodeRecord:
    """Play sample ``sample`` of one benchmark configuration and return its log record (worker
    entry point); the episode's reset seed is :func:`episode_seed`."""
    cache = getattr(_LOCAL, "cache", None)
    if cache is None:
        cache = _LOCAL.cache = {}
    env, agent = _player(cache, agent_config, env_id, env_kwargs)
    result = run_episode(env, agent, config_id=config_id, seed=episode_seed(config_id, sample, seed))
    return episode_record(agent_config, env_id, sample, result, env_kwargs)


async def aplay_config(
    players: dict[tuple, Any],
    agent_config: AgentConfig,
    env_kwargs: dict[str, Any],
    task: tuple[str, int, int],
    seed: int | None,
) -> EpisodeRecord:
    """:func:`play_config` of ``task`` (env id, config id, sample) on the event loop; ``players``
    belong to one in-flight slot and are reused for its next episodes."""
    env_id, config_id, sample = task
    env, agent = _player(players, agent_config, env_id, env_kwargs)
    result = await arun_episode(env, agent, config_id=config_id, seed=episode_seed(config_id, sample, seed))
    return episode_record(agent_config, env_id, sample, result, env_kwargs)


def _player(cache: dict[tuple, Any], agent_config: AgentConfig, env_id: str, env_kwargs: dict[str, Any]) -> Any:
    """The (env, agent) pair of ``cache`` for this env and kwargs, built on first use."""
    key = (repr(agent_config), env_id, repr(sorted(env_kwargs.items())))
    if key not in cache:
        # No PassiveEnvChecker: it scans the first observation of every env it wraps
        # (Text.contains), and a run builds one env per in-flight episode.
        cache[key] = (gym.make(env_id, disable_env_checker=True, **env_kwargs), agent_config.build(env_id))
    return cache[key]
