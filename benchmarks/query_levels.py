"""Query-game levels from evidence: hypotheses, oracle turns, budgets, and who wins within them.

Run: ``python benchmarks/query_levels.py [--games A,B] [--levels 2,3] [--write]``. For every
game and level, over the whole benchmark split (20 configurations):

- ``hyp``: candidate hidden states (mean over the split);
- the oracle (maximum information gain): mean and maximum turns with no limit (the answer
  counts);
- the budget the rule gives (below), next to the one the game has;
- at the game's budget: the wasteful oracle's wins when 30% and 50% of its turns are
  redundant questions (exact: :func:`~mtp_gym.agents.oracles.sweeps.wasteful_win_rate`), the
  careful player's (a random still-informative query each turn: sound, plans nothing), the
  best reasoning-free sweep's (:class:`~mtp_gym.agents.oracles.sweeps.SweepPlayer`: one query
  type of every argument, or item by item, in a fixed order with exact books) and which sweep
  that is, and the random agent's exact chance.

The budget rule (``mtp_gym/games/README.md``): a level's budget is the smallest number of
turns within which the oracle wasting 30% of its turns wins at least 93% of the episodes and
wasting 50% at least 80% (margins over the 90% and 75% the tests demand), and never less than
the previous level's. The level's sizes, not its budget, then keep the sweeps out: from level
2, every sweep must need more turns than the budget in at least 75% of the configurations.
``--write`` puts the rule's budgets into the game files (the rules text shows the budget, so
the golden hashes change with it).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import gymnasium as gym
import numpy as np

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.query_games import QueryGameRandomAgent, VersionSpace
from mtp_gym.agents.oracles.sweeps import budget_rule, sweep_orders, sweep_turns, wasteful_win_rate
from mtp_gym.episode import play_to_end
from mtp_gym.games import resolve_game
from mtp_gym.registration import GAME_IDS, game_ids

LEVELS = range(1, 6)
NO_LIMIT = 10_000


def turns(env_id: str, level: int, kind: str, max_turns: int = NO_LIMIT) -> list[tuple[bool, int]]:
    """(won, turns) of agent ``kind`` on every configuration of the level's split."""
    env = gym.make(env_id, difficulty=level, max_turns=max_turns)
    agent = make_agent(kind, env_id)
    out = []
    for config_id in range(env.unwrapped.num_configs):
        info = play_to_end(env, agent, config_id=config_id).info
        out.append((info["outcome"] == "success", info["turn"]))
    return out


def sweeps(games: list, budget: int) -> dict[str, float]:
    """Each sweep's share of configurations won within ``budget``."""
    out: dict[str, list[bool]] = {}
    for game in games:
        space = VersionSpace(game)
        for query, one_item in sweep_orders(game):
            won, t = sweep_turns(game, query, one_item, space)
            out.setdefault(f"{query}{'/item' if one_item else ''}", []).append(won and t <= budget)
    return {k: sum(v) / len(v) for k, v in out.items()}


def level_row(env_id: str, level: int, previous: int) -> dict:
    cls = resolve_game(GAME_IDS[env_id])
    n = gym.make(env_id, difficulty=level).unwrapped.num_configs
    games = [cls.benchmark(level, i) for i in range(n)]
    oracle = turns(env_id, level, "oracle")
    assert all(won for won, _ in oracle), f"{env_id} level {level}: the oracle lost with no turn limit"
    oracle_t = [t for _, t in oracle]
    budget = cls.budget(level)
    careful = turns(env_id, level, "careful", budget)
    swept = sweeps(games, budget)
    best = max(swept, key=swept.get) if swept else "-"
    return {
        "hyp": float(np.mean([len(g.candidate_states()) for g in games])),
        "oracle_mean": float(np.mean(oracle_t)),
        "oracle_max": max(oracle_t),
        "budget": budget,
        "rule": budget_rule(oracle_t, previous),
        "waste30": wasteful_win_rate(oracle_t, budget, 0.3),
        "waste50": wasteful_win_rate(oracle_t, budget, 0.5),
        "careful": sum(won for won, _ in careful) / n,
        "sweep": swept.get(best, 0.0),
        "sweep_name": best,
        "random_p": float(np.mean([QueryGameRandomAgent.chance(g) for g in games])),
    }


def write_budgets(env_id: str, budgets: list[int]) -> None:
    cls = resolve_game(GAME_IDS[env_id])
    path = Path(__import__(cls.__module__, fromlist=["_"]).__file__)
    text = path.read_text()
    new, count = re.subn(r"(?m)^    budgets = \([^)]*\)$", f"    budgets = {tuple(budgets)}", text)
    if count != 1:
        raise SystemExit(f"{path}: expected one 'budgets = (...)' line, found {count}")
    path.write_text(new)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="", help="comma list of game names (default: every game)")
    parser.add_argument("--levels", default="1,2,3,4,5", help="comma list of levels (default: all)")
    parser.add_argument("--write", action="store_true", help="write the rule's budgets into the game files")
    args = parser.parse_args()
    try:
        ids = game_ids(args.games)
        levels = [int(x) for x in args.levels.split(",")]
    except ValueError as err:
        parser.error(f"--games/--levels: {err}")
    if args.write and levels != list(LEVELS):
        parser.error("--write needs every level (the rule carries the previous level's budget)")
    print(
        "| game | level | hyp | oracle mean/max | budget -> rule | waste 30% / 50% | careful | best sweep | random p |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for env_id in ids:
        previous, budgets = 0, []
        for level in levels:
            r = level_row(env_id, level, previous)
            previous = r["rule"]
            budgets.append(r["rule"])
            print(
                f"| {env_id[4:-3]} | {level} | {r['hyp']:.0f} | {r['oracle_mean']:.1f}/{r['oracle_max']}"
                f" | {r['budget']} -> {r['rule']} | {r['waste30']:.2f} / {r['waste50']:.2f} | {r['careful']:.2f}"
                f" | {r['sweep']:.2f} {r['sweep_name']} | {r['random_p']:.3f} |",
                flush=True,
            )
        if args.write:
            write_budgets(env_id, budgets)


if __name__ == "__main__":
    main()
