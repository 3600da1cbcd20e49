"""mtp-gym's verifiers environment under the top-level name verifiers loads by id.

``vf-eval mtp_gym_verifiers --env.taskset.env MTP/WordGuess-v0 ...``: verifiers imports a
taskset id as a top-level module and takes the classes in its ``__all__``. The code lives in
:mod:`mtp_gym.integrations.verifiers_env` (needs ``pip install "mtp-gym[verifiers]"``).
"""

from mtp_gym.integrations.verifiers_env import (
    MTPEnv,
    MTPEnvConfig,
    MTPTask,
    MTPTaskData,
    MTPTaskset,
    MTPTasksetConfig,
    load_environment,
)

__all__ = ["MTPEnv", "MTPEnvConfig", "MTPTask", "MTPTaskData", "MTPTaskset", "MTPTasksetConfig", "load_environment"]
