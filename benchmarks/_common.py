"""The timing loops the env benchmarks share (``from _common import single_env_rate, vector_rate``).

Each benchmark scripts a player: ``choose(info, pick)`` turns the last ``info`` and the next
pre-drawn pick into an action (a pre-built string, so the figure is the env's cost, not the
player's), and these loops time the env stepping through them, resets included.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

import gymnasium as gym

P = TypeVar("P")


class Rate(NamedTuple):
    """Steps per wall-clock second, steps per CPU second, and the episodes finished."""

    wall: float
    cpu: float
    episodes: int


def single_env_rate(env: gym.Env, picks: Sequence[P], choose: Callable[[dict[str, Any], P], Any]) -> Rate:
    """One env (``env.reset(seed=0)`` first) stepped with ``choose(info, pick)`` for each pick,
    reset whenever an episode ends."""
    _, info = env.reset(seed=0)
    step, reset = env.step, env.reset
    episodes = 0
    start, cpu = time.perf_counter(), time.process_time()
    for pick in picks:
        _, _, term, trunc, info = step(choose(info, pick))
        if term or trunc:
            episodes += 1
            _, info = reset()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Rate(len(picks) / wall, len(picks) / cpu, episodes)


def vector_rate(
    env_id: str,
    rows: Sequence[P],
    choose: Callable[[dict[str, Any], P], Iterable[Any]],
    mode: str = "sync",
    num_envs: int = 8,
) -> float:
    """Steps/s of ``num_envs`` envs in a Gymnasium vector env (``vectorization_mode=mode``,
    autoreset: next-step), one ``envs.step(tuple(choose(info, row)))`` per row."""
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode)
    _, info = envs.reset(seed=0)
    start = time.perf_counter()
    for row in rows:
        _, _, _, _, info = envs.step(tuple(choose(info, row)))
    rate = len(rows) * num_envs / (time.perf_counter() - start)
    envs.close()
    return rate
