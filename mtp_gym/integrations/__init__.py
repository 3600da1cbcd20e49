"""Adapters to the frameworks researchers already use; each an optional extra.

* :mod:`~mtp_gym.integrations.inspect_tasks` (``[inspect]``): an Inspect AI task per env,
  ``inspect eval mtp_gym/word_guess --model openai/gpt-4o``;
* :mod:`~mtp_gym.integrations.verifiers_env` (``[verifiers]``): a verifiers multi-turn
  environment per env, ``vf-eval mtp_gym_verifiers --env.taskset.env MTP/WordGuess-v0``;
* :mod:`~mtp_gym.integrations.openenv_server` (``[openenv]``): an OpenEnv server exposing
  every env and its client, ``mtp-gym serve-env``.

All three drive :class:`~mtp_gym.integrations.session.EnvSession`, so the env stays the single
source of rules, replies and scores, and each plays the configurations ``mtp-gym eval`` plays
(``split``) with the same resets. :mod:`~mtp_gym.integrations.scripted` replays an agent's
moves as a model (a function, or an OpenAI-compatible endpoint on 127.0.0.1) for dry runs.
Nothing here imports a framework: each adapter module does.
"""

from mtp_gym.integrations.scripted import ScriptedEndpoint, scripted_moves, table_model
from mtp_gym.integrations.session import (
    EnvSession,
    EpisodeScore,
    configurations,
    env_id_of,
    registered_ids,
    task_name,
)

__all__ = [
    "EnvSession",
    "EpisodeScore",
    "ScriptedEndpoint",
    "configurations",
    "env_id_of",
    "registered_ids",
    "scripted_moves",
    "table_model",
    "task_name",
]
