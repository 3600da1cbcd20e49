"""Helpers the test modules share (fixtures stay in ``conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym

import mtp_gym
from mtp_gym.agents import agent_kinds, make_agent
from mtp_gym.episode import play

__all__ = ["ENV_IDS", "agent_kinds", "play_random"]

ENV_IDS = sorted(mtp_gym.ENV_IDS)


def play_random(env: gym.Env, env_id: str, config_id: int, seed: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (observation, info) along one episode of the env's random agent."""
    for step in play(env, make_agent("random", env_id), config_id=config_id, seed=seed):
        yield step.observation, step.info
