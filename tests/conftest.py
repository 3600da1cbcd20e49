"""Shared fixtures: the registry every contract test runs over."""

from __future__ import annotations

import gymnasium as gym
import pytest

import mtp_gym
from mtp_gym.agents import agent_kinds

ENV_IDS = sorted(mtp_gym.ENV_IDS)


@pytest.fixture(params=ENV_IDS)
def env_id(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def env(env_id: str):
    env = gym.make(env_id)
    yield env
    env.close()


def play_random(env: gym.Env, env_id: str, config_id: int, seed: int = 0):
    """Yield (observation, info) along one episode of the env's random agent."""
    from mtp_gym.agents import make_agent
    from mtp_gym.eval.runner import public_info

    agent = make_agent("random", env_id)
    agent.reset(seed=seed)
    obs, info = env.reset(seed=seed, options={"config_id": config_id})
    yield obs, info
    done = False
    while not done:
        obs, _, term, trunc, info = env.step(agent.act(obs, public_info(info)))
        done = term or trunc
        yield obs, info


__all__ = ["ENV_IDS", "agent_kinds", "play_random"]
