"""The runner: one policy, one env, a list of benchmark configurations.

:func:`run_episode` plays one episode (an :class:`agents.base.InfrastructureError` from the
policy ends it with outcome ``"infra_error"``, which :func:`summarize` leaves out);
:func:`evaluate` plays a list of configurations in-process. The ``mtp-gym eval`` harness
(:mod:`mtp_gym.eval.harness`) adds concurrency, the JSONL log and resuming on top.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

import gymnasium as gym

import mtp_gym  # noqa: F401  (registers the ids)


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
    #: ``None``, or what went wrong outside the model (outcome ``"infra_error"``).
    error: str | None = None
    #: Who produced each action in a hand-off run (``"first"`` / ``"finisher"``), else empty.
    actors: list[str] = field(default_factory=list)
    seed: int | None = None
    #: The secret state at the end (``info["hidden"]``), for error analysis; never shown to the policy.
    hidden: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def public_info(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without the secret: what a policy is allowed to see."""
    return {k: v for k, v in info.items() if k != "hidden"}


#: Outcome of an episode the agent could not finish for reasons outside the model.
INFRA_ERROR = "infra_error"


def run_episode(
    env: gym.Env, policy: Any, *, config_id: int | None = None, seed: int | None = None
) -> EpisodeResult:
    """Play one episode of ``policy`` on ``env`` (benchmark ``config_id``, or ``seed``).

    The env is reset with ``seed`` (default: ``config_id``) so stochastic envs and
    policies are repeatable per configuration.
    """
    from agents.base import InfrastructureError

    if seed is None:
        seed = config_id
    start = time.perf_counter()
    options = None if config_id is None else {"config_id": config_id}
    obs, info = env.reset(seed=seed, options=options)
    policy.reset(seed=seed)
    terminated = truncated = False
    error = None
    try:
        while not (terminated or truncated):
            obs, _, terminated, truncated, info = env.step(policy.act(obs, public_info(info)))
    except InfrastructureError as err:
        error = str(err) or type(err).__name__
    base = env.unwrapped
    usage = getattr(policy, "usage", None) or {}
    return EpisodeResult(
        env_id=env.spec.id if env.spec else type(base).__name__,
        config_id=info["config_id"],
        outcome=INFRA_ERROR if error else info["outcome"],
        score=float("nan") if error else float(info["score"]),
        turns=info["turn"],
        format_errors=info["format_errors"],
        seconds=time.perf_counter() - start,
        transcript=base.transcript if hasattr(base, "transcript") else [],
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
        error=error,
        actors=list(getattr(policy, "actors", [])),
        seed=seed,
        hidden=info.get("hidden", {}) if not error else {},
    )


def evaluate(
    env_id: str,
    agent: str | Any,
    config_ids: Iterable[int] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    keep_transcripts: bool = False,
) -> list[EpisodeResult]:
    """Play ``agent`` (a spec for :func:`agents.make_agent`, or a policy) over ``config_ids``
    (default: the whole benchmark split) of ``env_id``."""
    env = gym.make(env_id, **(env_kwargs or {}))
    if isinstance(agent, str):
        from agents import make_agent

        agent = make_agent(agent, env_id)
    if config_ids is None:
        config_ids = range(env.unwrapped.num_configs)
    results = []
    for config_id in config_ids:
        result = run_episode(env, agent, config_id=config_id)
        if not keep_transcripts:
            result.transcript = []
        results.append(result)
    env.close()
    return results


def summarize(results: list[EpisodeResult]) -> dict[str, float]:
    """Mean score (with a normal-approximation 95% CI), success rate, mean turns.

    Episodes with outcome ``"infra_error"`` are left out (they are no model result).
    """
    results = [r for r in results if r.outcome != INFRA_ERROR]
    n = len(results)
    if n == 0:
        raise ValueError("results: nothing to summarize (0 episodes without infra_error)")
    scores = [r.score for r in results]
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / (n - 1) if n > 1 else 0.0
    solved = [r.turns for r in results if r.success]
    return {
        "episodes": n,
        "mean_score": mean,
        "ci95": 1.96 * math.sqrt(var / n),
        "success_rate": len(solved) / n,
        "mean_turns": sum(r.turns for r in results) / n,
        "mean_turns_success": sum(solved) / len(solved) if solved else float("nan"),
        "format_errors": sum(r.format_errors for r in results) / n,
    }
