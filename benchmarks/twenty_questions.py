"""Twenty Questions throughput: env steps/s (raw env, gym.make, 8-env vector), answerers' split times.

Run: ``python benchmarks/twenty_questions.py [--steps N]``. The scripted player answers
"yes"/"no" from a pre-drawn sequence (so the figure is the env's cost: answer parsing,
consistency check, the user simulator's next question, resets included). Then the oracle,
the adversarial answerer and the random agent play the full 400-configuration split.
"""

from __future__ import annotations

import argparse
import resource
import time

import gymnasium as gym
import numpy as np
from _common import single_env_rate, vector_rate

import mtp_gym  # noqa: F401
from mtp_gym.envs.twenty_questions import TwentyQuestionsEnv, prepared_lexicon
from mtp_gym.eval import evaluate, summarize

ENV_ID = "MTP/TwentyQuestions-v0"
ACTIONS = ("no", "yes")


def answers(n: int, seed: int = 12345) -> list[str]:
    """Pre-drawn answers for the scripted player (3 in 4 are "no": games last longer)."""
    return [ACTIONS[i] for i in (np.random.default_rng(seed).random(n) < 0.25).tolist()]


def send(info: dict, action: str) -> str:
    """The scripted player: the next pre-drawn answer, whatever the question."""
    return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    args = parser.parse_args()
    acts = answers(args.steps)

    prepared_lexicon.cache_clear()
    start = time.perf_counter()
    env = TwentyQuestionsEnv()
    for i in range(400):
        env.reset(options={"config_id": i})
    print(f"first reset of all 400 configs : {time.perf_counter() - start:>8.2f} s (lexicons prepared, then cached)")
    raw, _, episodes = single_env_rate(TwentyQuestionsEnv(), acts, send)
    made = single_env_rate(gym.make(ENV_ID), acts, send).wall
    print(
        f"single env, raw class          : {raw:>10,.0f} steps/s  ({args.steps / max(episodes, 1):.1f} steps/episode)"
    )
    print(
        f"single env, gym.make           : {made:>10,.0f} steps/s  ({made / raw:.2f}x raw; passive checker + order enforcing)"
    )
    vec = acts[: max(8, args.steps // 3)]
    rows = [tuple(vec[i : i + 8]) for i in range(0, len(vec) - 8 + 1, 8)]
    sync = vector_rate(ENV_ID, rows, send, "sync")
    print(f"vector sync, 8 envs            : {sync:>10,.0f} steps/s  ({sync / made:.2f}x single gym.make)")
    asyn = vector_rate(ENV_ID, rows, send, "async")
    print(f"vector async, 8 envs           : {asyn:>10,.0f} steps/s  ({asyn / made:.2f}x single gym.make)")
    gen = single_env_rate(TwentyQuestionsEnv(configs="generated"), acts[: args.steps // 5], send).wall
    print(f"generated lexicons, raw class  : {gen:>10,.0f} steps/s  ({gen / raw:.2f}x benchmark configs)")

    for agent in ("oracle", "adversarial", "random"):
        start = time.perf_counter()
        s = summarize(evaluate(ENV_ID, agent))
        seconds = time.perf_counter() - start
        print(
            f"{agent + ', full split (400)':<31}: {seconds:>8.2f} s  mean score {s['mean_score']:.4f} "
            f"(+/- {s['ci95']:.4f}), mean turns {s['mean_turns']:.2f}, format errors {s['format_errors']:.2f}"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS)              : {peak:>8.1f} MiB")


if __name__ == "__main__":
    main()
