"""Graph query games: game-specific rules (the generic checks are in test_query_games.py)."""

from __future__ import annotations

from collections import Counter
from itertools import product
from math import comb

import gymnasium as gym
import numpy as np
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.core import InvalidAction
from mtp_gym.games._graph import add_other_pairs, all_pairs, random_connected_graph
from mtp_gym.games.broken_link import BrokenLink, causes, cut_off
from mtp_gym.games.connection_rule import FAMILIES, ConnectionRule
from mtp_gym.games.hidden_coloring import HiddenColoring, groups_of
from mtp_gym.games.hidden_edges import HiddenEdges
from mtp_gym.games.hidden_node import HiddenNode
from mtp_gym.games.move_rule import MoveRule, kind_of
from mtp_gym.games.outbreak_source import OutbreakSource, illness_days
from mtp_gym.games.route_taken import RouteTaken, _paths, simple_paths


def test_add_other_pairs_draws_what_a_choice_over_the_list_of_other_pairs_draws():
    """The generators' extra edges: the same pairs and the same generator state as
    ``rng.choice`` over the list of the pairs not yet taken (as the graphs were first drawn)."""
    cases = np.random.default_rng(5)
    for _ in range(1500):
        n = int(cases.integers(2, 30))
        pairs = all_pairs(n)
        taken = {
            pairs[int(j)] for j in cases.choice(len(pairs), size=int(cases.integers(len(pairs) + 1)), replace=False)
        }
        count = int(cases.integers(len(pairs) - len(taken) + 1))
        seed = int(cases.integers(1 << 30))
        listed, rng_listed = set(taken), np.random.default_rng(seed)
        rest = [p for p in pairs if p not in listed]
        listed.update(rest[int(i)] for i in rng_listed.choice(len(rest), size=count, replace=False))
        added, rng_added = set(taken), np.random.default_rng(seed)
        add_other_pairs(n, added, count, rng_added)
        assert added == listed and len(added) == len(taken) + count
        assert rng_added.bit_generator.state == rng_listed.bit_generator.state


