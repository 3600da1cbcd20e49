"""Reading a reply is linear in its length, whatever its characters (issue 27).

A model stuck in a loop writes ``<answer>`` or ``<think>`` thousands of times, or repeats a
move's words inside one tag; a lazy tag pattern searched from every opening tag made the first
quadratic (49 s at 256 KB), and MovieRec's reading of every " over " split the second (2.5 s
and 206 MB at 57 KB). Each env
(and the probes that read replies of their own) plays hostile replies of two sizes, 8x apart;
the time may grow about 8x, never the 64x of quadratic reading. ``benchmarks/hostile_replies.py``
prints the times up to 1 MB.
"""

from __future__ import annotations

import time

import gymnasium as gym
import pytest
from helpers import ENV_IDS, shown_tags

SMALL, LARGE = 16 << 10, 128 << 10
TARGETS = [(e, {}) for e in ENV_IDS] + [
    ("MTP/HiddenNumber-v0", {"probe": "necessity"}),
    ("MTP/HiddenNumber-v0", {"probe": "counterfactual"}),
]


def _replies(names: list[str], examples: list[tuple[str, str]], size: int) -> list[str]:
    units = [f"<{n}>" for n in names] + [f"</{n}>" for n in names] + [f"<{n}>1 " for n in names]
    units += ["<", "< <", "'a ", "no yes ", "\u2212-1 ", "<CHOICE>: 1 "]
    repeated = [f"<{n}>{(c + ' ') * (size // (len(c) + 1))}</{n}>" for n, c in examples]  # a move's words looping
    return [u * (size // len(u)) for u in units] + repeated


def _seconds(env: gym.Env, replies: list[str]) -> float:
    total = 0.0
    for reply in replies:
        env.reset(options={"config_id": 0})
        start = time.perf_counter()
        env.step(reply)
        total += time.perf_counter() - start
    return total


@pytest.mark.parametrize(("env_id", "kwargs"), TARGETS, ids=[f"{e}{'-' + k['probe'] if k else ''}" for e, k in TARGETS])
def test_reading_time_grows_linearly_with_the_reply(env_id: str, kwargs: dict) -> None:
    env = gym.make(env_id, disable_env_checker=True, **kwargs)
    first, _ = env.reset(options={"config_id": 0})
    names, examples = shown_tags(env, first)
    small = min(_seconds(env, _replies(names, examples, SMALL)) for _ in range(2))
    large = min(_seconds(env, _replies(names, examples, LARGE)) for _ in range(2))
    assert large / small < 24, f"{SMALL >> 10} KB: {small:.4f} s, {LARGE >> 10} KB: {large:.4f} s"
