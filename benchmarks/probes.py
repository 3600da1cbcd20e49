"""The probes of the query games: oracle success with and without each probe, and wrapper overhead.

Run: ``python benchmarks/probes.py [--level L] [--configs N] [--steps S]``. Prints one table row
per game (the first N benchmark configurations of level L): the query-game oracle's successes
and mean turns clean and under the noise, isomorphic (domain drawn per episode), boundary and
counterfactual probes (the latter both with the default oracle and with
``min_turns_before_answer=3``, which waits for the correction), then the necessity
reference solver's successes on the full and the pruned pool and its mean pruning ratio.
Then env steps/s of a scripted player (pre-built legal queries, level 5, ``max_turns``
lifted) on the bare env and through each per-step wrapper, with the ratio to the bare env
measured in the same run (best of 3); and necessity episodes/s (reset + two answers: the
pool is built and rendered at each reset) against bare episodes of reset + two queries.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.query_games import QueryGameOracle
from mtp_gym.episode import play_to_end
from mtp_gym.games import resolve_game
from mtp_gym.registration import GAME_IDS
from mtp_gym.wrappers.probes import apply_probe


def play(env: gym.Env, agent, config_id: int) -> dict:
    return play_to_end(env, agent, config_id=config_id).info


def cell(runs: list[dict]) -> str:
    wins = [r for r in runs if r["outcome"] == "success"]
    turns = sum(r["turn"] for r in wins) / max(1, len(wins))
    return f"{len(wins)}/{len(runs)} ({turns:.1f})"


def game_row(env_id: str, level: int, configs: range) -> str:
    cls = resolve_game(GAME_IDS[env_id])
    cols = []
    for probe, wait in (
        (None, 0),
        ("noise", 0),
        ("isomorphic", 0),
        ("boundary", 0),
        ("counterfactual", 0),
        ("counterfactual", 3),
    ):
        env = gym.make(env_id, difficulty=level, **({"probe": probe} if probe else {}))
        oracle = QueryGameOracle(cls, min_turns_before_answer=wait)
        cols.append(cell([play(env, oracle, c) for c in configs]))
    env = gym.make(env_id, difficulty=level, probe="necessity")
    solver = make_agent("necessity_oracle", env_id)
    start = time.perf_counter()
    stats = [play(env, solver, c)["necessity"] for c in configs]
    seconds = time.perf_counter() - start
    n = len(stats)
    full = sum(s["full_success"] for s in stats)
    pruned = sum(s["pruned_success"] for s in stats)
    ratio = sum(s["pruning_ratio"] for s in stats) / n
    pool = sum(s["pool_size"] for s in stats) / n
    return (
        f"| `{env_id}` | {' | '.join(cols)} | {full}/{n} | {pruned}/{n} | {ratio:.3f} | {pool:.0f} | "
        f"{seconds / n * 1000:.0f} |"
    )


def steps_rate(env: gym.Env, steps: int, repeats: int = 3) -> float:
    """Best of ``repeats`` timings of ``steps`` legal queries (after a warm-up pass)."""
    env.reset(seed=0, options={"config_id": 0})
    game = env.unwrapped.game
    actions = [game.describe_query(n, a) for n, a in game.all_queries()]
    for i in range(min(steps, 2 * len(actions))):  # warm-up: every query once (lazy caches)
        env.step(actions[i % len(actions)])
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        for i in range(steps):
            env.step(actions[i % len(actions)])
        best = max(best, steps / (time.perf_counter() - start))
    return best


def episodes_rate(env: gym.Env, episodes: int, answers: bool) -> float:
    """Episodes/s of reset + two steps (two answers under the necessity probe, else two queries),
    over configurations ``0..19`` (one untimed warm-up pass first)."""

    def run() -> None:
        for i in range(episodes):
            _, info = env.reset(seed=i, options={"config_id": i % 20})
            if answers:
                target = info["hidden"]["target"]
                env.step(f"<answer>{target}</answer><unnecessary></unnecessary>")
                env.step(f"<answer>{target}</answer>")
            else:
                game = env.unwrapped.game
                for name, args in game.all_queries()[:2]:
                    env.step(game.describe_query(name, args))

    run()
    start = time.perf_counter()
    run()
    return episodes / (time.perf_counter() - start)


def overhead_rows(env_id: str, steps: int) -> list[str]:
    def make(**kw):
        return gym.make(env_id, difficulty=5, max_turns=10**9, disable_env_checker=True, **kw).unwrapped

    bare_env = make()
    bare = steps_rate(bare_env, steps)
    rows = [f"{env_id} (level 5): bare env {bare:,.0f} steps/s"]
    for probe in ("noise", "isomorphic", "boundary", "counterfactual"):
        rate = steps_rate(apply_probe(make(), probe), steps)
        rows.append(f"    {probe:>14}: {rate:,.0f} steps/s ({rate / bare:.2f} x bare)")
    episodes = 20
    bare_eps = episodes_rate(make(), episodes, answers=False)
    rate = episodes_rate(apply_probe(make(), "necessity"), episodes, answers=True)
    pool = len(resolve_game(GAME_IDS[env_id]).benchmark(5, 0).evidence_pool())
    rows.append(
        f"    {'necessity':>14}: {rate:,.1f} episodes/s (reset + 2 answers, pool of {pool} at config 0) vs "
        f"{bare_eps:,.1f} bare episodes/s of reset + 2 queries ({rate / bare_eps:.3f} x)"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--configs", type=int, default=20)
    parser.add_argument("--steps", type=int, default=5_000)
    args = parser.parse_args()
    configs = range(args.configs)
    print(
        f"Level {args.level}, configurations 0..{args.configs - 1}: oracle solved/episodes (mean turns of the solved)\n"
    )
    print(
        "| env id | clean | noise | isomorphic | boundary | counterfactual | counterfactual, waits | "
        "necessity full | necessity pruned | pruning ratio | pool | necessity ms/ep |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for env_id in sorted(GAME_IDS):
        print(game_row(env_id, args.level, configs), flush=True)
    print()
    for env_id in sorted(GAME_IDS):
        print("\n".join(overhead_rows(env_id, args.steps)), flush=True)


if __name__ == "__main__":
    main()
