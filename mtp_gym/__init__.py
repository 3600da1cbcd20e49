"""mtp-gym: Gymnasium-compatible multi-turn puzzles for language-model agents.

Importing the package registers every ``MTP/*`` id::

    import gymnasium as gym
    import mtp_gym  # noqa: F401
    env = gym.make("MTP/WordGuess-v0")

``gym.make("mtp_gym:MTP/WordGuess-v0")`` imports the package for you.
"""

import inspect
from collections.abc import Callable
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mtp_gym.core import InvalidAction, PuzzleInfo, Reply, TextPuzzleEnv
from mtp_gym.multiagent import word_chain_v0  # noqa: E402,F401  (PettingZoo AEC env: mtp_gym.word_chain_v0.env())
from mtp_gym.registration import ENV_IDS, GAME_IDS, did_you_mean, register_envs
from mtp_gym.vector import make_vec

__version__ = "0.1.0"
__all__ = [
    "ENV_IDS",
    "InvalidAction",
    "PuzzleInfo",
    "Reply",
    "env_kwarg_names",
    "make_vec",
    "TextPuzzleEnv",
    "puzzle_class",
    "puzzle_info",
    "register_envs",
    "__version__",
]


def _spec_kwargs(env_id: str) -> dict[str, Any]:
    if not isinstance(env_id, str) or env_id not in ENV_IDS:
        hint = did_you_mean(env_id, ENV_IDS) if isinstance(env_id, str) else ""
        raise ValueError(f"env_id must be one of {sorted(ENV_IDS)}, got {env_id!r}{hint}")
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


def _keyword_names(function: Callable[..., Any]) -> list[str]:
    """The names ``function`` takes as keywords (``self`` and ``*args``/``**kwargs`` left out)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    params = inspect.signature(function).parameters.values()
    return [p.name for p in params if p.kind in kinds and p.name != "self"]


def env_kwarg_names(env_id: str) -> list[str]:
    """The kwargs ``gym.make(env_id, **kwargs)`` passes on to the env, read from its class's
    ``__init__`` (a query game: :class:`~mtp_gym.games.env.GameEnv`'s, plus its entry point's
    ``probe`` and ``probe_kwargs``), without those the id itself sets (``game``)."""
    spec_kwargs = _spec_kwargs(env_id)
    names = _keyword_names(puzzle_class(env_id).__init__)
    creator: Any = load_env_creator(ENV_IDS[env_id])
    if not isinstance(creator, type):  # a factory (the query games'): its own kwargs too
        names += _keyword_names(creator)
    return sorted(set(names) - set(spec_kwargs))


register_envs()
