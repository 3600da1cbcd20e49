"""Game-specific behaviour of the sequence games (the generic checks are in test_query_games.py)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.core import InvalidAction
from mtp_gym.games.hidden_order import HiddenOrder, merged, place_of
from mtp_gym.games.lost_items import LostItems, count_explanations, explanations, nth_explanation, received
from mtp_gym.games.range_sums import RangeSums
from mtp_gym.games.sequence_rule import SequenceRule, terms
from mtp_gym.games.sequence_transform import SequenceTransform, apply_rule
from mtp_gym.games.swap_history import SwapHistory, row_after, rows

SEQUENCE_GAMES = (HiddenOrder, RangeSums, SequenceRule, SequenceTransform, SwapHistory, LostItems)


def test_two_games_in_every_sequence_cell():
    cells = sorted((g.structure, g.inference) for g in SEQUENCE_GAMES)
    assert cells == sorted(("sequence", mode) for mode in ("deductive", "inductive", "abductive") for _ in range(2))


def test_hidden_order_queries_and_answers():
    game = HiddenOrder(1, hidden=(3, 1))  # level 1: items 1, 2 and the loose X, Y -> Y, 1, X, 2
    assert merged(2, game.hidden) == ("Y", "1", "X", "2")
    assert [place_of(2, game.hidden, x) for x in ("1", "2", "X", "Y")] == [2, 4, 3, 1]
    assert game.respond(game.hidden, "before", ("Y", "1")) is True
    assert game.respond(game.hidden, "before", ("2", "X")) is False
    assert game.respond(game.hidden, "adjacent", ("X", "2")) is True
    assert game.respond(game.hidden, "adjacent", ("Y", "X")) is False
    assert game.parse_query("before", "x, 2") == ("X", "2")
    with pytest.raises(InvalidAction):
        game.parse_query("before", "1, 2")  # two numbered items: their order is told
    for text in ("X 3, Y 1", "x: 3; y: 1", "Y 1, X 3", "3, 1"):
        assert game.check(game.parse_answer(text)), text
    for bad in ("X 3", "X 3, Y 3", "X 3, Y 5", "", "X 1, Y 2, Z 3"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    assert len(game.candidate_states()) == 12  # 4 places for X, 3 for Y


def test_hidden_order_a_linear_merge_cannot_fit_where_binary_insertion_does():
    """From level 2 the numbered run is longer than the budget: comparing a loose item with the
    numbered ones in order reaches it only after as many questions as its place, while halving
    the run places it in about log2(n) questions."""
    for level in (2, 3, 4, 5):
        game = HiddenOrder.benchmark(level, 0)
        assert game.params["n"] > HiddenOrder.budget(level) > 2 * (game.params["n"] + 1).bit_length()


def test_range_sums_queries_and_answers():
    game = RangeSums(1, hidden=((1, 2), (3, 1)))  # level 1: 4 values, 1 or 2 of them non-zero (1 or 2)
    assert game.target(game.hidden) == (2, 0, 1, 0)
    assert [game.respond(game.hidden, "sum", (j,)) for j in range(1, 5)] == [2, 2, 3, 3]  # running totals
    assert game.query_args("sum") == [(1,), (2,), (3,), (4,)]
    states = game.candidate_states()
    assert game.hidden in states and len(states) == 4 * 2 + 6 * 4  # one or two non-zero values
    assert all(1 <= len(s) <= 2 and all(1 <= v <= 2 for _, v in s) for s in states)
    assert len({game.target(s) for s in states}) == len(states)
    for text in ("1:2, 3:1", "3:1, 1:2", "1 : 2; 3=1", "2, 0, 1, 0", "1:2, 2:0, 3:1"):
        assert game.check(game.parse_answer(text)), text  # sparse pairs, or every value in order
    assert game.format_answer(game.target(game.hidden)) == "1:2, 3:1"
    for bad in ("2, 0, 1", "2, 0, 3, 0", "a, b", "5:1", "1:3", "1:2, 1:1", "1-2"):
        with pytest.raises(InvalidAction, match="submit|pair|fit|list"):
            game.parse_answer(bad)
    with pytest.raises(InvalidAction, match="between 1 and 2 non-zero values; this answer has 3"):
        game.parse_answer("1:2, 2:1, 3:1")  # a sequence the rules exclude: told why, no turn spent
    with pytest.raises(InvalidAction, match="this answer has 0"):
        game.parse_answer("0, 0, 0, 0")
    example = game.answer_format.removeprefix("<answer>").removesuffix("</answer>")
    assert game.parse_answer(example) in {game.target(s) for s in states}  # the rules' example is valid


def test_range_sums_is_a_sequence_game_unlike_hidden_subset():
    """Every level hides values (1 or 2) at positions, asks running totals (no membership or
    count), answers the whole sequence; the count of non-zero values is not told, so a scan of
    the totals in order must reach the end unless it met k of them (issue 25)."""
    from mtp_gym.agents.oracles.query_games import VersionSpace
    from mtp_gym.agents.oracles.sweeps import sweep_turns
    from mtp_gym.games.hidden_subset import HiddenSubset

    assert [q.name for q in RangeSums.queries] == ["sum"] and RangeSums.queries[0].args == (int,)
    for level in range(1, 6):
        game = RangeSums(level)
        params = game.params
        values = {v for s in game.candidate_states() for _, v in s}
        assert params["top"] >= 2 and values == set(range(1, params["top"] + 1))
        assert len(game.candidate_states()) != len(HiddenSubset(level).candidate_states())
        if level == 1:
            continue
        space = VersionSpace(game)
        for config_id in range(4):
            bench = RangeSums.benchmark(level, config_id)
            won, turns = sweep_turns(bench, "sum", False, space)
            assert won and (turns == params["length"] + 1 or len(bench.hidden) == params["k"]), (level, config_id)
            assert turns <= params["length"] + 1


def test_sequence_rule_forms_and_equivalent_answers():
    assert terms(("arith", 5, -2), 4) == (5, 3, 1, -1)
    assert terms(("step", 3, 1, 4), 6) == (3, 3, 3, 1, 1, 1)
    assert terms(("ramp", 2, 3, 3), 6) == (2, 5, 8, 8, 8, 8)
    assert terms(("climb", 4, -1, 2), 5) == (4, 4, 3, 2, 1)
    assert terms(("saw", 0, 2, 3), 7) == (0, 2, 4, 0, 2, 4, 0)
    assert terms(("spike", 1, 5, 3), 5) == (1, 1, 5, 1, 1)
    game = SequenceRule(5, hidden=("step", 2, 5, 40))
    assert [game.respond(game.hidden, "term", (k,)) for k in (1, 39, 40, 100)] == [2, 2, 5, 5]
    assert game.respond(game.hidden, "total", (100,)) == 2 * 39 + 5 * 61
    assert game.check(game.parse_answer("Step 2, 5, 40"))
    assert not game.check(game.parse_answer("step 2 5 41"))
    game = SequenceRule(5, hidden=("arith", 4, 3))
    assert game.check(game.parse_answer("arith 4 3")) and game.check(game.parse_answer("ramp 4 3 100"))
    with pytest.raises(InvalidAction):
        SequenceRule(1).parse_answer("saw 1 2 3")  # not a form of level 1
    with pytest.raises(InvalidAction):
        game.parse_answer("arith 4")
    with pytest.raises(InvalidAction):
        game.parse_answer("saw 1 2 0")


def test_sequence_rule_rules_text_states_the_hidden_space():
    game = SequenceRule.benchmark(4, 0)
    text = game.rules()
    for line in ("arith a d", "a from 0 to 5, d from -2 to 2", "saw a d m", "first 80 terms", "position 1 to 80"):
        assert line in text
    assert game.hidden in game.candidate_states()


def test_sequence_rule_a_prefix_read_does_not_fit_a_late_change():
    """From level 2 the rules change at a hidden position among many more than the budget: a
    read of the terms in order needs about as many questions as that position, while the
    totals and the terms on both sides pin it in a few."""
    for level in (2, 3, 4, 5):
        game = SequenceRule(level, hidden=("step", 1, 3, 40))
        budget = SequenceRule.budget(level)
        assert game.params["K"] > 4 * budget
        ones = [k for k in range(1, 40) if game.respond(game.hidden, "term", (k,)) == 1]
        assert len(ones) == 39 > budget  # every one of these reads is needed before the change shows


def test_sequence_transform_semantics_and_answers():
    assert apply_rule(("rotate", 2), 3, 7) == (5, 6, 7, 3, 4)
    assert apply_rule(("rotate", 5), 3, 7) == (3, 4, 5, 6, 7)  # a run of p numbers or fewer: unchanged
    assert apply_rule(("drop", 3), 2, 10) == (2, 4, 5, 7, 8, 10)
    assert apply_rule(("drop", 3), 4, 5) == (4, 5)
    assert apply_rule(("cap", 4), 2, 6) == (2, 3, 4, 4, 4)
    assert apply_rule(("cut", 2), 5, 9) == (5, 6)
    assert apply_rule(("flip", 3), 1, 4) == (4, 3, 2, 1)
    assert apply_rule(("flip", 3), 1, 3) == (1, 2, 3)
    game = SequenceTransform(5, hidden=("flip", 20))
    assert game.respond(game.hidden, "apply", (5, 8)) == (5, 6, 7, 8)
    assert game.render_value("apply", (3, 3), ()) == "(nothing)"
    assert game.parse_query("apply", "5 8") == (5, 8)
    with pytest.raises(InvalidAction):
        game.parse_query("apply", "8, 5")
    for text in ("flip 20", "FLIP: 20", " flip 20. "):
        assert game.check(game.parse_answer(text)), text
    assert not game.check(game.parse_answer("flip 21"))
    for bad in ("flip", "flip 0", "flip 64", "spin 2", "rotate 2, map 120"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    with pytest.raises(InvalidAction):
        SequenceTransform(4).parse_answer("flip 3")  # not a form of level 4
    assert game.wrong_answer("apply", (1, 1)) == (2,)  # every rule leaves the run 1..1 alone
    for level in (1, 2, 3, 4, 5):  # no two rules of a level act the same: the runs 1..j and 2..j tell them apart
        game = SequenceTransform(level)
        prefixes = [(i, j) for i in (1, 2) for j in range(i, game.params["N"] + 1)]
        outputs = {tuple(apply_rule(r, i, j) for i, j in prefixes) for r in game.candidate_states()}
        assert len(outputs) == len(game.candidate_states()), level


def test_sequence_transform_a_read_of_the_runs_in_order_meets_the_parameter_late():
    game = SequenceTransform(5, hidden=("cap", 40))
    runs = game.query_args("apply")
    first_change = next(
        k for k, (i, j) in enumerate(runs) if game.respond(game.hidden, "apply", (i, j)) != tuple(range(i, j + 1))
    )
    assert first_change == 40 and runs[first_change] == (1, 41)  # (1, 1), (1, 2), ... all unchanged before
    assert game.respond(game.hidden, "apply", (1, 64))[-1] == 40  # one long run shows it at once


def test_swap_history_explanations_reproduce_the_observed_row():
    assert rows(4, ((3, 1), (9, 3))) == [("A", "B", "C", "D"), ("B", "A", "C", "D"), ("B", "A", "D", "C")]
    for level in (1, 3, 5):
        game = SwapHistory.benchmark(level, 0)
        explanations_ = game.candidate_states()
        assert len(explanations_) > 1 and game.hidden in explanations_
        assert all(rows(game.params["n"], moves)[-1] == game.public["final"] for moves in explanations_)
        assert all(1 <= t1 < t2 <= game.params["T"] for (t1, _), (t2, _) in explanations_)
        assert ", ".join(game.public["final"]) in game.rules()
    final = rows(4, ((3, 1), (9, 3)))[-1]
    game = SwapHistory(2, {"final": final}, hidden=((3, 1), (9, 3)))
    assert game.respond(game.hidden, "row", (2,)) == ("A", "B", "C", "D")
    assert game.respond(game.hidden, "row", (3,)) == ("B", "A", "C", "D") == row_after(4, game.hidden, 8)
    assert game.respond(game.hidden, "row", (9,)) == final
    assert game.reply("row", (9,), final).endswith(": B, A, D, C")
    assert ((3, 3), (9, 1)) in game.candidate_states()  # far-apart swaps: either order explains it
    assert game.check(game.parse_answer("3:1, 9:3")) and not game.check(game.parse_answer("3:3, 9:1"))
    for bad in ("3:1", "9:3, 3:1", "3:1, 9:4", "3:1, 49:3", "a, b"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    cycle = SwapHistory(2, {"final": rows(4, ((3, 1), (9, 2)))[-1]})
    assert all(p1 == 1 and p2 == 2 for (_, p1), (_, p2) in cycle.candidate_states())  # one order only


def test_lost_items_explanations():
    import itertools

    import numpy as np

    assert received("AABAB", (2, 3)) == "AAB"
    assert explanations("AAB", "A", 2) == ((1, 3), (2, 3))
    rng = np.random.default_rng(0)
    for _ in range(200):  # against brute force on small random cases
        n = int(rng.integers(1, 10))
        d = int(rng.integers(0, n + 1))
        sent = "".join("AB"[int(x)] for x in rng.integers(0, 2, size=n))
        got = received(sent, tuple(sorted(int(x) + 1 for x in rng.choice(n, size=d, replace=False))))
        brute = tuple(c for c in itertools.combinations(range(1, n + 1), d) if received(sent, c) == got)
        assert explanations(sent, got, d) == brute and count_explanations(sent, got, d) == len(brute)
        assert tuple(nth_explanation(sent, got, d, i) for i in range(len(brute))) == brute
    game = LostItems(1, {"sent": "ABABABAB", "received": "ABBAB"}, hidden=(3, 4, 5))
    assert game.respond(game.hidden, "arrived", (4,)) == 2
    assert game.respond(game.hidden, "arrived", (8,)) == 5
    assert game.respond(game.hidden, "lost", (5,)) is True
    assert len(game.candidate_states()) == 6  # the lost pair slides along the alternation
    for level in (1, 3, 5):
        game = LostItems.benchmark(level, 0)
        assert len(game.candidate_states()) > 1 and game.hidden in game.candidate_states()
        assert all(received(game.public["sent"], lost) == game.public["received"] for lost in game.candidate_states())
        assert game.public["sent"] == "AB" * (game.params["n"] // 2)
    game = LostItems.benchmark(2, 0)
    assert game.check(game.parse_answer(", ".join(str(p) for p in reversed(game.hidden))))
    with pytest.raises(InvalidAction):
        game.parse_answer("1, 1, 2")


def test_lost_items_outcome_rules_out_most_explanations():
    """The received sequence is informative: of all the d-subsets of positions only a few
    thousand leave it, those whose lost pairs of neighbours slide along the alternation."""
    from math import comb

    for level in (2, 3, 4, 5):
        game = LostItems.benchmark(level, 0)
        n, d = game.params["n"], game.params["d"]
        assert len(game.candidate_states()) * 1000 < comb(n, d)


@pytest.mark.parametrize("game_cls", SEQUENCE_GAMES, ids=lambda g: g.name)
def test_oracle_answer_text_parses_back(game_cls):
    for level in (1, 5):
        game = game_cls.benchmark(level, 6)
        for state in list(game.candidate_states())[:200]:
            assert game.parse_answer(game.format_answer(game.target(state))) == game.target(state)
        env = gym.make(f"MTP/{game_cls.name}-v0", difficulty=level)
        rules, _ = env.reset(options={"config_id": 6})
        assert game.answer_format in rules
