"""verifiers environments for every env: multi-turn RL (GRPO with prime-rl or verifiers' trainer).

Install with ``pip install "mtp-gym[verifiers]"`` (verifiers 0.4's ``verifiers.v1`` stack) and
run, e.g.::

    vf-eval mtp_gym_verifiers --env.taskset.env MTP/WordGuess-v0 --env.taskset.split 20 \\
        --model MODEL --client.base-url http://127.0.0.1:8000/v1 --no-push

* :class:`MTPTaskset`: one task per episode ``mtp-gym eval`` plays (``split``: ``"full"`` or
  ``N``, stratified like ``mtp-gym eval --split N``; ``samples`` and ``seed`` as ``--samples``
  and ``--seed``: each sample is its own task with its own reset seed; ``env_kwargs``: e.g.
  ``{"difficulty": 3}`` or ``{"probe": "noise"}``), each task's prompt the first request.
  For training, ``configs="generated"`` gives ``split`` (an int N) configurations generated
  from seeds instead, never the benchmark split's (keep the benchmark for evaluation);
* :class:`MTPEnv`: the env plays the user: each model reply is played, the env's answer comes
  back as the next user turn, and the finished episode's score is the rollout's reward
  (``mtp_score``, weight 1), with ``outcome``, ``turns``, ``format_errors``, the
  configuration id and the reset seed in the trace's info. Each request is the one
  ``mtp-gym eval``'s chat agents send (the ``prompt_style`` suffix, the system prompt of
  verifiers' ``--env.taskset.system-prompt FILE``, ``max_history``); where a request does not continue the conversation (a fresh context,
  ``info["context_reset"]``, or turns dropped by ``max_history``) it opens a new
  conversation (another trace, same reward). The env stays the single source of rules and scores.

``vf-eval -n N`` takes the taskset's *first* N tasks (in configuration order), not a stratified
subset: use ``--env.taskset.split N`` for that. ``vf-eval -r K`` plays each task K times with
the same draw (a GRPO group); ``--env.taskset.samples K`` is ``mtp-gym eval --samples K``
(K draws per configuration).

:func:`load_environment` builds the env from Python (``load_environment("word_guess")``). The
model's seat defaults to verifiers' ``null`` harness (a plain chat loop: no tools, no code
execution) in the local ``subprocess`` runtime, its chat program run by this Python (verifiers'
own dependencies hold everything it imports) instead of an environment ``uv`` builds from the
network: rollouts run offline. ``--env.player.*`` changes the seat.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.dialects import parse_message
from verifiers.v1.harnesses.null import NullHarness, NullHarnessConfig
from verifiers.v1.runtimes import SubprocessConfig, SubprocessRuntime

from mtp_gym.integrations.session import ChatSettings, EnvSession, draws, env_id_of, source_kwargs, task_name

__all__ = ["MTPEnv", "MTPEnvConfig", "MTPTask", "MTPTaskData", "MTPTaskset", "MTPTasksetConfig", "load_environment"]

#: The taskset id verifiers imports (a top-level module re-exporting this one's classes).
TASKSET_ID = "mtp_gym_verifiers"


class MTPTasksetConfig(vf.TasksetConfig):
    """Which env, configurations and chat settings the rollouts play (``mtp-gym eval``'s options)."""

    env: str = "MTP/WordGuess-v0"
    """A registered id (``MTP/WordGuess-v0``) or its task name (``word_guess``)."""
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    """Env kwargs, e.g. ``{"difficulty": 3}`` or ``{"probe": "noise"}``."""
    split: str | int = "full"
    """``"full"`` or ``N`` configurations (stratified); with ``configs="generated"``: how many."""
    configs: str = "benchmark"
    """``benchmark`` (evaluation) or ``generated`` (training: fresh configurations from seeds)."""
    samples: int = 1
    """Episodes per configuration, each with its own reset seed (``mtp-gym eval --samples``)."""
    seed: int | None = None
    """Base seed of the reset seeds (``mtp-gym eval --seed``)."""
    prompt_style: str = "plain"
    """``plain``, ``answer_only`` or ``cot``: the suffix after every user message, and the env's own
    variant where it has one (``mtp-gym eval --prompt-style``)."""
    max_history: int | None = None
    """Send only the rules and the last N turns (``mtp-gym eval --max-history``)."""


class MTPTaskData(vf.TaskData):
    env_id: str
    env_kwargs: dict[str, Any]
    config_id: int | None
    seed: int
    chat: dict[str, Any] = Field(default_factory=dict)


class MTPTask(vf.Task[MTPTaskData, vf.State, vf.TaskConfig]):
    pass


class MTPTaskset(vf.Taskset[MTPTask, MTPTasksetConfig]):
    """One task per episode of the configured env (configuration and sample)."""

    def load(self) -> Iterator[MTPTask]:
        config = self.config
        env_id = env_id_of(config.env)
        # the system prompt: verifiers' own ``--env.taskset.system-prompt FILE`` (``mtp-gym eval --system-prompt``)
        chat = ChatSettings(config.prompt_style, self.system_prompt, config.max_history)
        kwargs = source_kwargs(config.env_kwargs, config.configs)
        session = EnvSession(env_id, kwargs, chat)
        try:
            for draw in draws(env_id, kwargs, config.split, config.samples, config.seed, config.configs):
                session.start_draw(draw)
                data = MTPTaskData(
                    name=f"{task_name(env_id)}#{draw.name}",
                    prompt=session.messages[-1]["content"],
                    system_prompt=chat.system_prompt,
                    env_id=env_id,
                    env_kwargs=kwargs,
                    config_id=draw.config_id,
                    seed=draw.seed,
                    chat={"prompt_style": chat.prompt_style, "max_history": chat.max_history},
                )
                yield MTPTask(data, config.task)
        finally:
            session.close()


class _HostPython:
    """A local runtime whose ``uv`` scripts run with this Python: verifiers' chat program needs
    only verifiers' own dependencies, so no environment is built (and nothing downloaded)."""

    def __init__(self, runtime: Any) -> None:
        self._runtime = runtime

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    async def prepare_uv_script(self, script: str | bytes, env: dict[str, str] | None = None, **_: Any) -> list[str]:
        data = script.encode() if isinstance(script, str) else script
        path = Path(tempfile.gettempdir()) / f"mtp-gym-vf-{hashlib.sha256(data).hexdigest()[:16]}.py"
        if not path.exists():
            # Named by its content and moved into place whole: concurrent rollouts (and runs) share
            # it, and none may start a Python on a file another is still writing.
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, delete=False) as part:
                part.write(data)
            os.replace(part.name, path)
        return [sys.executable, str(path)]


