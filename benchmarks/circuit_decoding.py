"""Circuit Decoding throughput: env steps/s (raw env, gym.make, 8-env vector) and oracle split time.

Run: ``python benchmarks/circuit_decoding.py [--steps N]``. The scripted player sends random
valid queries and, once the budget is spent, a random guess (pre-built action strings, so
the figure is the env's cost). The oracle is timed on the full split of 300 with its prior
tables computed from scratch, next to the random agent measured in the same run.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections import Counter

import gymnasium as gym
import numpy as np
from _common import single_env_rate, vector_rate

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.circuit_decoding.env import CircuitDecodingEnv, call_text, function_distribution, row_inputs
from mtp_gym.eval import evaluate, summarize
from mtp_gym.eval.runner import run_episode

ENV_ID = "MTP/CircuitDecoding-v0"
SHAPES = {24 // (1 << k): k for k in (2, 3)}  # num_circuits -> num_inputs


def action_tables(seed: int = 12345) -> dict[int, tuple[list[str], list[str]]]:
    """Per shape (keyed by num_circuits): every legal query string and a few random guesses."""
    rng = np.random.default_rng(seed)
    tables = {}
    for c, k in SHAPES.items():
        queries = [
            f"<query>{call_text('ABCDEF'[i], row_inputs(r, k))}</query>" for i in range(c) for r in range(1 << k)
        ]
        guesses = [f"<guess>{''.join(map(str, rng.integers(2, size=24)))}</guess>" for _ in range(64)]
        tables[c] = (queries, guesses)
    return tables


def _action(tables: dict[int, tuple[list[str], list[str]]], num_circuits: int, turn: int, pick: int) -> str:
    """The scripted player's move: a random legal query, or a random guess once the budget is spent."""
    queries, guesses = tables[num_circuits]
    return queries[pick % len(queries)] if turn < 18 else guesses[pick % len(guesses)]


TABLES = action_tables()


def play(info: dict, pick: int) -> str:
    """The scripted player in one env."""
    return _action(TABLES, info["hidden"]["num_circuits"], info["turn"], pick)


def play_row(info: dict, row: list[int]) -> list[str]:
    """The scripted player in each env of a vector env."""
    turns = info["turn"]  # info["hidden"]: one read-only mapping per env (fixed for the episode)
    return [_action(TABLES, h["num_circuits"], turns[e], pick) for e, (h, pick) in enumerate(zip(info["hidden"], row))]


def oracle_split() -> None:
    function_distribution.cache_clear()
    env = gym.make(ENV_ID)
    oracle = make_agent("oracle", ENV_ID)
    start = time.perf_counter()
    results, queries, certain = [], [], 0
    for config_id in range(env.unwrapped.num_configs):
        result = run_episode(env, oracle, config_id=config_id)
        results.append(result)
        queries.append(result.turns - 1)
        certain += oracle.posterior.certain()
    seconds = time.perf_counter() - start
    s = summarize(results)
    full = [r.score == 1.0 for r in results]
    print(
        f"oracle, full split (300)   : {seconds:>10.2f} s (prior tables from scratch)  "
        f"mean score {s['mean_score']:.4f}, all circuits right on {sum(full)}/300 ({s['success_rate']:.1%})"
    )
    print(
        f"  by shape                 : 3x3 {sum(full[:150])}/150, 6x2 {sum(full[150:])}/150; "
        f"certain before answering on {certain}/300"
    )
    print(
        f"  queries used             : mean {statistics.mean(queries):.2f}, median {statistics.median(queries):g}, "
        f"min {min(queries)}, max {max(queries)}; histogram {dict(sorted(Counter(queries).items()))}"
    )
    print(
        f"  vs paper's best model    : Gemini 2.0 Pro 32.2% -> {s['success_rate'] * 100 - 32.2:.1f} points below the oracle"
    )
    start = time.perf_counter()
    rnd = summarize(evaluate(ENV_ID, "random"))
    rnd_seconds = time.perf_counter() - start
    print(
        f"random, full split (300)   : {rnd_seconds:>10.2f} s  mean score {rnd['mean_score']:.4f}, "
        f"all right {rnd['success_rate']:.1%}  (oracle/random time {seconds / rnd_seconds:.1f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    args = parser.parse_args()
    picks = np.random.default_rng(7).integers(1 << 20, size=args.steps).tolist()
    raw, raw_cpu, _ = single_env_rate(CircuitDecodingEnv(), picks, play)
    made, made_cpu, _ = single_env_rate(gym.make(ENV_ID), picks, play)
    print(f"single env, raw class      : {raw:>10,.0f} steps/s  ({raw_cpu:,.0f} per CPU second)")
    print(
        f"single env, gym.make       : {made:>10,.0f} steps/s  ({made_cpu:,.0f} per CPU second; "
        f"{made_cpu / raw_cpu:.2f}x raw: passive checker + order enforcing)"
    )
    rounds = max(8, args.steps // 3) // 8
    sync = vector_rate(ENV_ID, np.random.default_rng(7).integers(1 << 20, size=(rounds, 8)).tolist(), play_row)
    print(f"vector sync, 8 envs        : {sync:>10,.0f} steps/s  ({sync / made:.2f}x single gym.make)")
    oracle_split()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS)          : {peak:>10.1f} MiB")


if __name__ == "__main__":
    main()
