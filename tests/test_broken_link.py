"""BrokenLink: no linear scan of the links from level 2 on (issue 15, item 2), and the rules of
its queries and causes (the generic checks are in test_query_games.py and test_graph_games.py)."""

from __future__ import annotations

import math
from itertools import combinations

import gymnasium as gym
import numpy as np
import pytest
from helpers import ScanPlayer

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.episode import play_to_end
from mtp_gym.games._graph import random_connected_graph
from mtp_gym.games.broken_link import BrokenLink, boundary, causes, cut_off

ENV_ID = "MTP/BrokenLink-v0"


def link_scan() -> ScanPlayer:
    """``working(link)`` of every link in the listed order, skipping links the outcome and the
    replies already fix (the cut-off part's boundary is broken in every cause)."""
    return ScanPlayer(BrokenLink, "working", every_arg=True, skip_known=True)


def open_links(game: BrokenLink) -> int:
    """The links whose state the outcome leaves open: every link but the cut-off part's boundary."""
    return len(game.edges) - len(boundary(game.edges, tuple(game.public["lost"])))


@pytest.mark.parametrize("level", (2, 3, 4, 5))
def test_from_level_2_a_scan_of_the_links_does_not_fit_the_budget(level):
    env = gym.make(ENV_ID, difficulty=level)
    budget, configs = env.unwrapped.max_turns, range(env.unwrapped.num_configs)
    games = [BrokenLink.benchmark(level, c) for c in configs]
    assert all(open_links(g) >= 2 * budget for g in games)  # the whole scan cannot finish
    scan_wins = sum(play_to_end(env, link_scan(), config_id=c).info["outcome"] == "success" for c in configs)
    assert scan_wins <= len(configs) / 4, (level, scan_wins)  # lucky draws only: both extra breaks come early
    oracle = make_agent("oracle", ENV_ID)
    turns = []
    for c in configs:
        info = play_to_end(env, oracle, config_id=c).info
        assert info["outcome"] == "success" and info["turn"] <= budget, (level, c, info["turn"])
        turns.append(info["turn"])
    causes_mean = np.mean([len(g.candidate_states()) for g in games])
    assert np.mean(turns) <= math.log2(causes_mean) + 1  # about log2(causes) questions, then the answer


def test_level_1_stays_small_and_a_scan_may_win_it():
    env = gym.make(ENV_ID, difficulty=1)
    configs = range(env.unwrapped.num_configs)
    assert all(len(BrokenLink.benchmark(1, c).candidate_states()) == 5 for c in configs)
    assert all(play_to_end(env, link_scan(), config_id=c).info["outcome"] == "success" for c in configs)


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


def test_causes_are_every_k_set_with_this_outcome():
    """The enumeration (boundary + other breaks that keep the rest connected) = brute force."""
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 60:
        n = int(rng.integers(4, 9))
        m = int(rng.integers(n - 1, min(n * (n - 1) // 2, 2 * n) + 1))
        k = int(rng.integers(1, 4))
        edges = random_connected_graph(n, m, rng)
        broken = tuple(sorted(edges[int(i)] for i in rng.choice(m, size=k, replace=False)))
        outcome = cut_off(n, edges, broken)
        if outcome:
            brute = tuple(s for s in combinations(edges, k) if cut_off(n, edges, s) == outcome)
            assert causes(n, edges, k, outcome) == brute
            checked += 1
    # a triangle 1-2-3 with tails 2-4 and 3-5, node 4 cut off: the other break is a triangle
    # link, never the bridge 3-5 (it would cut 5 off too)
    triangle = ((1, 2), (1, 3), (2, 3), (2, 4), (3, 5))
    assert causes(5, triangle, 2, (4,)) == (((1, 2), (2, 4)), ((1, 3), (2, 4)), ((2, 3), (2, 4)))
    assert causes(4, ((1, 2), (2, 3), (2, 4)), 2, (4,)) == ()  # every other break cuts 3 off as well


def test_broken_counts_the_links_with_an_end_in_the_range():
    square = ((1, 2), (1, 4), (2, 3), (3, 4), (3, 5))
    game = BrokenLink(1, {"edges": square, "lost": (5,)}, hidden=((1, 2), (3, 5)))
    h = game.hidden
    assert [game.respond(h, "broken", (v, v)) for v in range(1, 6)] == [1, 1, 1, 0, 1]
    assert game.respond(h, "broken", (1, 2)) == 1  # 1-2 once, though both ends are in the range
    assert game.respond(h, "broken", (2, 3)) == 2 and game.respond(h, "broken", (4, 4)) == 0
    assert game.respond(h, "broken", (1, 5)) == 2
    assert ("broken", (4, 4)) in game.all_queries() and ("broken", (4, 3)) not in game.all_queries()
    for cause in game.candidate_states():  # the tables are per state, not shared between states
        assert game.respond(cause, "broken", (1, 5)) == 2
        assert game.respond(cause, "reach", (1, 5)) is False
    rules = BrokenLink.benchmark(2, 0).rules()
    assert "<query_broken>" in rules and "how many broken links have an end among the nodes" in rules