class LocalChatHarness(NullHarness):
    """verifiers' ``null`` chat loop, run by this Python in the local runtime (offline); in any
    other runtime (a container, a sandbox) verifiers' own way."""

    async def setup(self, runtime: Any) -> None:
        if not isinstance(runtime, SubprocessRuntime):
            await super().setup(runtime)

    async def launch(self, ctx: Any, trace: Any, runtime: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(runtime, SubprocessRuntime):
            runtime = _HostPython(runtime)
        return await super().launch(ctx, trace, runtime, *args, **kwargs)


class MTPEnvConfig(vf.EnvConfig):
    # verifiers' ``null`` harness: a plain chat loop, no tools, no code execution, run locally.
    player: vf.AgentConfig = vf.AgentConfig(harness=NullHarnessConfig(id="null"), runtime=SubprocessConfig())
    """The model's seat: by default a plain chat loop on this machine (``--env.player.*`` to change)."""


def _reply(segment: Any) -> str:
    """The model's last reply of a segment, as it said it (the harness plays it unstripped)."""
    for message in reversed(segment.messages):
        if getattr(message, "role", None) == "assistant":
            content = message.content
            return content if isinstance(content, str) else str(segment.last_reply or "")
    return segment.last_reply or ""


def _messages(messages: list[dict[str, str]]) -> list[Any]:
    return [parse_message(m) for m in messages]


class MTPEnv(vf.Env[MTPEnvConfig]):
    """The env answers every model reply until the episode ends; its score is the reward."""

    async def run(self, task: MTPTask, agents: Any) -> None:
        data = task.data
        chat = ChatSettings(system_prompt=data.system_prompt, **data.chat)
        session = EnvSession(data.env_id, data.env_kwargs, chat)
        player = agents.player
        if type(player.harness) is NullHarness:  # the null chat loop without uv (offline)
            player.harness = LocalChatHarness(player.harness.config)
        head = len(chat.head())
        traces = []
        try:
            session.start(data.config_id, data.seed)
            terminated = False
            while not (session.done or terminated):
                # a conversation: continued while each request extends the one before
                prompt = session.prompt()[head:]
                first: Any = prompt[0]["content"] if len(prompt) == 1 else _messages(prompt)
                async with player.interaction(task.with_data(prompt=first)) as interaction:
                    held = prompt
                    segment = await interaction.turn()
                    while not (terminated := segment.terminated):
                        reply = _reply(segment)
                        session.send(reply)
                        prompt = session.prompt()[head:]
                        if session.done or prompt[:-1] != [*held, {"role": "assistant", "content": reply}]:
                            break
                        held = prompt
                        segment = await interaction.turn(prompt[-1]["content"])
                traces.append(interaction.trace)
            result = session.result()
            info = {**result.as_dict(), "config_id": data.config_id, "seed": data.seed, "finished": session.done}
            for trace in traces:  # every conversation of the episode earns the episode's score
                trace.record_reward("mtp_score", result.score if session.done else 0.0, 1.0)
                trace.info.update(info)
        finally:
            session.close()


def load_environment(
    env: str = "MTP/WordGuess-v0", split: str | int = "full", env_kwargs: dict[str, Any] | None = None, **config: Any
) -> MTPEnv:
    """An :class:`MTPEnv` over ``env``'s configurations (``config``: :class:`MTPTasksetConfig`
    fields such as ``samples``, ``seed``, ``prompt_style``, ``max_history``, ``configs``, and
    further ``EnvConfig`` fields)."""
    fields = {k: config.pop(k) for k in list(config) if k in MTPTasksetConfig.model_fields and k != "id"}
    taskset = MTPTasksetConfig(
        id=TASKSET_ID, env=env_id_of(env), env_kwargs=dict(env_kwargs or {}), split=split, **fields
    )
    return MTPEnv(MTPEnvConfig(taskset=taskset, **config))
