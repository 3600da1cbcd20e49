"""Graph query games: game-specific rules (the generic checks are in test_query_games.py)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.core import InvalidAction
from mtp_gym.games.broken_link import BrokenLink, causes, cut_off
from mtp_gym.games.connection_rule import ConnectionRule
from mtp_gym.games.hidden_coloring import HiddenColoring, groups_of, proper_partitions
from mtp_gym.games.hidden_edges import HiddenEdges
from mtp_gym.games.hidden_node import HiddenNode
from mtp_gym.games.move_rule import MoveRule, kind_of
from mtp_gym.games.outbreak_source import OutbreakSource, illness_days
from mtp_gym.games.route_taken import RouteTaken, simple_paths


def test_hidden_edges_degree_and_answer_round_trip():
    game = HiddenEdges(2, hidden=((1, 2), (1, 5), (3, 4)))
    assert game.respond(game.hidden, "degree", (1,)) == 2
    assert game.respond(game.hidden, "edge", (3, 4)) and not game.respond(game.hidden, "edge", (2, 3))
    assert game.parse_answer("4-3, (5,1) 1-2") == game.hidden
    assert game.check(game.parse_answer(game.format_answer(game.hidden)))
    for bad in ("1-2, 3-4", "1-2, 1-2, 3-4", "1-2, 3-4, 5-9", "1-2, 3"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


def test_coloring_partitions_are_proper_and_unlabelled():
    path = ((1, 2), (2, 3))
    states = proper_partitions(3, path)
    assert sorted(groups_of(s) for s in states) == [((1,), (2,), (3,)), ((1, 3), (2,))]
    triangle_plus = ((1, 2), (1, 3), (2, 3), (3, 4))
    assert {groups_of(s) for s in proper_partitions(4, triangle_plus)} == {((1,), (2, 4), (3,)), ((1, 4), (2,), (3,))}
    game = HiddenColoring.benchmark(3, 0)
    for s in game.candidate_states():
        assert all(s[a - 1] != s[b - 1] for a, b in game.public["edges"])
    target = game.target(game.hidden)
    assert game.parse_answer(game.format_answer(target)) == target
    reordered = " ; ".join(", ".join(str(v) for v in reversed(g)) for g in reversed(groups_of(target)))
    assert game.parse_answer(reordered) == target
    with pytest.raises(InvalidAction):
        game.parse_answer("1, 2 | 3")


def test_connection_rule_reads_equivalent_rules_as_one():
    game = ConnectionRule(3, hidden=("diff", 1))
    assert game.check(game.parse_answer("within 1"))
    assert game.check(game.parse_answer("diff 1"))
    assert not game.check(game.parse_answer("diff 2"))
    assert game.parse_answer("sum_mod 2 0") == ("same_mod", 2)
    assert game.respond(("divides",), "linked", (3, 9)) and not game.respond(("divides",), "linked", (4, 9))
    assert game.respond(("coprime",), "linked", (4, 9)) and not game.respond(("coprime",), "linked", (4, 6))
    for bad in ("", "teleport 3", "diff", "sum_mod 3", "same_mod 0"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad or " ")
    rules = game.rules()
    assert "sum_mod K R" in rules and "sum_above S" in rules and "(S one of 12, 14)" in rules


def test_move_rule_kinds_on_the_board():
    # 5 columns: cell 13 is row 2, column 2 (0-based); 13 -> 1 is a diagonal leap, 13 -> 24 a knight.
    assert kind_of(5, 13, 1) == "leap" and kind_of(5, 13, 24) == "knight" and kind_of(5, 13, 14) == "step"
    assert kind_of(5, 1, 25) is None and kind_of(5, 1, 4) is None and kind_of(5, 1, 17) == "camel"
    game = MoveRule(3, hidden=("step", "knight"))
    assert game.respond(game.hidden, "degree", (13,)) == 4 + 8
    assert game.respond(game.hidden, "degree", (1,)) == 2 + 2
    assert game.parse_answer("Knight and step") == ("step", "knight")
    with pytest.raises(InvalidAction):
        game.parse_answer("camel")  # not in the level-3 menu


def test_broken_link_outcome_is_explained_by_every_candidate():
    for level in (1, 3, 5):
        game = BrokenLink.benchmark(level, 2)
        edges, lost = tuple(game.public["edges"]), tuple(game.public["lost"])
        assert lost and 1 not in lost
        cands = game.candidate_states()
        assert game.hidden in cands and len(cands) >= game.params["min_causes"]
        assert all(cut_off(game.params["n"], edges, c) == lost for c in cands)
        assert len(cands) == len(causes(game.params["n"], edges, game.params["k"], lost))
    # a square 1-2-3-4-1 with a tail 3-5: breaking 3-5 and any square edge cuts off only 5.
    square = ((1, 2), (1, 4), (2, 3), (3, 4), (3, 5))
    assert set(causes(5, square, 2, (5,))) == {tuple(sorted(((3, 5), e))) for e in square if e != (3, 5)}
    game = BrokenLink(1, {"edges": square, "lost": (5,)}, hidden=((1, 2), (3, 5)))
    assert game.respond(game.hidden, "reach", (2, 3)) and not game.respond(game.hidden, "reach", (3, 5))
    assert not game.respond(game.hidden, "working", (1, 2)) and game.respond(game.hidden, "working", (1, 4))


def test_outbreak_days_follow_the_spread_among_the_ill():
    edges = ((1, 2), (2, 3), (3, 4), (1, 4), (4, 5))
    ill = (1, 2, 3, 4)  # 5 was immune
    assert illness_days(edges, ill, 1) == {1: 0, 2: 1, 4: 1, 3: 2}
    assert illness_days(edges, ill, 3) == {3: 0, 2: 1, 4: 1, 1: 2}
    game = OutbreakSource(1, {"edges": edges, "ill_people": ill}, hidden=2)
    assert game.respond(2, "earlier", (2, 3)) and not game.respond(2, "earlier", (1, 3))
    assert game.respond(2, "by_day", (2, 0)) and not game.respond(2, "by_day", (4, 1))
    assert game.check(game.parse_answer(" 2 ")) and not game.check(game.parse_answer("3"))
    for level in (1, 5):
        game = OutbreakSource.benchmark(level, 0)
        ill = game.public["ill_people"]
        for s in ill:  # every ill person could have started it: all are reached within the group
            assert set(illness_days(tuple(game.public["edges"]), tuple(ill), s)) == set(ill)


def test_hidden_node_within_uses_hop_distance():
    path = ((1, 2), (2, 3), (3, 4), (4, 5), (5, 6))
    game = HiddenNode(1, {"edges": path}, hidden=4)
    assert [game.respond(4, "within", (1, d)) for d in (0, 1, 2)] == [False, False, False]
    assert [game.respond(4, "within", (2, d)) for d in (0, 1, 2)] == [False, False, True]
    assert game.respond(4, "within", (4, 0)) and game.check(game.parse_answer("node 4"))
    with pytest.raises(InvalidAction):
        game.parse_answer("4 or 5")


def test_route_taken_candidates_are_the_simple_paths_of_the_observed_length():
    square = ((1, 2), (1, 4), (2, 3), (3, 4), (2, 4))
    assert simple_paths(4, square, 1, 3, 2) == ((1, 2, 3), (1, 4, 3))
    assert simple_paths(4, square, 1, 3, 3) == ((1, 2, 4, 3), (1, 4, 2, 3))
    game = RouteTaken(1, {"edges": square, "s": 1, "t": 3, "L": 3}, hidden=(1, 4, 2, 3))
    assert game.respond(game.hidden, "used", (2, 4)) and not game.respond(game.hidden, "used", (1, 2))
    assert game.respond(game.hidden, "visited", (4,))
    assert game.check(game.parse_answer("1 -> 4 -> 2 -> 3")) and not game.check(game.parse_answer("1, 2, 4, 3"))
    with pytest.raises(InvalidAction):
        game.parse_answer("1, 3")
    for level in (1, 5):
        game = RouteTaken.benchmark(level, 0)
        p = game.params
        routes = game.candidate_states()
        assert p["min_routes"] <= len(routes) <= p["max_routes"] and game.hidden in routes
        edges = {tuple(e) for e in game.public["edges"]}
        for r in routes:
            assert (
                r[0] == game.public["s"] and r[-1] == game.public["t"] and len(set(r)) == len(r) == game.public["L"] + 1
            )
            assert all((min(a, b), max(a, b)) in edges for a, b in zip(r, r[1:]))


@pytest.mark.parametrize(
    "env_id", ["MTP/BrokenLink-v0", "MTP/OutbreakSource-v0", "MTP/RouteTaken-v0", "MTP/HiddenNode-v0"]
)
def test_public_graph_is_shown_and_the_answer_ends_the_episode(env_id):
    env = gym.make(env_id, difficulty=2)
    rules, info = env.reset(options={"config_id": 1})
    assert ", ".join(f"{a}-{b}" for a, b in info["game"]["public"]["edges"]) in rules
    _, reward, term, _, info = env.step(f"<answer>{info['hidden']['target']}</answer>")
    assert term and reward == 1.0 and info["outcome"] == "success"
