"""The table behind ``mtp-gym list`` and the play page's menu: every registered env."""

from __future__ import annotations

from typing import Any, cast

import gymnasium as gym

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym import TextPuzzleEnv, puzzle_info
from mtp_gym.agents import agent_kinds
from mtp_gym.registration import ENV_IDS

__all__ = ["env_table"]


def env_table() -> list[dict[str, Any]]:
    """One row per registered id: suite (paper, or a query game's cell), levels, split size
    (query games: per level), the scripted agents it has."""
    rows = []
    for env_id in ENV_IDS:
        env = gym.make(env_id)
        info = puzzle_info(env_id)
        rows.append(
            {
                "id": env_id,
                "suite": (f"{info.paper}, " if info.cell else "") + info.suite,
                "levels": f"{info.levels[0]}-{info.levels[-1]} (default {info.default_level})" if info.levels else "-",
                "split": cast(TextPuzzleEnv, env.unwrapped).num_configs,
                "agents": ", ".join(agent_kinds(env_id)),
            }
        )
        env.close()
    return rows
