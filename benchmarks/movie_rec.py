"""Movie Recommendation throughput: env steps/s (raw env, gym.make) and oracle seconds per split.

Run: ``python benchmarks/movie_rec.py [--steps N] [--configs N]``. The scripted player asks
random questions about two library movies and, once the questions are spent, names a random
movie of the new set (pre-built action strings, so the figure is the env's cost). The oracle
and the random agent then play the benchmark split (all 1000 configurations by default) in the
same run; the oracle's figures are its mean score, top-1 rate (outcome ``success``: the pick is
a best movie) and the share of episodes in which it met a ``No Preference`` answer.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np
from _common import single_env_rate

import mtp_gym  # noqa: F401
from mtp_gym.envs.movie_rec import N_MOVIE_SETS, MovieRecEnv, _benchmark_data
from mtp_gym.eval import evaluate, summarize

ENV_ID = "MTP/MovieRec-v0"


def action_tables(seed: int = 12345) -> list[tuple[list[str], list[str]]]:
    """Per benchmark movie set: 64 random questions and every final answer."""
    rng = np.random.default_rng(seed)
    tables = []
    for m in _benchmark_data()[1]:
        pairs = [rng.choice(len(m.seen_titles), 2, replace=False) for _ in range(64)]
        questions = [
            f"<question>Would you prefer watching {m.seen_titles[i]} over {m.seen_titles[j]}?</question>"
            for i, j in pairs
        ]
        finals = [f"<final_answer>{t}</final_answer>" for t in m.unseen_titles]
        tables.append((questions, finals))
    return tables


def random_player(tables: list[tuple[list[str], list[str]]]) -> Callable[[dict, int], str]:
    """The scripted player: question ``pick % 64`` of the episode's movie set while questions
    remain, then final answer ``pick`` (modulo their number)."""

    def choose(info: dict, pick: int) -> str:
        questions, finals = tables[info["config_id"] % N_MOVIE_SETS]
        return questions[pick % 64] if info["turn"] < 10 else finals[pick % len(finals)]

    return choose


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--configs", type=int, default=1000, help="first N benchmark configurations")
    args = parser.parse_args()

    picks = np.random.default_rng(7).integers(1 << 20, size=args.steps).tolist()
    raw = single_env_rate(MovieRecEnv(), picks, random_player(action_tables())).wall
    made = single_env_rate(gym.make(ENV_ID), picks, random_player(action_tables())).wall
    print(f"single env, raw class      : {raw:>10,.0f} steps/s")
    print(f"single env, gym.make       : {made:>10,.0f} steps/s  ({made / raw:.2f}x raw)")

    ids = range(args.configs)
    start = time.perf_counter()
    rnd = summarize(evaluate(ENV_ID, "random", ids))
    rnd_seconds = time.perf_counter() - start
    start = time.perf_counter()
    results = evaluate(ENV_ID, "oracle", ids, keep_transcripts=True)
    seconds = time.perf_counter() - start
    s = summarize(results)
    ties = np.mean(
        [any(m["content"].startswith("No Preference") for m in r.transcript if m["role"] == "user") for r in results]
    )
    print(
        f"oracle, {args.configs} configs    : {seconds:>10.1f} s ({seconds / args.configs * 1000:.0f} ms/episode)  "
        f"mean score {s['mean_score']:.4f} +- {s['ci95']:.4f}, top-1 {s['success_rate']:.1%}, "
        f"met a No Preference in {ties:.1%} of episodes"
    )
    print(
        f"random, {args.configs} configs    : {rnd_seconds:>10.1f} s  mean score {rnd['mean_score']:.4f} +- {rnd['ci95']:.4f}, "
        f"top-1 {rnd['success_rate']:.1%}  (oracle / random: {s['mean_score'] / rnd['mean_score']:.2f}x)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS)          : {peak:>10.1f} MiB")


if __name__ == "__main__":
    main()
