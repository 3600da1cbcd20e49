"""Word Guess throughput: env steps/s (raw env, gym.make, 8-env vector), peak memory, oracle split time.

Run: ``python benchmarks/word_guess.py [--steps N]``. The player is scripted: it sends a
random word of the current vocabulary (pre-built action strings, so the figure is the env's cost).
"""

from __future__ import annotations

import argparse
import resource
import time

import gymnasium as gym
import numpy as np
from _common import single_env_rate, vector_rate

import mtp_gym  # noqa: F401
from mtp_gym.agents.oracles import word_guess as oracle_module
from mtp_gym.envs.word_guess import WordGuessEnv, benchmark_vocabularies
from mtp_gym.eval import evaluate, summarize

ENV_ID = "MTP/WordGuess-v0"


def word_indices(n: int, seed: int = 12345) -> np.ndarray:
    """Pre-drawn vocabulary indices for the scripted random player."""
    return np.random.default_rng(seed).integers(40, size=n)


ACTIONS = [[f"<attempt>{w}</attempt>" for w in v] for v in benchmark_vocabularies()]


def send_word(info: dict, i: int) -> str:
    """The scripted player: word ``i`` of the current episode's vocabulary."""
    return ACTIONS[info["hidden"]["vocabulary_id"]][i]


def send_words(info: dict, row: list[int]) -> tuple[str, ...]:
    """The scripted player in each env of a vector env."""
    # info["hidden"]: one read-only mapping per env (fixed for the episode)
    return tuple(ACTIONS[h["vocabulary_id"]][i] for h, i in zip(info["hidden"], row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300_000)
    args = parser.parse_args()
    idx = word_indices(args.steps)

    picks = idx.tolist()
    raw = single_env_rate(WordGuessEnv(), picks, send_word).wall
    made = single_env_rate(gym.make(ENV_ID), picks, send_word).wall
    print(f"single env, raw class      : {raw:>10,.0f} steps/s")
    print(
        f"single env, gym.make       : {made:>10,.0f} steps/s  ({made / raw:.2f}x raw; passive checker + order enforcing)"
    )
    vec_steps = idx[: max(8, args.steps // 3)]
    rows = vec_steps[: len(vec_steps) // 8 * 8].reshape(-1, 8).tolist()
    sync = vector_rate(ENV_ID, rows, send_words, "sync")
    print(f"vector sync, 8 envs        : {sync:>10,.0f} steps/s  ({sync / made:.2f}x single gym.make)")
    asyn = vector_rate(ENV_ID, rows, send_words, "async")
    print(f"vector async, 8 envs       : {asyn:>10,.0f} steps/s  ({asyn / made:.2f}x single gym.make)")

    oracle_module.solver_for.cache_clear()
    start = time.perf_counter()
    results = evaluate(ENV_ID, "oracle")
    seconds = time.perf_counter() - start
    s = summarize(results)
    print(
        f"oracle, full split (400)   : {seconds:>10.2f} s (trees solved from scratch)  "
        f"mean attempts {s['mean_turns']:.4f}, mean score {s['mean_score']:.4f}, solved {s['success_rate']:.0%}"
    )
    per_vocab = [sum(r.turns for r in results[i * 40 : (i + 1) * 40]) / 40 for i in range(10)]
    print("oracle mean attempts per vocabulary: " + ", ".join(f"{x:.3f}" for x in per_vocab))
    start = time.perf_counter()
    rnd = summarize(evaluate(ENV_ID, "random"))
    print(
        f"random, full split (400)   : {time.perf_counter() - start:>10.2f} s  "
        f"mean attempts {rnd['mean_turns']:.2f}, mean score {rnd['mean_score']:.4f}"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS)          : {peak:>10.1f} MiB")


if __name__ == "__main__":
    main()
