"""Policies the harness tests load through ``--agent py:harness_agents:…`` (tests/ on PYTHONPATH)."""

from __future__ import annotations

import time
from typing import Any

from mtp_gym.agents import make_agent


class SlowAgent:
    """An env's scripted agent that takes ``delay`` seconds per action (so a run can be killed mid-way)."""

    def __init__(self, env: str, kind: str = "random", delay: float = 0.02) -> None:
        self.inner = make_agent(kind, env)
        self.delay = delay

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed=seed)

    def act(self, observation: str, info: dict[str, Any]) -> str:
        time.sleep(self.delay)
        return self.inner.act(observation, info)
