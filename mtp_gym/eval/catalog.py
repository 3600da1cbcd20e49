"""The table behind ``mtp-gym list`` and the play page's menu: every registered env."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.agents import agent_kinds
from mtp_gym.eval.report import suite_of
from mtp_gym.games.base import LEVELS
from mtp_gym.games.env import DEFAULT_DIFFICULTY
from mtp_gym.registration import ENV_IDS, GAME_IDS

__all__ = ["env_table"]


def env_table() -> list[dict[str, Any]]:
    """One row per registered id: suite (paper, or a query game's cell), levels, split size
    (query games: per level), the scripted agents it has."""
    rows = []
    for env_id in ENV_IDS:
        env = gym.make(env_id)
        game = env_id in GAME_IDS
        rows.append(
            {
                "id": env_id,
                "suite": ("Query games, " if game else "") + suite_of(env_id)[1],
                "levels": f"{LEVELS[0]}-{LEVELS[-1]} (default {DEFAULT_DIFFICULTY})" if game else "-",
                "split": env.unwrapped.num_configs,
                "agents": ", ".join(agent_kinds(env_id)),
            }
        )
        env.close()
    return rows
