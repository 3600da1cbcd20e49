"""Clean success on a query game measures query planning, not bookkeeping (issue 25).

From level 2, within each level's budget and over its whole benchmark split:

* every reasoning-free sweep (:class:`~mtp_gym.agents.oracles.sweeps.SweepPlayer`: one query
  type of every argument, a read-off of every pair, or a scan item by item, in a fixed order
  with exact books) wins at most 25% of the configurations;
* a sound player that wastes 30% of its turns on redundant questions still wins at least 90%
  of the episodes, one wasting 50% at least 75% (the oracle's turns, exact over the waste
  draws: :func:`~mtp_gym.agents.oracles.sweeps.wasteful_win_rate`);
* the budget follows the rule of ``mtp_gym/games/README.md`` (``benchmarks/query_levels.py``).

The default run checks a sample of games; ``pytest -m slow`` checks every game. The players
themselves are played through the env against the exact figures in the last tests.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.query_games import VersionSpace
from mtp_gym.agents.oracles.sweeps import SweepPlayer, WastefulOracle, sweep_orders, sweep_turns, wasteful_win_rate
from mtp_gym.episode import play_to_end
from mtp_gym.games import resolve_game
from mtp_gym.registration import GAME_IDS

LEVELS = (2, 3, 4, 5)
SWEEP_LIMIT, WASTE_TARGETS = 0.25, ((0.3, 0.90), (0.5, 0.75))
#: Checked in the default run: a set, a sequence and a tree game; -m slow: every game.
SAMPLE = {
    "MTP/HiddenNumber-v0",
    "MTP/RangeSums-v0",
    "MTP/TreeRecursionRule-v0",  # the last game fixed (issue 25)
}
#: Games whose levels a sweep still fits, with the reason; strict: the test fails once one is fixed.
OPEN: dict[str, str] = {}
GAMES = [
    pytest.param(
        e,
        marks=(() if e in SAMPLE else (pytest.mark.slow,))
        + ((pytest.mark.xfail(strict=True, reason=OPEN[e]),) if e in OPEN else ()),
    )
    for e in sorted(GAME_IDS)
]


def _oracle_turns(env_id: str, level: int) -> list[int]:
    env = gym.make(env_id, difficulty=level, max_turns=10_000)
    oracle = make_agent("oracle", env_id)
    infos = [play_to_end(env, oracle, config_id=c).info for c in range(env.unwrapped.num_configs)]
    assert all(i["outcome"] == "success" for i in infos), f"{env_id} L{level}: the oracle lost with no turn limit"
    return [i["turn"] for i in infos]


@pytest.mark.parametrize("env_id", GAMES)
def test_sweeps_lose_and_wasteful_sound_players_win_within_the_budget(env_id: str) -> None:
    cls = resolve_game(GAME_IDS[env_id])
    report = []
    for level in LEVELS:
        budget = cls.budget(level)
        games = [cls.benchmark(level, c) for c in range(gym.make(env_id, difficulty=level).unwrapped.num_configs)]
        wins: dict[str, int] = {}
        for game in games:
            space = VersionSpace(game)
            for query, one_item in sweep_orders(game):
                won, turns = sweep_turns(game, query, one_item, space)
                key = f"{query}{'/item' if one_item else ''}"
                wins[key] = wins.get(key, 0) + (won and turns <= budget)
        too_good = {k: v for k, v in wins.items() if v > SWEEP_LIMIT * len(games)}
        turns = _oracle_turns(env_id, level)
        short = {w: round(r, 3) for w, share in WASTE_TARGETS if (r := wasteful_win_rate(turns, budget, w)) < share}
        if too_good or short:
            report.append(f"L{level} (budget {budget}): sweeps winning {too_good} of {len(games)}; waste wins {short}")
    assert not report, "\n".join(report)


def test_a_sweep_played_through_the_env_does_what_sweep_turns_says() -> None:
    env_id = "MTP/HiddenSubset-v0"
    cls = resolve_game(GAME_IDS[env_id])
    env = gym.make(env_id, difficulty=2, max_turns=10_000)
    for query, one_item in (("member", False), ("count", True), ("count", False)):
        player = SweepPlayer(cls, query, one_item)
        for config_id in range(3):
            info = play_to_end(env, player, config_id=config_id).info
            won, turns = sweep_turns(cls.benchmark(2, config_id), query, one_item)
            assert (info["outcome"] == "success", info["turn"]) == (won, turns), (query, one_item, config_id)


def test_the_wasteful_oracle_wins_at_the_exact_rate() -> None:
    """Played with 400 seeded draws on one configuration: its wins match the exact rate, and it
    never answers wrong (its wasted questions are redundant, never a guess)."""
    env_id, level, config_id = "MTP/HiddenNumber-v0", 3, 0
    (turns,) = _oracle_turns_of(env_id, level, [config_id])
    budget = turns + 3
    env = gym.make(env_id, difficulty=level, max_turns=budget)
    cls = resolve_game(GAME_IDS[env_id])
    outcomes = [
        play_to_end(env, WastefulOracle(cls, 0.5), config_id=config_id, seed=s).info["outcome"] for s in range(400)
    ]
    assert "failure" not in outcomes
    exact = wasteful_win_rate([turns], budget, 0.5)
    assert abs(outcomes.count("success") / 400 - exact) < 4 * (exact * (1 - exact) / 400) ** 0.5, (outcomes, exact)


def _oracle_turns_of(env_id: str, level: int, config_ids: list[int]) -> list[int]:
    env = gym.make(env_id, difficulty=level, max_turns=10_000)
    oracle = make_agent("oracle", env_id)
    return [play_to_end(env, oracle, config_id=c).info["turn"] for c in config_ids]


def test_exact_waste_rates_are_right() -> None:
    assert wasteful_win_rate([4], 4, 0.5) == pytest.approx(0.5**4)
    assert wasteful_win_rate([1], 2, 0.5) == pytest.approx(0.75)  # useful first, or one wasted turn then useful
    assert wasteful_win_rate([3, 10], 9, 0.0) == 0.5
    assert wasteful_win_rate([5], 10_000, 0.3) == pytest.approx(1.0)
