"""mtp-gym: Gymnasium-compatible multi-turn puzzles for language-model agents.

Importing the package registers every ``MTP/*`` id::

    import gymnasium as gym
    import mtp_gym  # noqa: F401
    env = gym.make("MTP/WordGuess-v0")

``gym.make("mtp_gym:MTP/WordGuess-v0")`` imports the package for you.
"""

from typing import Any

from gymnasium.envs.registration import load_env_creator

from mtp_gym.core import InvalidAction, PuzzleInfo, Reply, TextPuzzleEnv, check_choice
from mtp_gym.multiagent import word_chain_v0  # noqa: E402,F401  (PettingZoo AEC env: mtp_gym.word_chain_v0.env())
from mtp_gym.registration import ENV_IDS, GAME_IDS, register_envs

__version__ = "0.1.0"
__all__ = [
    "ENV_IDS",
    "InvalidAction",
    "PuzzleInfo",
    "Reply",
    "TextPuzzleEnv",
    "puzzle_class",
    "puzzle_info",
    "register_envs",
    "__version__",
]


def _spec_kwargs(env_id: str) -> dict[str, Any]:
    check_choice("env_id", env_id, sorted(ENV_IDS))
    return {"game": GAME_IDS[env_id]} if env_id in GAME_IDS else {}


def puzzle_class(env_id: str) -> type[TextPuzzleEnv]:
    """The env class behind a registered text-puzzle id (the query games share ``GameEnv``)."""
    _spec_kwargs(env_id)
    if env_id in GAME_IDS:
        from mtp_gym.games.env import GameEnv

        return GameEnv
    creator: object = load_env_creator(ENV_IDS[env_id])
    assert isinstance(creator, type) and issubclass(creator, TextPuzzleEnv)  # the entry point is the env class
    return creator


def puzzle_info(env_id: str) -> PuzzleInfo:
    """The puzzle's own facts (paper, what success means, prompt styles, a query game's cell
    and levels), read from its env class."""
    return puzzle_class(env_id).puzzle_info(**_spec_kwargs(env_id))


register_envs()
