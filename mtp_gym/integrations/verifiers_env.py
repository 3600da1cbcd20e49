"""verifiers environments for every env: multi-turn RL (GRPO with prime-rl or verifiers' trainer).

Install with ``pip install "mtp-gym[verifiers]"`` (verifiers 0.4's ``verifiers.v1`` stack) and
run, e.g.::

    vf-eval mtp_gym_verifiers --env.taskset.env MTP/WordGuess-v0 --env.taskset.split 20 \\
        --model MODEL --client.base-url http://127.0.0.1:8000/v1 --no-push

* :class:`MTPTaskset`: one task per benchmark configuration of ``env`` (``split``: ``"full"``
  or ``N``, stratified like ``mtp-gym eval --split N``; ``env_kwargs``: e.g. level or probe),
  each task's prompt the env's first message;
* :class:`MTPEnv`: the env plays the user: each model reply is played, the env's answer comes
  back as the next user turn, and the finished episode's score is the rollout's reward
  (``mtp_score``, weight 1), with ``outcome``, ``turns``, ``format_errors`` and the
  configuration id in the trace's info. Where the env starts a fresh context
  (``info["context_reset"]``, the necessity probe's phase 2) the episode continues in a new
  conversation (a second trace, same reward). The env stays the single source of rules and scores.

:func:`load_environment` builds the env from Python (``load_environment("word_guess")``). The
model's seat defaults to verifiers' ``null`` harness (a plain chat loop: no tools, no code
execution) in the local ``subprocess`` runtime; ``--env.player.*`` changes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.harnesses.null import NullHarnessConfig
from verifiers.v1.runtimes import SubprocessConfig

from mtp_gym.integrations.session import EnvSession, configurations, env_id_of, task_name

__all__ = ["MTPEnv", "MTPEnvConfig", "MTPTask", "MTPTaskData", "MTPTaskset", "MTPTasksetConfig", "load_environment"]

#: The taskset id verifiers imports (a top-level module re-exporting this one's classes).
TASKSET_ID = "mtp_gym_verifiers"


class MTPTasksetConfig(vf.TasksetConfig):
    """Which env and configurations the rollouts play."""

    env: str = "MTP/WordGuess-v0"
    """A registered id (``MTP/WordGuess-v0``) or its task name (``word_guess``)."""
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Env kwargs, e.g. ``{"level": 3}`` or ``{"probe": "noise"}``."""
    split: str | int = "full"
    """``"full"`` or ``N`` configurations (stratified)."""


class MTPTaskData(vf.TaskData):
    env_id: str
    env_kwargs: dict[str, Any]
    config_id: int


class MTPTask(vf.Task[MTPTaskData, vf.State, vf.TaskConfig]):
    pass


class MTPTaskset(vf.Taskset[MTPTask, MTPTasksetConfig]):
    """One task per benchmark configuration of the configured env."""

    def load(self) -> Iterator[MTPTask]:
        config = self.config
        env_id = env_id_of(config.env)
        session = EnvSession(env_id, config.env_kwargs)
        try:
            for config_id in configurations(env_id, config.env_kwargs, config.split):
                data = MTPTaskData(
                    name=f"{task_name(env_id)}#{config_id}",
                    prompt=session.start(config_id),
                    env_id=env_id,
                    env_kwargs=config.env_kwargs,
                    config_id=config_id,
                )
                yield MTPTask(data, config.task)
        finally:
            session.close()


class MTPEnvConfig(vf.EnvConfig):
    # verifiers' ``null`` harness: a plain chat loop, no tools, no code execution, run locally.
    player: vf.AgentConfig = vf.AgentConfig(harness=NullHarnessConfig(id="null"), runtime=SubprocessConfig())
    """The model's seat: by default a plain chat loop on this machine (``--env.player.*`` to change)."""


class MTPEnv(vf.Env[MTPEnvConfig]):
    """The env answers every model reply until the episode ends; its score is the reward."""

    async def run(self, task: MTPTask, agents: Any) -> None:
        data = task.data
        session = EnvSession(data.env_id, data.env_kwargs)
        traces = []
        try:
            session.start(data.config_id)
            context = task  # the task's prompt is the env's first message
            while True:
                terminated = False
                async with agents.player.interaction(context) as interaction:
                    segment = await interaction.turn()
                    while not (terminated := segment.terminated):
                        answer = session.send(segment.last_reply or "")
                        if session.done or session.context_reset:
                            break
                        segment = await interaction.turn(answer)
                traces.append(interaction.trace)
                if session.done or terminated:
                    break
                # the env starts a fresh context (the necessity probe's phase 2): a new
                # conversation whose prompt is that message alone
                context = task.with_data(prompt=answer)
            result = session.result()
            for trace in traces:  # every conversation of the episode earns the episode's score
                trace.record_reward("mtp_score", result.score if session.done else 0.0, 1.0)
                trace.info.update({**result.as_dict(), "config_id": data.config_id, "finished": session.done})
        finally:
            session.close()


def load_environment(
    env: str = "MTP/WordGuess-v0", split: str | int = "full", env_kwargs: dict[str, Any] | None = None, **config: Any
) -> MTPEnv:
    """An :class:`MTPEnv` over ``env``'s configurations (``config``: further ``EnvConfig`` fields)."""
    taskset = MTPTasksetConfig(id=TASKSET_ID, env=env_id_of(env), env_kwargs=dict(env_kwargs or {}), split=split)
    return MTPEnv(MTPEnvConfig(taskset=taskset, **config))
