"""BrokenLink: no reasoning-free sweep fits the budget from level 2 on, the observed outcome rules
out explanations, and the rules of its query and causes (the generic checks are in
test_query_games.py, test_query_levels.py and test_graph_games.py)."""

from __future__ import annotations

import math
from itertools import combinations

import gymnasium as gym
import numpy as np
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.sweeps import SweepPlayer, sweep_turns
from mtp_gym.episode import play_to_end
from mtp_gym.games._graph import random_connected_graph
from mtp_gym.games.broken_link import BrokenLink, boundary, causes, cut_off, cycle_labels, nth_cause, ruled_out

ENV_ID = "MTP/BrokenLink-v0"


def link_sweep() -> SweepPlayer:
    """``broken(1)``, ``broken(2)``, ... in turn, skipping counts the outcome and the replies
    already fix: the same as checking the links one by one in the listed order."""
    return SweepPlayer(BrokenLink, "broken")


def open_links(game: BrokenLink) -> int:
    """The links some cause breaks and some cause keeps (the forced boundary and the links whose
    loss would cut off more nodes are settled by the outcome)."""
    states = game.candidate_states()
    used = {e for s in states for e in s}
    return len(used - set(boundary(game.edges, tuple(game.public["lost"]))))


@pytest.mark.parametrize("level", (2, 5))
def test_from_level_2_a_sweep_of_the_links_does_not_fit_the_budget(level):
    env = gym.make(ENV_ID, difficulty=level)
    budget, configs = env.unwrapped.max_turns, range(env.unwrapped.num_configs)
    games = [BrokenLink.benchmark(level, c) for c in configs]
    assert all(open_links(g) >= 2.5 * budget for g in games)  # the whole sweep cannot finish
    for c in (0, 1):  # the player through the env does what sweep_turns says
        info = play_to_end(env, link_sweep(), config_id=c).info
        won, turns = sweep_turns(games[c], "broken", False)
        assert (info["outcome"] == "success", info["turn"]) == (won and turns <= budget, min(turns, budget))
    wins = sum(won and turns <= budget for won, turns in (sweep_turns(g, "broken", False) for g in games))
    assert wins <= len(games) / 4, (level, wins)  # lucky draws only: both hidden breaks come early
    oracle = make_agent("oracle", ENV_ID)
    turns = []
    for c in configs:
        info = play_to_end(env, oracle, config_id=c).info
        assert info["outcome"] == "success" and info["turn"] <= budget, (level, c, info["turn"])
        turns.append(info["turn"])
    causes_mean = np.mean([len(g.candidate_states()) for g in games])
    assert np.mean(turns) <= math.log2(causes_mean) + 1.5  # about log2(causes) questions, then the answer


def test_level_1_stays_small_and_a_sweep_may_win_it():
    env = gym.make(ENV_ID, difficulty=1)
    configs = range(env.unwrapped.num_configs)
    assert all(len(BrokenLink.benchmark(1, c).candidate_states()) == 5 for c in configs)
    assert all(play_to_end(env, link_sweep(), config_id=c).info["outcome"] == "success" for c in configs)


@pytest.mark.parametrize("level", (1, 2, 3, 4, 5))
def test_the_observed_outcome_rules_out_explanations_in_every_configuration(level):
    """Beyond the forced boundary, the outcome (exactly these nodes cut off) rules out the ways
    to place the hidden breaks that would have cut off more nodes: a bridge of the rest, or two
    links that cut it apart together. Per level, over the whole split: every configuration,
    at least 10% of those ways (level 1: one of the 6 links left is a bridge)."""
    shares = []
    for c in range(20):
        game = BrokenLink.benchmark(level, c)
        n, edges, k, lost = game._key()
        cut = boundary(edges, lost)
        free = [tuple(sorted(cut + more)) for more in combinations([e for e in edges if e not in cut], k - len(cut))]
        allowed = set(game.candidate_states())
        excluded = [s for s in free if s not in allowed]
        assert allowed <= set(free) and excluded  # the outcome rules out at least one explanation
        assert all(cut_off(n, edges, s) != lost for s in excluded[:50])  # each would cut off other nodes
        shares.append(len(excluded) / len(free))
        assert shares[-1] == pytest.approx(ruled_out(n, edges, k, lost))
    assert min(shares) >= 0.1, (level, min(shares))


