"""Memory stays flat however many distinct replies an env reads (issue 27).

A model's replies are all different: a cache keyed by reply text (a regex match cache, the
Word Guess reply cache) grew without bound (52 -> 146 MB over 100k replies with "think";
338 MB for 6,000 Word Guess replies of 50 KB). 100k distinct replies, short and long, with
reasoning blocks, are played through envs of every reader kind; the memory Python holds after
them (resident set) may not exceed what it held after the first 20k by more than 16 MB.
"""

from __future__ import annotations

import os

import gymnasium as gym
import pytest

STEPS, WARM = 100_000, 20_000
MOVES = {
    "MTP/WordGuess-v0": "<attempt>{w}</attempt>",
    "MTP/HiddenNumber-v0": "<query_greater>{n}</query_greater>",
    "MTP/TwentyQuestions-v0": "Answer: {yn}",
}


def _reply(template: str, i: int) -> str:
    move = template.format(w="ABCDEFGHIJ"[i % 10] * 5, n=1 + i % 3, yn="yes" if i % 2 else "no")
    if i % 5 == 2:
        return f"Reply {i}: {'z' * 8_000} {move}"
    if i % 3 == 0:
        return f"<think>step {i}: {'x' * (i % 500)}</think> {move}"
    if i % 3 == 1:
        return f"I think {i} is a good step {'y' * 1_000} {move}"
    return f"{move} #{i}"


@pytest.mark.parametrize("env_id", sorted(MOVES))
def test_memory_is_flat_over_100k_distinct_replies(env_id: str) -> None:
    env = gym.make(env_id, disable_env_checker=True).unwrapped
    template = MOVES[env_id]
    env.reset(options={"config_id": 0})
    held = 0
    for i in range(STEPS):
        _, _, terminated, truncated, _ = env.step(_reply(template, i))
        if terminated or truncated or i % 4 == 3:
            env.reset(options={"config_id": i % 7})
        if i == WARM:
            held = _resident()
    grown = _resident() - held
    assert grown < 16 << 20, f"{grown / 2**20:.1f} MB more after {STEPS} replies than after {WARM}"


def _resident() -> int:
    """The process's resident set in bytes (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
