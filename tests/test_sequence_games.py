"""Game-specific behaviour of the sequence games (the generic checks are in test_query_games.py)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.core import InvalidAction
from mtp_gym.games.hidden_order import HiddenOrder
from mtp_gym.games.lost_items import LostItems, explanations, received
from mtp_gym.games.range_sums import RangeSums
from mtp_gym.games.sequence_rule import SequenceRule, terms
from mtp_gym.games.sequence_transform import SequenceTransform, apply_rule
from mtp_gym.games.swap_history import SwapHistory, rows

SEQUENCE_GAMES = (HiddenOrder, RangeSums, SequenceRule, SequenceTransform, SwapHistory, LostItems)


def test_two_games_in_every_sequence_cell():
    cells = sorted((g.structure, g.inference) for g in SEQUENCE_GAMES)
    assert cells == sorted(("sequence", mode) for mode in ("deductive", "inductive", "abductive") for _ in range(2))


def test_hidden_order_queries_and_answers():
    game = HiddenOrder(2, hidden=("C", "A", "D", "B"))
    assert game.respond(game.hidden, "before", ("C", "B")) is True
    assert game.respond(game.hidden, "before", ("B", "A")) is False
    assert game.respond(game.hidden, "adjacent", ("D", "A")) is True
    assert game.respond(game.hidden, "adjacent", ("C", "B")) is False
    assert game.parse_query("before", "c, b") == ("C", "B")
    for text in ("C, A, D, B", "c a d b", "CADB", "[C > A > D > B]"):
        assert game.check(game.parse_answer(text)), text
    for bad in ("C, A, D", "C, A, D, D", "C, A, D, E", ""):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


def test_range_sums_queries_and_answers():
    game = RangeSums(1, hidden=(2, 0, 1, 0))  # level 1: 4 values, exactly 2 of them non-zero (1 or 2)
    assert [game.respond(game.hidden, "sum", (1, j)) for j in range(1, 5)] == [2, 2, 3, 3]
    assert game.respond(game.hidden, "sum", (2, 4)) == 1
    assert game.hidden in game.candidate_states() and len(game.candidate_states()) == 6 * 4
    assert all(sum(v != 0 for v in s) == 2 for s in game.candidate_states())
    assert game.check(game.parse_answer("2, 0, 1, 0"))
    for bad in ("2, 0, 1", "2, 0, 3, 0", "a, b"):
        with pytest.raises(InvalidAction, match="submit"):
            game.parse_answer(bad)
    with pytest.raises(InvalidAction, match="exactly 2 non-zero values; this answer has 3"):
        game.parse_answer("2, 1, 1, 0")  # a sequence the rules exclude: told why, no turn spent
    example = game.answer_format.removeprefix("<answer>").removesuffix("</answer>")
    assert game.parse_answer(example) in game.candidate_states()  # the rules' example is a valid instance


def test_sequence_rule_forms_and_equivalent_answers():
    assert terms(("arith", 5, -2), 4) == (5, 3, 1, -1)
    assert terms(("geom", 3, 2), 4) == (3, 6, 12, 24)
    assert terms(("alt", 1, 4), 5) == (1, 4, 1, 4, 1)
    assert terms(("fib", 1, 2), 6) == (1, 2, 3, 5, 8, 13)
    assert terms(("quad", 2, -1), 3) == (1, 7, 17)
    assert terms(("cycle", 0, 5, 2), 7) == (0, 5, 2, 0, 5, 2, 0)
    game = SequenceRule(5, hidden=("fib", 2, 3))
    assert [game.respond(game.hidden, "term", (k,)) for k in (1, 3, 10)] == [2, 5, 144]
    assert game.check(game.parse_answer("Fib 2, 3"))
    assert not game.check(game.parse_answer("fib 3 2"))
    game = SequenceRule(5, hidden=("arith", 4, 3))
    assert game.check(game.parse_answer("arith 4 3")) and not game.check(game.parse_answer("quad 0 4"))
    with pytest.raises(InvalidAction):
        SequenceRule(1).parse_answer("cycle 1 2 3")  # not a form of level 1
    with pytest.raises(InvalidAction):
        game.parse_answer("arith 4")


def test_sequence_rule_rules_text_states_the_hidden_space():
    game = SequenceRule.benchmark(4, 0)
    text = game.rules()
    for line in ("arith a d", "a from 0 to 9, d from -3 to 3", "cycle4 a b c d", "first 9 terms"):
        assert line in text
    assert game.hidden in game.candidate_states()


def test_sequence_transform_semantics_and_answers():
    assert apply_rule(("keep", 0, (2, 0, 1)), "0121") == "2010"
    assert apply_rule(("rotate", 1, (0, 1, 2)), "012") == "120"
    assert apply_rule(("reverse", 0, (1, 0)), "001") == "011"
    assert apply_rule(("swap", 0, (0, 1, 2)), "01201") == "10021"
    assert apply_rule(("sort", 0, (2, 1, 0)), "0120") == "0122"  # relabel first, then sort
    assert apply_rule(("sortdesc", 0, (0, 1, 2)), "0120") == "2100"
    game = SequenceTransform(2, hidden=("rotate", 2, (1, 2, 0)))
    assert game.respond(game.hidden, "apply", ("001",)) == "211"
    assert game.parse_query("apply", "0 0 1") == ("001",)
    for text in ("rotate 2, map 120", "ROTATE 2; map: 120", "rotate 2 map 120."):
        assert game.check(game.parse_answer(text)), text
    assert not game.check(game.parse_answer("rotate 1, map 120"))
    for bad in ("rotate, map 120", "keep 1, map 120", "rotate 4, map 120", "rotate 2, map 112", "spin 2"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    # from level 3 on the relabelling may merge digits: "map 112" is then a rule
    merging = SequenceTransform(3, hidden=("rotate", 2, (1, 1, 2)))
    assert merging.check(merging.parse_answer("rotate 2, map 112"))
    assert merging.respond(merging.hidden, "apply", ("012",)) == "211"


def test_swap_history_explanations_reproduce_the_observed_row():
    assert rows(4, (1, 3, 2)) == [
        ("A", "B", "C", "D"),
        ("B", "A", "C", "D"),
        ("B", "A", "D", "C"),
        ("B", "D", "A", "C"),
    ]
    for level in (1, 3, 5):
        game = SwapHistory.benchmark(level, 0)
        explanations_ = game.candidate_states()
        assert len(explanations_) > 1 and game.hidden in explanations_
        assert all(rows(game.params["n"], moves)[-1] == game.public["final"] for moves in explanations_)
        assert ", ".join(game.public["final"]) in game.rules()
    game = SwapHistory(2, {"final": rows(4, (1, 3, 2, 2))[-1]}, hidden=(1, 3, 2, 2))
    assert game.respond(game.hidden, "place", ("D", 3)) == 2
    assert game.respond(game.hidden, "moved", ("A", 3)) is True
    assert game.respond(game.hidden, "moved", ("C", 1)) is False
    assert game.parse_query("place", "d, 3") == ("D", 3)
    assert game.check(game.parse_answer("1, 3, 2, 2"))
    with pytest.raises(InvalidAction):
        game.parse_answer("1, 3, 4, 2")


def test_lost_items_explanations():
    assert received("AABAB", (2, 3)) == "AAB"
    assert explanations("AAB", "A", 2) == ((1, 3), (2, 3))
    game = LostItems(1, {"sent": "AAB", "received": "A"}, hidden=(1, 3))
    assert game.respond(game.hidden, "arrived", (1, 2)) == 1
    assert game.respond(game.hidden, "arrived", (2, 2)) == 1
    assert game.respond(game.hidden, "lost", (1,)) is True
    for level in (1, 3, 5):
        game = LostItems.benchmark(level, 0)
        assert len(game.candidate_states()) > 1 and game.hidden in game.candidate_states()
        assert all(received(game.public["sent"], lost) == game.public["received"] for lost in game.candidate_states())
    game = LostItems.benchmark(2, 0)
    assert game.check(game.parse_answer(", ".join(str(p) for p in reversed(game.hidden))))
    with pytest.raises(InvalidAction):
        game.parse_answer("1, 1, 2")


@pytest.mark.parametrize("game_cls", SEQUENCE_GAMES, ids=lambda g: g.name)
def test_oracle_answer_text_parses_back(game_cls):
    for level in (1, 5):
        game = game_cls.benchmark(level, 6)
        for state in list(game.candidate_states())[:200]:
            assert game.parse_answer(game.format_answer(game.target(state))) == game.target(state)
        env = gym.make(f"MTP/{game_cls.name}-v0", difficulty=level)
        rules, _ = env.reset(options={"config_id": 6})
        assert game.answer_format in rules
