"""Turing Machine (TurnBench-MS) figures: env steps/s, generator setups/s, the oracle table.

Run: ``python benchmarks/turing_machine.py [--steps N] [--generated N]``. The scripted player
for the throughput figure cycles through pre-built legal actions (proposal, three queries,
deduce SKIP), so the figure is the env's cost. The oracle table plays the 250 well-formed
published setups of each mode, the 18 with a redundant verifier separately, and
``--generated`` fresh setups per mode and difficulty; accuracy, mean rounds, mean verifier
queries and mean turns (legal moves) are over won games, as the paper's "Win avg".
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import gymnasium as gym
import numpy as np
from _common import single_env_rate

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.episode import play_to_end
from mtp_gym.turing_machine import rules
from mtp_gym.turing_machine.env import TuringMachineEnv

ENV_ID = "MTP/TuringMachine-v0"
#: The paper's Tables 2-3: Best Human and the best model (accuracy, win avg turns, win avg VER).
PAPER = {
    "classic": {"Best Human": (1.0, 18, 8), "gpt-o4-mini-high CoT": (0.815, 16, 7)},
    "nightmare": {"Best Human": (1.0, 40, 20), "gemini-2.5-flash CoT": (0.178, 16, 8)},
}
ROUND = ["<CHOICE>: BLUE=1, YELLOW=2, PURPLE=3", "<CHOICE>: 0", "<CHOICE>: 1", "<CHOICE>: 2", "<CHOICE>: SKIP"]


def env_rate(env: gym.Env, steps: int) -> float:
    """Steps/s of a player repeating one round (proposal, three queries, skip), resets included."""
    return single_env_rate(env, range(steps), lambda info, i: ROUND[i % len(ROUND)]).wall


def generator_rate(difficulty: str, n: int) -> float:
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(n):
        rules.generate_setup(rng, difficulty)
    return n / (time.perf_counter() - start)


def row(label: str, infos: list[dict]) -> str:
    won = [i for i in infos if i["outcome"] == "success"]
    acc = len(won) / len(infos)
    mean = lambda key: np.mean([i["feedback"][key] for i in won]) if won else float("nan")  # noqa: E731
    turns = np.mean([i["turn"] for i in won]) if won else float("nan")
    return f"  {label:<24} n={len(infos):>4}  acc {acc:6.3f}  rounds {mean('rounds'):5.2f}  VER {mean('verifier_queries'):5.2f}  turns {turns:5.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--generated", type=int, default=1000, help="generated setups per mode and difficulty")
    args = parser.parse_args()

    raw = env_rate(TuringMachineEnv(), args.steps)
    made = env_rate(gym.make(ENV_ID), args.steps)
    night = env_rate(gym.make(ENV_ID, mode="nightmare"), args.steps)
    print(f"env, raw class (classic)       : {raw:>10,.0f} steps/s")
    print(f"env, gym.make (classic)        : {made:>10,.0f} steps/s  ({made / raw:.2f}x raw)")
    print(f"env, gym.make (nightmare)      : {night:>10,.0f} steps/s")
    for d in rules.DIFFICULTIES:
        print(f"generator, {d:<6}              : {generator_rate(d, 300):>10,.0f} setups/s")

    redundant = {s.setup_id for s in rules.published_setups() if rules.check_setup(s).redundant_slots}
    for mode in ("classic", "nightmare"):
        print(f"\noracle, {mode} (accuracy; rounds / verifier queries / turns over won games)")
        env = gym.make(ENV_ID, mode=mode)
        oracle = make_agent("oracle", ENV_ID)
        start = time.perf_counter()
        groups: dict[str, list[dict]] = defaultdict(list)
        for config_id in range(env.unwrapped.num_configs):
            info = play_to_end(env, oracle, config_id=config_id).info
            h = info["hidden"]
            groups["redundant (18)" if h["setup_id"] in redundant else h["difficulty"]].append(info)
        seconds = time.perf_counter() - start
        well = [i for d in rules.DIFFICULTIES for i in groups[d]]
        for d in rules.DIFFICULTIES:
            print(row(f"published {d}", groups[d]))
        print(row("published well-formed", well))
        print(row("published redundant", groups["redundant (18)"]))
        print(f"  (268 published setups in {seconds:.1f} s)")
        start = time.perf_counter()
        all_gen = []
        for d in rules.DIFFICULTIES:
            gen_d = gym.make(ENV_ID, mode=mode, setups="generated", difficulty=d)
            infos = [play_to_end(gen_d, oracle, seed=s).info for s in range(args.generated)]
            all_gen += infos
            print(row(f"generated {d}", infos))
        print(row("generated all", all_gen) + f"  ({time.perf_counter() - start:.1f} s)")
        for name, (acc, turns, ver) in PAPER[mode].items():
            print(f"  paper: {name:<22} acc {acc:6.3f}  turns {turns}  VER {ver}")
        rnd = make_agent("random", ENV_ID)
        infos = [play_to_end(env, rnd, config_id=i).info for i in range(env.unwrapped.num_configs)]
        print(
            f"  random agent: acc {np.mean([i['outcome'] == 'success' for i in infos]):.4f} (paper Random Guess ~0.008)"
        )


if __name__ == "__main__":
    main()
