"""Hidden-state query games: per game and level, oracle and random scores, split times, steps/s.

Run: ``python benchmarks/query_games.py [--steps N] [--games A,B]``. Prints one table row per game and
level (budget, hidden states, oracle successes / mean turns over the full benchmark split,
random successes, oracle seconds per split) and the env's steps/s with a scripted player that
sends pre-built legal queries, against a baseline measured in the same run: the bare
``Game.respond`` calls/s on the same queries (the ratio is the env's overhead).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.episode import play_to_end
from mtp_gym.games import resolve_game
from mtp_gym.registration import GAME_IDS, game_ids


def play(env: gym.Env, agent, config_id: int) -> dict:
    return play_to_end(env, agent, config_id=config_id).info


def split_row(env_id: str, level: int) -> str:
    env = gym.make(env_id, difficulty=level)
    n = env.unwrapped.num_configs
    oracle, rand = make_agent("oracle", env_id), make_agent("random", env_id)
    start = time.perf_counter()
    runs = [play(env, oracle, c) for c in range(n)]
    seconds = time.perf_counter() - start
    wins = [r for r in runs if r["outcome"] == "success"]
    turns = sum(r["turn"] for r in wins) / max(1, len(wins))
    rwins = sum(play(env, rand, c)["outcome"] == "success" for c in range(n))
    states = len(resolve_game(GAME_IDS[env_id]).benchmark(level, 0).candidate_states())
    return (
        f"| `{env_id}` | {level} | {env.unwrapped.max_turns} | {states} | {len(wins)}/{n} | "
        f"{turns:.2f} | {rwins}/{n} | {seconds:.3f} |"
    )


def steps_rate(env_id: str, steps: int) -> tuple[float, float]:
    env = gym.make(env_id, difficulty=5, max_turns=10**9).unwrapped
    env.reset(options={"config_id": 0})
    game = env.game
    queries = game.all_queries()
    actions = [game.describe_query(n, a) for n, a in queries]
    start = time.perf_counter()
    for i in range(steps):
        env.step(actions[i % len(actions)])
    env_rate = steps / (time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(steps):
        n, a = queries[i % len(queries)]
        game.respond(game.hidden, n, a)
    return env_rate, steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--games", default="", help="comma list of game names to run (default: every game)")
    args = parser.parse_args()
    try:
        ids = game_ids(args.games)
    except ValueError as err:
        parser.error(f"--games: {err}")
    print(
        "| env id | level | budget | hidden states | oracle solved | oracle mean turns | random solved | oracle s/split |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for env_id in ids:
        for level in range(1, 6):
            print(split_row(env_id, level), flush=True)
    print()
    for env_id in ids:
        env_rate, base = steps_rate(env_id, args.steps)
        print(
            f"{env_id} (level 5): {env_rate:,.0f} env steps/s; bare Game.respond {base:,.0f} calls/s; "
            f"env/respond ratio {env_rate / base:.3f}"
        )


if __name__ == "__main__":
    main()
