"""Every ``MTP/*`` environment id, registered in one place and grouped by paper.

No id sets ``max_episode_steps``: each env enforces its own turn budget (a malformed action
costs no turn, which a ``TimeLimit`` wrapper would get wrong).
"""

from __future__ import annotations

import gymnasium as gym

#: env id -> entry point, grouped by paper.
ENV_IDS: dict[str, str] = {
    # Multi-Turn Puzzles
    "MTP/WordGuess-v0": "mtp_gym.envs.word_guess:WordGuessEnv",
}


def register_envs() -> None:
    """Register every id (idempotent)."""
    for env_id, entry_point in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=entry_point)