def test_hidden_edges_counts_and_answer_round_trip():
    game = HiddenEdges(2, hidden=((1, 5), (3, 4)))
    assert [game.respond(game.hidden, "below", (v,)) for v in (3, 4, 5)] == [0, 1, 2]
    assert [game.respond(game.hidden, "above", (v,)) for v in (1, 2, 3, 4)] == [2, 1, 1, 0]
    assert game.respond(game.hidden, "edge", (3, 4)) and not game.respond(game.hidden, "edge", (1, 4))
    assert game.parse_answer("4-3, (5,1)") == game.hidden
    assert game.check(game.parse_answer(game.format_answer(game.hidden)))
    for bad in ("1-2", "1-2, 1-2", "1-2, 3-4, 5-9", "1-2, 3"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


def test_hidden_edges_counts_per_node_leave_the_pairing_open():
    """From level 2 the pairs outnumber the budget several times over, and the ``below`` (or
    ``above``) count of every node pins one end of each edge but leaves more than one edge set."""
    for level in (2, 5):
        game = HiddenEdges.benchmark(level, 0)
        n, budget = game.params["n"], HiddenEdges.budget(level)
        assert len(game.query_args("edge")) > 2 * budget
        for query in ("below", "above"):
            seen = [game.respond(game.hidden, query, (v,)) for v in range(1, n + 1)]
            left = [
                s for s in game.candidate_states() if [game.respond(s, query, (v,)) for v in range(1, n + 1)] == seen
            ]
            assert len(left) > 1, (level, query)


def test_coloring_open_nodes_are_the_only_freedom():
    """The named triangle forces every chain and extra node by propagation; the open nodes touch
    group 1 only; every candidate is a proper colouring with the named nodes and the sizes."""
    for level in (1, 2, 5):
        game = HiddenColoring.benchmark(level, 3)
        n, edges = game.params["n"], game.public["edges"]
        forced, open_nodes, _, k = game._tables
        assert len(open_nodes) == game.params["free"] and k == game.params["k"]
        assert len(game.candidate_states()) == comb(len(open_nodes), k)
        for s in game.candidate_states()[:50]:
            labels = game.target(s)
            assert all(labels[a - 1] != labels[b - 1] for a, b in edges)
            assert tuple(labels.count(g) for g in (1, 2, 3)) == tuple(game.public["sizes"])
            assert [labels[v - 1] for v in game.public["named"]] == [1, 2, 3]
        # brute force on level 1: every proper colouring with the named nodes and sizes is a candidate
        if level == 1:
            proper = {
                labels
                for labels in product((1, 2, 3), repeat=n)
                if all(labels[a - 1] != labels[b - 1] for a, b in edges)
                and [labels[v - 1] for v in game.public["named"]] == [1, 2, 3]
                and tuple(labels.count(g) for g in (1, 2, 3)) == tuple(game.public["sizes"])
            }
            assert proper == {game.target(s) for s in game.candidate_states()}


def test_coloring_counts_and_answers():
    game = HiddenColoring.benchmark(2, 0)
    labels = game.target(game.hidden)
    for v in (1, 17, game.params["n"]):
        assert game.respond(game.hidden, "count", (v,)) == labels[:v].count(3)
    assert game.parse_answer(game.format_answer(labels)) == labels
    reordered = " ; ".join(", ".join(str(v) for v in reversed(g)) for g in groups_of(labels))
    assert game.check(game.parse_answer(reordered))
    groups = groups_of(labels)
    swapped = " | ".join(", ".join(map(str, g)) for g in (groups[0], groups[2], groups[1]))
    assert not game.check(game.parse_answer(swapped))  # a proper colouring, the wrong one
    n = game.params["n"]
    lumped = ", ".join(map(str, range(1, n - 1))) + f" | {n - 1} | {n}"
    for bad in ("1, 2 | 3", lumped, game.format_answer(labels).replace(" | ", ", ", 1)):
        with pytest.raises(InvalidAction):  # not every node / an edge inside a group / two groups only
            game.parse_answer(bad)


def test_connection_rule_reads_equivalent_rules_as_one():
    game = ConnectionRule(1, hidden=("diff", 1))
    assert game.check(game.parse_answer("diff 1"))
    assert not game.check(game.parse_answer("diff 2"))
    game = ConnectionRule(3, hidden=("same_mod", 2))
    assert game.parse_answer("sum_mod 2 0") == ("same_mod", 2)
    assert game.respond(("divides",), "linked", (3, 9)) and not game.respond(("divides",), "linked", (4, 9))
    assert game.respond(("coprime",), "linked", (4, 9)) and not game.respond(("coprime",), "linked", (4, 6))
    for bad in ("", "teleport 3", "diff", "sum_mod 3", "same_mod 0"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad or " ")
    rules = game.rules()
    assert "product_below P" in rules and "(P from 3 to 992)" in rules and "sum_below" not in rules


def test_connection_rule_thresholds_are_read_between_the_values_pairs_reach():
    """Any threshold between the same two sums (products) of pairs makes the same graph: it is
    read as the one candidate, the smallest such threshold; thresholds linking no pair or every
    pair are not candidates."""
    game = ConnectionRule(5)
    n, states = game.params["N"], set(game.candidate_states())
    products = sorted({a * b for a, b in game.query_args("linked")})
    assert ("sum_above", 40) in states and ("product_above", products[-1]) not in states
    v = max(p for p in products if p <= 1000)
    assert ("product_above", v) in states and game.parse_answer("product_above 1000") == ("product_above", v)
    assert game.parse_answer("product_above 1540") == ("sum_above", 78)  # both link 39-40 only
    assert game.parse_answer("product_below 3") == ("sum_below", 4) and ("sum_below", 4) in states  # 1-2 only
    assert game.parse_answer("within 1") == ("within", 1) and game.parse_answer("diff 1") == ("within", 1)
    for rule in game.candidate_states():
        linked = [p for p in game.query_args("linked") if game.respond(rule, "linked", p)]
        assert 0 < len(linked) < n * (n - 1) // 2
        assert linked == [p for p in game.query_args("linked") if FAMILIES[rule[0]][2](*p, *rule[1:])]


def test_move_rule_kinds_on_the_board():
    # 5 columns: cell 13 is row 2, column 2 (0-based); 13 -> 1 is a 2+2 leap, 13 -> 24 a knight's 2+1.
    assert kind_of(5, 13, 1) == "2+2" and kind_of(5, 13, 24) == "2+1" and kind_of(5, 13, 14) == "1+0"
    assert kind_of(5, 1, 25) == "4+4" and kind_of(5, 1, 4) == "3+0" and kind_of(5, 1, 17) == "3+1"
    assert kind_of(5, 7, 7) is None
    game = MoveRule(1, hidden=("1+0", "2+1"))  # a 5x5 board, the piece on the middle cell 13
    assert game.rules().count("cell, 13.") == 1 and "The menu: 1+0, 1+1, 2+0, 2+1, 2+2." in game.rules()
    assert [game.respond(game.hidden, "linked", (b,)) for b in (8, 12, 14, 18, 2, 24, 7)] == [True] * 6 + [False]
    # reach(b): how many of the cells 1..b it can reach from 13: 2, 4, 6, 8, 10, 12, 14, ..., 24 (every even cell)
    assert [game.respond(game.hidden, "reach", (b,)) for b in (1, 2, 4, 8, 12, 25)] == [0, 1, 2, 4, 6, 12]
    assert (13,) not in game.query_args("reach") and len(game.query_args("linked")) == 24
    assert game.parse_answer("1+2 and 0+1") == ("1+0", "2+1")  # either order of p and q
    assert game.check(game.parse_answer(game.format_answer(game.hidden)))
    for bad in ("knight", "3+0", "1+0, 1+1, 2+0", "1+0 maybe"):  # not a kind, not in the menu, too many, noise
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    sizes = Counter(len(MoveRule.benchmark(level, c).hidden) for level in (2, 3, 4, 5) for c in range(20))
    assert sizes[1] >= 25 and sizes[2] >= 25  # the number of kinds (1 or 2) is drawn uniformly, not told


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
    assert [game.respond(game.hidden, "broken", (j,)) for j in (1, 4, 5)] == [1, 1, 2]
    assert game.parse_answer("5-3, 2-1") == game.hidden


def test_outbreak_days_follow_the_spread_among_the_ill():
    edges = ((1, 2), (2, 3), (3, 4), (1, 4), (4, 5))
    ill = (1, 2, 3, 4)  # 5 was immune
    assert illness_days(edges, ill, 1) == {1: 0, 2: 1, 4: 1, 3: 2}
    assert illness_days(edges, ill, 3) == {3: 0, 2: 1, 4: 1, 1: 2}
    game = OutbreakSource(1, {"edges": edges, "ill_people": ill}, hidden=2)
    assert game.respond(2, "by_day", (0, 2)) and not game.respond(2, "by_day", (0, 1))  # the day comes first
    assert game.respond(2, "by_day", (1, 3)) and not game.respond(2, "by_day", (1, 4))
    assert game.respond(2, "by_day", (2, 4)) and game.query_args("by_day")[:4] == [(0, 1), (0, 2), (0, 3), (0, 4)]
    assert game.check(game.parse_answer(" 2 ")) and not game.check(game.parse_answer("3"))
    for level in (1, 5):
        game = OutbreakSource.benchmark(level, 0)
        ill = game.public["ill_people"]
        for s in ill:  # every ill person could have started it: all are reached within the group
            assert set(illness_days(tuple(game.public["edges"]), tuple(ill), s)) == set(ill)
            assert all(
                game.respond(s, "by_day", (d, v)) == (illness_days(game.edges, tuple(ill), s)[v] <= d)
                for d, v in game.query_args("by_day")[:: len(ill) // 3 + 1]
            )
        edges = game.public["edges"]
        assert len(edges) == 2 * game.params["n"] - 3  # every node after the first two has two links back


def test_outbreak_refuses_a_question_for_its_real_reason():
    """The issue's ``<query_by_day>2, 1</query_by_day>`` given person first: refused for the day
    or for the person, never with "give the smaller one first"."""
    game = OutbreakSource(1, {"edges": ((1, 2), (2, 3), (3, 4), (1, 4), (4, 5)), "ill_people": (1, 2, 3, 4)})
    with pytest.raises(InvalidAction, match=r"argument 1 must be 0 to 3, not 5 \(it is the step\)"):
        game.parse_query("by_day", "5, 2")
    with pytest.raises(InvalidAction, match=r"argument 2 must be one of 1, 2, 3, 4, not 5 .*step comes first"):
        game.parse_query("by_day", "2, 5")
    assert game.parse_query("by_day", "2, 1") == (2, 1)


def test_hidden_node_within_uses_hop_distance():
    path = ((1, 2), (2, 3), (3, 4), (4, 5), (5, 6))
    game = HiddenNode(1, {"edges": path}, hidden=4)
    assert [game.respond(4, "within", (d, 1)) for d in (0, 1, 2)] == [False, False, False]
    assert [game.respond(4, "within", (d, 2)) for d in (0, 1, 2)] == [False, False, True]
    assert game.respond(4, "within", (0, 4)) and game.check(game.parse_answer("node 4"))
    with pytest.raises(InvalidAction):
        game.parse_answer("4 or 5")


def test_hidden_node_says_the_steps_come_first():
    """``<query_within>2, 3</query_within>`` is 2 steps from node 3; a node given first is
    refused for the number of steps, with a reminder of the order (issue 25)."""
    game = HiddenNode.benchmark(2, 0)
    assert game.parse_query("within", "2, 3") == (2, 3)
    with pytest.raises(InvalidAction, match=r"argument 1 must be 0 to 3, not 17.*first the number of steps"):
        game.parse_query("within", "17, 2")


def test_hidden_node_graphs_have_no_leaves():
    for level in (1, 3, 5):
        game = HiddenNode.benchmark(level, 4)
        degree = Counter(v for e in game.public["edges"] for v in e)
        assert min(degree[v] for v in range(1, game.params["n"] + 1)) >= 2
        assert len(game.public["edges"]) >= game.params["m"]


def test_route_taken_candidates_are_the_simple_paths_of_the_observed_length():
    square = ((1, 2), (1, 4), (2, 3), (3, 4), (2, 4))
    assert simple_paths(4, square, 1, 3, 2) == ((1, 2, 3), (1, 4, 3))
    assert simple_paths(4, square, 1, 3, 3) == ((1, 2, 4, 3), (1, 4, 2, 3))
    game = RouteTaken(1, {"edges": square, "s": 1, "t": 3, "L": 3}, hidden=(1, 4, 2, 3))
    assert game.respond(game.hidden, "used", (2, 4)) and not game.respond(game.hidden, "used", (1, 2))
    assert game.respond(game.hidden, "visited", (4,))
    assert [game.respond(game.hidden, "below", (v,)) for v in (1, 2, 3, 4)] == [1, 3, 6, 10]
    assert game.check(game.parse_answer("1 -> 4 -> 2 -> 3")) and not game.check(game.parse_answer("1, 2, 4, 3"))
    with pytest.raises(InvalidAction):
        game.parse_answer("1, 3")
    for level in (1, 5):
        game = RouteTaken.benchmark(level, 0)
        p = game.params
        routes = game.candidate_states()
        assert p["min_routes"] <= len(routes) <= p["max_routes"] and game.hidden in routes
        assert p["min_hops"] <= game.public["L"] <= p["max_hops"]
        edges = {tuple(e) for e in game.public["edges"]}
        for r in routes:
            assert (
                r[0] == game.public["s"] and r[-1] == game.public["t"] and len(set(r)) == len(r) == game.public["L"] + 1
            )
            assert all((min(a, b), max(a, b)) in edges for a, b in zip(r, r[1:]))


def test_route_taken_paths_are_a_plain_dfs_s_paths_in_its_order_and_stop_past_the_cap():
    """The pruned search (distance bound, the last two and three hops in loops) lists what a plain
    depth-first search lists, in its order, and with a cap the first ``cap + 1`` of them."""

    def plain(adj: dict, path: list, t: int, left: int, out: list) -> None:
        if left == 0:
            if path[-1] == t:
                out.append(tuple(path))
            return
        for w in adj[path[-1]]:
            if w not in path:
                plain(adj, [*path, w], t, left - 1, out)

    rng = np.random.default_rng(4)
    for _ in range(40):
        n = int(rng.integers(4, 10))
        edges = random_connected_graph(n, int(rng.integers(n - 1, n * (n - 1) // 2 + 1)), rng)
        adj = {v: sorted(w for e in edges if v in e for w in e if w != v) for v in range(1, n + 1)}
        for s_, t_ in ((1, n), (2, 1), (n, 3)):
            for length in range(1, n):
                listed: list = []
                plain(adj, [s_], t_, length, listed)
                assert _paths(n, edges, s_, t_, length, None) == listed
                assert _paths(n, edges, s_, t_, length, 2) == listed[:3]


def test_route_taken_items_outnumber_the_budget_from_level_2():
    """A scan of the nodes or links one by one has far more to ask than the budget, while one
    ``below`` sum over every node tells apart many of the candidate routes at once."""
    for level in (2, 5):
        game = RouteTaken.benchmark(level, 0)
        budget, routes = RouteTaken.budget(level), game.candidate_states()
        assert game.params["n"] > 5 * budget and len(game.public["edges"]) > 15 * budget
        sums = {game.respond(r, "below", (game.params["n"],)) for r in routes}
        assert len(sums) > 10


@pytest.mark.parametrize(
    "env_id", ["MTP/BrokenLink-v0", "MTP/OutbreakSource-v0", "MTP/RouteTaken-v0", "MTP/HiddenNode-v0"]
)
def test_public_graph_is_shown_and_the_answer_ends_the_episode(env_id):
    env = gym.make(env_id, difficulty=2)
    rules, info = env.reset(options={"config_id": 1})
    edges = info["game"]["public"]["edges"]
    numbered = ", ".join(f"#{j} {a}-{b}" for j, (a, b) in enumerate(edges, 1))  # BrokenLink numbers its links
    assert ", ".join(f"{a}-{b}" for a, b in edges) in rules or numbered in rules
    _, reward, term, _, info = env.step(f"<answer>{info['hidden']['target']}</answer>")
    assert term and reward == 1.0 and info["outcome"] == "success"
