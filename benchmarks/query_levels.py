"""Query-game levels from evidence: hypotheses, oracle and careful-player turns, budgets.

Run: ``python benchmarks/query_levels.py [--games A,B] [--write]``. For every game and level,
over the whole benchmark split (20 configurations), with no turn limit:

- ``hyp``: candidate hidden states (mean over the split); ``targets``: distinct answers;
- the oracle (maximum information gain): mean and maximum turns (the answer counts);
- the careful player (``careful``: a uniformly random still-informative query, a sound
  strategy that is not optimal): mean turns and the 90th percentile;
- the budget the rule gives, next to the one the game has, and at the game's budget the
  careful player's and the random agent's successes (played), and the random agent's exact
  chance (``random p``: the share of candidate states with the true target, its answer being a
  random candidate's target).

The budget rule (``mtp_gym/games/README.md``): a level's budget is the largest of twice the
oracle's mean turns (rounded up), the careful player's 90th-percentile turns (so it wins at
least 90% of the configurations) and the previous level's budget. ``--write`` puts the rule's
budgets into the game files (the benchmark split's rules text shows the budget, so the golden
hashes change with it).
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

import gymnasium as gym
import numpy as np

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.query_games import QueryGameRandomAgent
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


def percentile90(values: list[int]) -> int:
    """The nearest-rank 90th percentile: at least 90% of ``values`` are at most this."""
    ordered = sorted(values)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]


def rule_budget(oracle_turns: list[int], careful_turns: list[int], previous: int) -> int:
    return max(math.ceil(2 * float(np.mean(oracle_turns)) - 1e-9), percentile90(careful_turns), previous)


def level_row(env_id: str, level: int, previous: int) -> dict:
    cls = resolve_game(GAME_IDS[env_id])
    n = gym.make(env_id, difficulty=level).unwrapped.num_configs
    games = [cls.benchmark(level, i) for i in range(n)]
    hyp = [len(g.candidate_states()) for g in games] if cls.enumerable else []
    targets = [len({g.target(s) for s in g.candidate_states()}) for g in games] if cls.enumerable else []
    chance = [QueryGameRandomAgent.chance(g) for g in games] if cls.enumerable else []
    oracle, careful = turns(env_id, level, "oracle"), turns(env_id, level, "careful")
    assert all(won for won, _ in oracle), f"{env_id} level {level}: the oracle lost with no turn limit"
    oracle_t = [t for _, t in oracle]
    careful_t = [t if won else NO_LIMIT for won, t in careful]
    budget = cls.budget(level)
    rand = turns(env_id, level, "random", budget)
    return {
        "hyp": float(np.mean(hyp)) if hyp else float("nan"),
        "targets": min(targets) if targets else 0,
        "oracle_mean": float(np.mean(oracle_t)),
        "oracle_max": max(oracle_t),
        "careful_mean": float(np.mean(careful_t)),
        "careful_p90": percentile90(careful_t),
        "budget": budget,
        "rule": rule_budget(oracle_t, careful_t, previous),
        "careful_at_budget": sum(t <= budget for t in careful_t) / n,
        "random_at_budget": sum(won for won, _ in rand) / n,
        "random_p": float(np.mean(chance)) if chance else float("nan"),
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
    parser.add_argument("--write", action="store_true", help="write the rule's budgets into the game files")
    args = parser.parse_args()
    try:
        ids = game_ids(args.games)
    except ValueError as err:
        parser.error(f"--games: {err}")
    print(
        "| game | level | hyp | targets | oracle mean/max | careful mean/p90 | budget -> rule "
        "| careful at budget | random at budget | random p |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for env_id in ids:
        previous, budgets = 0, []
        for level in LEVELS:
            r = level_row(env_id, level, previous)
            previous = r["rule"]
            budgets.append(r["rule"])
            print(
                f"| {env_id[4:-3]} | {level} | {r['hyp']:.0f} | {r['targets']} | {r['oracle_mean']:.1f}/{r['oracle_max']}"
                f" | {r['careful_mean']:.1f}/{r['careful_p90']} | {r['budget']} -> {r['rule']}"
                f" | {r['careful_at_budget']:.2f} | {r['random_at_budget']:.2f} | {r['random_p']:.3f} |",
                flush=True,
            )
        if args.write:
            write_budgets(env_id, budgets)


if __name__ == "__main__":
    main()
