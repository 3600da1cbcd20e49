"""Set-structure query games beyond the deductive cell: game-specific rules.

The generic checks (well-posedness, oracle within budget, enumeration, probes) run for these
games in tests/test_query_games.py; here: equivalent rules are accepted, the observed outcome
of an abductive game is explained by every candidate cause, and the answer parsers.
"""

from __future__ import annotations

import string

import gymnasium as gym
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.core import InvalidAction
from mtp_gym.games.fault_diagnosis import FaultDiagnosis
from mtp_gym.games.number_concept import NumberConcept, extension
from mtp_gym.games.tag_rule import TagRule, fits
from mtp_gym.games.weighed_basket import WeighedBasket


def test_number_concept_rules_and_equivalent_answers():
    assert extension(("multiple", 3), 10) == {3, 6, 9}
    assert extension(("mod", 4, 1), 10) == {1, 5, 9}
    assert extension(("power", 2), 20) == {2, 4, 8, 16}
    assert extension(("prime",), 12) == {2, 3, 5, 7, 11}
    assert extension(("ends", 3), 30) == {3, 13, 23}
    game = NumberConcept(2)  # n = 16: multiples, residues, ranges
    assert game.check(game.parse_answer("mod 3 0"), ("multiple", 3))
    assert game.check(game.parse_answer("Multiples 3"), ("multiple", 3))
    assert not game.check(game.parse_answer("mod 3 1"), ("multiple", 3))
    states = game.candidate_states()
    assert ("multiple", 3) in states and ("mod", 3, 0) not in states  # one state per extension
    assert all(3 <= len(extension(s, 16)) < 16 for s in states)
    for bad in ("", "sevens", "mod 3", "range a b", "square 2"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


def test_number_concept_episode_accepts_any_rule_with_the_hidden_extension():
    env = gym.make("MTP/NumberConcept-v0", difficulty=4)
    env.reset(options={"config_id": 0})
    env.unwrapped.game.hidden = ("multiple", 2)  # a hand-set hidden rule
    obs, *_ = env.step("<query_member>4</query_member>")
    assert obs.endswith("Yes")
    _, reward, term, _, info = env.step("<answer>mod 2 0</answer>")
    assert term and reward == 1.0 and info["outcome"] == "success"


def test_tag_rule_forms_and_equivalence_on_the_catalog():
    assert fits(("all", "A", "C"), "ABC") and not fits(("all", "A", "C"), "AB")
    assert fits(("any", "A", "C"), "C") and not fits(("any", "A", "C"), "B")
    assert fits(("but", "A", "C"), "AB") and not fits(("but", "A", "C"), "AC")
    assert fits(("atleast", 2), "AB") and fits(("atmost", 1), "") and not fits(("lacks", "B"), "AB")
    game = TagRule(2, {"catalog": ("A", "AB", "B", "", "AC", "BC", "ABC", "C")})
    # no item has tag D, so "but A D" selects the same items as "has A": the same rule here
    assert game.check(game.parse_answer("but A D"), ("has", "A"))
    assert game.check(game.parse_answer("ALL b a"), ("all", "A", "B"))
    assert not game.check(game.parse_answer("any A B"), ("has", "A"))
    for bad in ("has", "has E", "all A", "atleast X", "maybe A"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


@pytest.mark.parametrize("level", (1, 2, 3, 4, 5))
def test_fault_diagnosis_outcome_is_explained_by_every_candidate(level):
    low, high = FaultDiagnosis.levels[level - 1]["explanations"]
    for config_id in range(20):
        game = FaultDiagnosis.benchmark(level, config_id)
        links, outcome = game.public["links"], set(game.public["outcome"])
        causes = game.candidate_states()
        assert low <= len(causes) <= high and game.hidden in causes
        assert len(set(links)) == len(links)
        for cause in causes:
            assert len(cause) == game.params["k"]
            assert set().union(*(links[string.ascii_uppercase.index(x)] for x in cause)) == outcome
        assert (
            "Observed outcome: the items affected are exactly " + ", ".join(map(str, sorted(outcome))) in game.rules()
        )


@pytest.mark.parametrize("level", (1, 2, 3, 4, 5))
def test_weighed_basket_total_is_explained_by_every_candidate(level):
    low, high = WeighedBasket.levels[level - 1]["explanations"]
    for config_id in range(20):
        game = WeighedBasket.benchmark(level, config_id)
        weights, total = game.public["weights"], game.public["total"]
        causes = game.candidate_states()
        assert low <= len(causes) <= high and game.hidden in causes
        assert all(len(c) == game.params["k"] and sum(weights[i - 1] for i in c) == total for c in causes)
        assert game.respond(game.hidden, "count", (1, game.params["n"])) == game.params["k"]
        assert f"the total weight of the basket is {total}." in game.rules()


def test_abductive_answers_parse_in_any_order_and_case():
    links = ((1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (1, 8))
    fault = FaultDiagnosis(1, {"links": links, "outcome": (1, 2, 3, 4, 5, 6)})  # 3 faulty of 8
    assert fault.parse_answer("c, a, b") == ("A", "B", "C")
    basket = WeighedBasket(1, {"weights": (1, 2, 3, 4, 5, 6, 7, 8), "total": 10})  # 4 of 8 items
    assert basket.parse_answer("3 1 2 4") == (1, 2, 3, 4)
    for game, bad in (
        (fault, "A, B"),
        (fault, "A, Z, B"),
        (fault, "A, A, B"),
        (basket, "1, 2, 3"),
        (basket, "1, 2, 3, 9"),
        (basket, "w, x, y, z"),
    ):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