def test_the_outcome_fixes_the_boundary_and_the_number_of_other_breaks():
    for level in (1, 2, 3, 4, 5):
        p = BrokenLink.levels[level - 1]
        for c in (0, 9, 19):
            game = BrokenLink.benchmark(level, c)
            lost = tuple(game.public["lost"])
            cut = set(boundary(game.edges, lost))
            assert 1 <= len(lost) <= p["part"] and 1 not in lost and len(cut) == p["k"] - p["extra"]
            assert len(game.edges) == p["m"] and cut_off(p["n"], game.edges, ()) == ()
            assert all(cut <= set(cause) for cause in game.candidate_states())
            assert p["min_causes"] <= len(game.candidate_states()) <= p["max_causes"]


def test_causes_are_every_k_set_with_this_outcome():
    """The enumeration (boundary + other breaks whose cycle masks are independent) = brute force,
    and so is the draw of one cause by its index (counted for up to two other breaks)."""
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 120:
        n = int(rng.integers(4, 10))
        m = int(rng.integers(n - 1, min(n * (n - 1) // 2, 2 * n) + 1))
        k = int(rng.integers(1, min(5, m) + 1))
        edges = random_connected_graph(n, m, rng)
        broken = tuple(sorted(edges[int(i)] for i in rng.choice(m, size=k, replace=False)))
        outcome = cut_off(n, edges, broken)
        if outcome:
            brute = tuple(s for s in combinations(edges, k) if cut_off(n, edges, s) == outcome)
            assert causes(n, edges, k, outcome) == brute
            assert [nth_cause(n, edges, k, outcome, i) for i in range(len(brute))] == list(brute)
            for i in (-1, len(brute)):
                with pytest.raises(IndexError, match=f"cause {i} of {len(brute)}"):
                    nth_cause(n, edges, k, outcome, i)
            checked += 1
    # a triangle 1-2-3 with tails 2-4 and 3-5, node 4 cut off: the other break is a triangle
    # link, never the bridge 3-5 (it would cut 5 off too)
    triangle = ((1, 2), (1, 3), (2, 3), (2, 4), (3, 5))
    assert causes(5, triangle, 2, (4,)) == (((1, 2), (2, 4)), ((1, 3), (2, 4)), ((2, 3), (2, 4)))
    assert causes(4, ((1, 2), (2, 3), (2, 4)), 2, (4,)) == ()  # every other break cuts 3 off as well


def test_cycle_masks_mark_bridges_and_cut_pairs():
    # a square 1-2-3-4 with a tail 4-5 and a chord-free second square 2-6-7-3 sharing link 2-3
    links = [(1, 2), (1, 4), (2, 3), (3, 4), (4, 5), (2, 6), (6, 7), (3, 7)]
    labels = cycle_labels(7, links, 1)
    assert labels[(4, 5)] == 0  # a bridge
    assert labels[(2, 6)] == labels[(6, 7)] == labels[(3, 7)] != 0  # any two of them cut 6 or 7 off
    assert labels[(1, 2)] ^ labels[(1, 4)] == 0  # the links at a node form a cut: their masks cancel
    assert labels[(1, 2)] ^ labels[(2, 3)] ^ labels[(2, 6)] == 0
    assert labels[(1, 2)] != labels[(2, 3)]  # breaking both keeps the network connected


def test_broken_counts_the_links_numbered_up_to_j():
    square = ((1, 2), (1, 4), (2, 3), (3, 4), (3, 5))
    game = BrokenLink(1, {"edges": square, "lost": (5,)}, hidden=((1, 2), (3, 5)))
    h = game.hidden
    assert [game.respond(h, "broken", (j,)) for j in range(1, 6)] == [1, 1, 1, 1, 2]
    assert game.query_args("broken") == [(j,) for j in range(1, 6)]
    assert game.respond(((2, 3), (3, 5)), "broken", (3,)) == 1  # a set of links that is no cause
    for cause in game.candidate_states():  # the tables are per state, not shared between states
        assert game.respond(cause, "broken", (5,)) == 2
    rules = BrokenLink.benchmark(2, 0).rules()
    assert "<query_broken>" in rules and "how many of the links numbered from #1 up to this number" in rules
    assert "#1 1-" in rules and f"#{len(BrokenLink.benchmark(2, 0).edges)} " in rules
