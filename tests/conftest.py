"""Shared fixtures: the registry every contract test runs over (helpers live in ``helpers.py``)."""

from __future__ import annotations

import gymnasium as gym
import pytest
from helpers import ENV_IDS


@pytest.fixture(params=ENV_IDS)
def env_id(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def env(env_id: str):
    env = gym.make(env_id)
    yield env
    env.close()
