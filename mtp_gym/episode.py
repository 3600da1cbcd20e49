"""The one episode loop: a policy plays an env until the episode ends.

Every caller plays through here: the runner and the ``mtp-gym eval`` harness, rollouts for
LLM trainers, the boundary probe's previous games, benchmarks, examples and tests.

* :func:`play` yields each :class:`Step` (the reset first, then one per ``env.step``), for a
  caller that looks at the episode as it goes;
* :func:`play_to_end` plays a whole episode and returns its last :class:`Step`;
* :func:`run_episode` plays a whole episode and returns its :class:`EpisodeResult`; an
  :class:`InfrastructureError` from the policy ends it with outcome ``"infra_error"`` (no score,
  replayed on resume), a :class:`ContextOverflow` with outcome ``"context_overflow"`` (the
  agent's failure: score 0, not replayed).

The policy sees ``info`` without ``hidden`` (:func:`public_info`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

import gymnasium as gym

__all__ = [
    "CONTEXT_OVERFLOW",
    "ContextOverflow",
    "EndpointUnreachable",
    "INFRA_ERROR",
    "EpisodeResult",
    "InfrastructureError",
    "Policy",
    "Step",
    "aplay",
    "arun_episode",
    "play",
    "play_to_end",
    "public_info",
    "run_episode",
]

#: Outcome of an episode the agent could not finish for reasons outside the model.
INFRA_ERROR = "infra_error"
#: Outcome of an episode whose prompt outgrew the model's context window: scored as a failure.
CONTEXT_OVERFLOW = "context_overflow"


class InfrastructureError(RuntimeError):
    """The agent could not act for a reason outside the model (endpoint down, retries spent).

    The harness records the episode with outcome ``"infra_error"``, keeps it out of every
    score and plays it again when the run is resumed: it is never a model loss.
    """


class EndpointUnreachable(InfrastructureError):
    """No connection to the endpoint at all (refused, unknown host, TLS failure).

    Several in a row at the start of a run mean a wrong ``--base-url`` or a server that is
    down: the harness stops the run with a clear message instead of burning every episode.
    """


class ContextOverflow(RuntimeError):
    """The conversation no longer fits the model's context window.

    A limit of the model, not of the infrastructure: the episode ends as
    ``"context_overflow"`` with score 0, counted in the agent's scores and never replayed.
    """


@runtime_checkable
class Policy(Protocol):
    """A thin policy around an env: it sees observations and ``info`` without ``hidden``.

    ``reset(seed)`` starts a new episode (the seed makes stochastic policies repeatable);
    ``act(observation, info)`` is called with the reset observation first, then with each
    reply, and returns the action text. Optional: ``async aact(observation, info)`` (played on
    the harness's event loop instead of a thread) and ``async aclose()`` (called when an
    in-flight slot is done with the agent: release connections).
    """

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, observation: str, info: dict[str, Any]) -> str: ...


def public_info(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without the secret: what a policy is allowed to see."""
    return {k: v for k, v in info.items() if k != "hidden"}


@dataclass
class Step:
    """One observation of the episode and the action that led to it (``None`` after reset)."""

    observation: Any
    info: dict[str, Any]
    action: Any = None
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated


def play(env: gym.Env, policy: Policy, *, config_id: int | None = None, seed: int | None = None) -> Iterator[Step]:
    """Reset ``env`` (benchmark ``config_id``, or ``seed``) and ``policy``, then yield every step.

    The env is reset with ``seed`` (default: ``config_id``) so stochastic envs and policies are
    repeatable per configuration. An exception from the policy (e.g. an
    :class:`InfrastructureError`) propagates to the caller.
    """
    step = _begin(env, policy, config_id, seed)
    yield step
    while not step.done:
        step = _advance(env, policy.act(step.observation, public_info(step.info)))
        yield step


async def aplay(
    env: gym.Env, policy: Any, *, config_id: int | None = None, seed: int | None = None
) -> AsyncIterator[Step]:
    """:func:`play` for a policy whose ``aact`` is a coroutine (it runs on the event loop; the
    env's steps run inline, they take microseconds)."""
    step = _begin(env, policy, config_id, seed)
    yield step
    while not step.done:
        step = _advance(env, await policy.aact(step.observation, public_info(step.info)))
        yield step


def _begin(env: gym.Env, policy: Any, config_id: int | None, seed: int | None) -> Step:
    if seed is None:
        seed = config_id
    options = None if config_id is None else {"config_id": config_id}
    obs, info = env.reset(seed=seed, options=options)
    policy.reset(seed=seed)
    return Step(obs, info)


def _advance(env: gym.Env, action: Any) -> Step:
    obs, reward, terminated, truncated, info = env.step(action)
    return Step(obs, info, action, float(reward), bool(terminated), bool(truncated))


