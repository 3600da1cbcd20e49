"""Adapters to the frameworks researchers already use; each an optional extra.

* :mod:`~mtp_gym.integrations.inspect_tasks` (``[inspect]``): an Inspect AI task per env,
  ``inspect eval mtp_gym/word_guess --model openai/gpt-4o``;
* :mod:`~mtp_gym.integrations.verifiers_env` (``[verifiers]``): a verifiers multi-turn
  environment per env, ``vf-eval mtp_gym_verifiers --env.taskset.env MTP/WordGuess-v0``;
* :mod:`~mtp_gym.integrations.openenv_server` (``[openenv]``): an OpenEnv server exposing
  every env and its client, ``mtp-gym serve-env``;
* :mod:`~mtp_gym.integrations.trl` (``[rl]``): TRL's ``GRPOTrainer`` on whole episodes, a
  token-exact multi-turn ``rollout_func`` (``EnvRollout``, the env's tokens masked out of the
  loss) and its datasets (``grpo_dataset``: generated configurations to train on, the benchmark
  split to evaluate on).

All four drive :class:`~mtp_gym.integrations.session.EnvSession`, so the env stays the single
source of rules, replies and scores, and each replays what ``mtp-gym eval`` plays, setting by
setting: the configurations (``split``, or generated ones for training), ``samples`` and
``seed`` (the same reset seeds), levels and probes (env kwargs), and the requests its chat
agents send (``prompt_style`` with its suffix, ``system_prompt``, ``max_history``). :mod:`~mtp_gym.integrations.scripted` replays an agent's
moves as a model (a function, or an OpenAI-compatible endpoint on 127.0.0.1) for dry runs.
Nothing here imports a framework: each adapter module does.
"""

from mtp_gym.integrations.scripted import ScriptedEndpoint, scripted_draws, scripted_moves, table_model
from mtp_gym.integrations.session import (
    ChatSettings,
    Draw,
    EnvSession,
    EpisodeScore,
    configurations,
    draws,
    env_id_of,
    registered_ids,
    source_kwargs,
    styled_env_kwargs,
    task_name,
)

__all__ = [
    "ChatSettings",
    "Draw",
    "EnvSession",
    "EpisodeScore",
    "ScriptedEndpoint",
    "configurations",
    "draws",
    "env_id_of",
    "registered_ids",
    "scripted_draws",
    "scripted_moves",
    "source_kwargs",
    "styled_env_kwargs",
    "table_model",
    "task_name",
]
