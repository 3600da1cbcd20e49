"""The runner: one policy, one env, a list of benchmark configurations.

:func:`evaluate` plays a list of configurations in-process through
:func:`mtp_gym.episode.run_episode` (an :class:`mtp_gym.episode.InfrastructureError` from
the policy ends an episode with outcome ``"infra_error"``, which :func:`summarize` leaves
out). The ``mtp-gym eval`` harness (:mod:`mtp_gym.eval.harness`) adds concurrency, the JSONL
log and resuming on top.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, cast

import gymnasium as gym

import mtp_gym  # noqa: F401  (registers the ids)
from mtp_gym.agents import make_agent
from mtp_gym.core import TextPuzzleEnv
from mtp_gym.episode import INFRA_ERROR, EpisodeResult, public_info, run_episode

__all__ = ["INFRA_ERROR", "EpisodeResult", "evaluate", "public_info", "run_episode", "summarize"]


def evaluate(
    env_id: str,
    agent: str | Any,
    config_ids: Iterable[int] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    keep_transcripts: bool = False,
) -> list[EpisodeResult]:
    """Play ``agent`` (a spec for :func:`mtp_gym.agents.make_agent`, or a policy) over ``config_ids``
    (default: the whole benchmark split) of ``env_id``."""
    env = gym.make(env_id, **(env_kwargs or {}))
    if isinstance(agent, str):
        agent = make_agent(agent, env_id)
    if config_ids is None:
        config_ids = range(cast(TextPuzzleEnv, env.unwrapped).num_configs)
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