def play_to_end(env: gym.Env, policy: Policy, *, config_id: int | None = None, seed: int | None = None) -> Step:
    """Play a whole episode (see :func:`play`) and return its last step: final observation and info."""
    return deque(play(env, policy, config_id=config_id, seed=seed), maxlen=1)[0]


@dataclass
class EpisodeResult:
    """What one finished episode leaves behind."""

    env_id: str
    config_id: int | None
    outcome: str
    score: float
    turns: int
    format_errors: int
    seconds: float
    transcript: list[dict[str, str]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: ``None``, or what ended the episode early (outcomes ``"infra_error"``, ``"context_overflow"``).
    error: str | None = None
    #: Who produced each action in a hand-off run (``"first"`` / ``"finisher"``), else empty.
    actors: list[str] = field(default_factory=list)
    seed: int | None = None
    #: The secret state at the end (``info["hidden"]``), for error analysis; never shown to the policy.
    hidden: dict[str, Any] = field(default_factory=dict)
    #: The reward of every ``env.step``, in order.
    rewards: list[float] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _with_reasoning(transcript: list[dict[str, Any]], policy: Policy) -> list[dict[str, Any]]:
    """The transcript with the policy's per-action ``reasoning`` (if it keeps any) added to
    its assistant messages."""
    reasoning = getattr(policy, "reasoning", None)
    if not reasoning or not any(reasoning):
        return transcript
    thoughts = iter(reasoning)
    out = []
    for message in transcript:
        if message["role"] == "assistant":
            thought = next(thoughts, None)
            if thought:
                message = {**message, "reasoning": thought}
        out.append(message)
    return out


def run_episode(
    env: gym.Env,
    policy: Policy,
    *,
    config_id: int | None = None,
    seed: int | None = None,
    on_step: Callable[[Step], None] | None = None,
) -> EpisodeResult:
    """Play one whole episode of ``policy`` on ``env`` (see :func:`play`) and return its result.

    ``on_step`` is called with every :class:`Step`, the reset included.
    """
    if seed is None:
        seed = config_id
    run = _Run(env, policy, seed, on_step)
    try:
        for step in play(env, policy, config_id=config_id, seed=seed):
            run.took(step)
    except (InfrastructureError, ContextOverflow) as err:
        run.failed(err)
    return run.result()


async def arun_episode(
    env: gym.Env,
    policy: Any,
    *,
    config_id: int | None = None,
    seed: int | None = None,
    on_step: Callable[[Step], None] | None = None,
) -> EpisodeResult:
    """:func:`run_episode` for a policy with a coroutine ``aact`` (see :func:`aplay`)."""
    if seed is None:
        seed = config_id
    run = _Run(env, policy, seed, on_step)
    try:
        async for step in aplay(env, policy, config_id=config_id, seed=seed):
            run.took(step)
    except (InfrastructureError, ContextOverflow) as err:
        run.failed(err)
    return run.result()


class _Run:
    """What :func:`run_episode` and :func:`arun_episode` gather while an episode is played."""

    def __init__(self, env: gym.Env, policy: Any, seed: int | None, on_step: Callable[[Step], None] | None) -> None:
        self.env, self.policy, self.seed, self.on_step = env, policy, seed, on_step
        self.start = time.perf_counter()
        self.error: str | None = None
        self.overflow: str | None = None
        self.rewards: list[float] = []
        self.step: Step | None = None

    def took(self, step: Step) -> None:
        self.step = step
        if step.action is not None:
            self.rewards.append(step.reward)
        if self.on_step is not None:
            self.on_step(step)

    def failed(self, err: Exception) -> None:
        if self.step is None:  # the policy could not even start: nothing was played
            raise err
        message = str(err) or type(err).__name__
        if isinstance(err, ContextOverflow):
            self.overflow = message
        else:
            self.error = message

    def result(self) -> EpisodeResult:
        env, policy, seed, step = self.env, self.policy, self.seed, self.step
        error, overflow, rewards, start = self.error, self.overflow, self.rewards, self.start
        assert step is not None  # play() yields the reset step first; failed() raises before it
        info = step.info
        base = env.unwrapped
        usage = getattr(policy, "usage", None) or {}
        return EpisodeResult(
            env_id=env.spec.id if env.spec else type(base).__name__,
            config_id=info["config_id"],
            outcome=INFRA_ERROR if error else CONTEXT_OVERFLOW if overflow else info["outcome"],
            score=float("nan") if error else 0.0 if overflow else float(info["score"]),
            turns=info["turn"],
            format_errors=info["format_errors"],
            seconds=time.perf_counter() - start,
            transcript=_with_reasoning(base.transcript if hasattr(base, "transcript") else [], policy),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            error=error or overflow,
            actors=list(getattr(policy, "actors", [])),
            seed=seed,
            hidden=info.get("hidden", {}) if not error else {},
            rewards=rewards,
        )
