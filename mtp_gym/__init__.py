"""mtp-gym: Gymnasium-compatible multi-turn puzzles for language-model agents.

Importing the package registers every ``MTP/*`` id::

    import gymnasium as gym
    import mtp_gym  # noqa: F401
    env = gym.make("MTP/WordGuess-v0")

``gym.make("mtp_gym:MTP/WordGuess-v0")`` imports the package for you.
"""

from mtp_gym.core import InvalidAction, Reply, TextPuzzleEnv
from mtp_gym.multiagent import word_chain_v0  # noqa: E402,F401  (PettingZoo AEC env: mtp_gym.word_chain_v0.env())
from mtp_gym.registration import ENV_IDS, register_envs

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "InvalidAction", "Reply", "TextPuzzleEnv", "register_envs", "__version__"]

register_envs()
