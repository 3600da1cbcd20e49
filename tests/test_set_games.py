"""Set-structure query games beyond the deductive cell: game-specific rules.

The generic checks (well-posedness, oracle within budget, enumeration, probes) run for these
games in tests/test_query_games.py; here: equivalent rules are accepted, the observed outcome
of an abductive game is explained by every candidate cause, and the answer parsers.
"""

from __future__ import annotations

from itertools import combinations

import gymnasium as gym
import numpy as np
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.core import InvalidAction
from mtp_gym.games.fault_diagnosis import FaultDiagnosis
from mtp_gym.games.hidden_subset import HiddenSubset
from mtp_gym.games.number_concept import NumberConcept, extension
from mtp_gym.games.tag_rule import TagRule, fits
from mtp_gym.games.weighed_basket import WeighedBasket


def test_number_concept_rules_and_equivalent_answers():
    assert extension(("range", 3, 6), 10) == {3, 4, 5, 6}
    assert extension(("step", 2, 9, 3), 10) == {2, 5, 8}
    assert extension(("step", 4, 99, 4), 18) == {4, 8, 12, 16}  # b past n: clipped
    game = NumberConcept(2)  # n = 40: ranges and steps 2 to 3
    assert game.check(game.parse_answer("step 3 40 3"), ("step", 3, 39, 3))  # the same extension
    assert game.check(game.parse_answer("Steps 3 39 3"), ("step", 3, 39, 3))
    assert not game.check(game.parse_answer("step 3 36 3"), ("step", 3, 39, 3))
    states = game.candidate_states()
    assert ("step", 3, 39, 3) in states and ("step", 3, 40, 3) not in states  # one state per extension
    assert all(3 <= len(extension(s, 40)) < 40 for s in states)
    assert len({extension(s, 40) for s in states}) == len(states)
    assert "with m from 2 to 3" in game.rules()
    for bad in ("", "sevens", "range 3", "range a b", "step 1 2", "multiple 3"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


def test_number_concept_count_is_the_number_of_members_up_to_x():
    game = NumberConcept(3)
    for rule in (("range", 20, 33), ("step", 5, 50, 4)):
        ext = extension(rule, 60)
        assert [game.respond(rule, "count", (x,)) for x in (1, 19, 20, 30, 60)] == [
            sum(y <= x for y in ext) for x in (1, 19, 20, 30, 60)
        ]


def test_number_concept_episode_accepts_any_rule_with_the_hidden_extension():
    env = gym.make("MTP/NumberConcept-v0", difficulty=4)
    env.reset(options={"config_id": 0})
    env.unwrapped.game.hidden = ("step", 2, 80, 2)  # a hand-set hidden rule: the even numbers
    obs, *_ = env.step("<query_member>4</query_member>")
    assert obs.endswith("Yes")
    obs, *_ = env.step("<query_count>10</query_count>")
    assert obs.endswith(": 5")
    _, reward, term, _, info = env.step("<answer>step 2 99 2</answer>")
    assert term and reward == 1.0 and info["outcome"] == "success"


def test_tag_rule_fits_answers_and_made_up_items():
    assert fits(("A", "C"), "ABC") and not fits(("A", "C"), "AB") and fits(("B", "D", "E"), "ABCDE")
    game = TagRule(2)  # letters A to I, rules of 2 or 3 tags
    assert len(game.candidate_states()) == 36 + 84
    assert game.parse_answer("c, a") == ("A", "C") == game.parse_answer("all A C") == game.parse_answer("CA")
    assert game.parse_query("fits", "f, c a") == ("ACF",) == game.parse_query("fits", " acf ")
    assert game.respond(("A", "C"), "fits", game.parse_query("fits", "A, C, F"))
    assert not game.respond(("A", "B", "C"), "fits", ("ACF",))
    for bad in ("", "A", "A, A", "A, B, C, D", "A, Z", "rule 3"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    for bad in ("", "AZ", "A1", "3"):
        with pytest.raises(InvalidAction):
            game.parse_query("fits", bad)


def test_tag_rule_a_scan_of_the_made_up_items_tests_one_rule_at_a_time():
    """In the examples' order (by size, then alphabetically) the first example that contains a
    rule is the rule itself, so a scan rules the candidates out one by one."""
    game = TagRule(3)
    order = [s for (s,) in game.query_args("fits")]
    assert order[:3] == ["A", "B", "C"] and order[-1] == "ABCDEFGHIJ"
    for rule in game.candidate_states()[::17]:
        first = next(s for s in order if fits(rule, s))
        assert first == "".join(rule)


@pytest.mark.parametrize("level", (1, 2, 3, 4, 5))
def test_fault_diagnosis_outcome_is_explained_by_every_candidate(level):
    low, high = FaultDiagnosis.levels[level - 1]["explanations"]
    k = FaultDiagnosis.levels[level - 1]["k"]
    for config_id in range(20):
        game = FaultDiagnosis.benchmark(level, config_id)
        links, outcome = game.public["links"], set(game.public["outcome"])
        causes = game.candidate_states()
        assert low <= len(causes) <= high and game.hidden in causes
        assert list(causes) == sorted(set(causes))  # distinct, in order
        draws = np.random.default_rng(config_id), np.random.default_rng(config_id)
        assert game.sample_hidden(draws[0]) == causes[int(draws[1].integers(len(causes)))]  # the default's draw
        assert len(set(links)) == len(links) and all(len(link) == 2 for link in links)
        for cause in causes:
            assert len(cause) == k
            assert set().union(*(links[x - 1] for x in cause)) == outcome
        if level == 1:  # every k-set of sources, by brute force
            brute = [
                c
                for c in combinations(range(1, len(links) + 1), k)
                if set().union(*(links[x - 1] for x in c)) == outcome
            ]
            assert list(causes) == brute
        assert (
            "Observed outcome: the items affected are exactly " + ", ".join(map(str, sorted(outcome))) in game.rules()
        )


def test_fault_diagnosis_affected_is_the_outcome_of_a_prefix_of_sources():
    links = ((1, 2), (3, 4), (1, 3), (5, 6), (2, 4), (7, 8))
    game = FaultDiagnosis(1, {"links": links, "outcome": (1, 2, 3, 4, 5, 6)}, (3, 4, 5))  # 3 faulty of 6
    assert game.candidate_states() == ((1, 2, 4), (3, 4, 5))
    assert [game.respond(game.hidden, "affected", (x,)) for x in (2, 3, 4, 6)] == [
        (),
        (1, 3),
        (1, 3, 5, 6),
        (1, 2, 3, 4, 5, 6),
    ]
    assert game.respond(game.hidden, "faulty", (3,)) == "yes" and game.respond(game.hidden, "faulty", (1,)) == "no"
    assert game.reply("affected", (2,), ()) == "<query_affected>2</query_affected>: none"
    assert game.reply("affected", (4,), (1, 3, 5, 6)) == "<query_affected>4</query_affected>: 1, 3, 5, 6"
    assert game.wrong_answer("affected", (6,)) == (1, 3, 5, 6)  # every cause affects the whole outcome


@pytest.mark.parametrize("level", (1, 2, 3, 4, 5))
def test_weighed_basket_total_is_explained_by_every_candidate(level):
    low, high = WeighedBasket.levels[level - 1]["explanations"]
    for config_id in range(20):
        game = WeighedBasket.benchmark(level, config_id)
        weights, total = game.public["weights"], game.public["total"]
        causes = game.candidate_states()
        assert low <= len(causes) <= high and game.hidden in causes
        assert list(causes) == sorted(set(causes))  # distinct, in order
        draws = np.random.default_rng(config_id), np.random.default_rng(config_id)
        assert game.sample_hidden(draws[0]) == causes[int(draws[1].integers(len(causes)))]  # the default's draw
        assert all(len(c) == game.params["k"] and sum(weights[i - 1] for i in c) == total for c in causes)
        assert game.respond(game.hidden, "weight", (game.params["n"],)) == total
        assert game.respond(game.hidden, "weight", (1,)) == (weights[0] if 1 in game.hidden else 0)
        assert f"the total weight of the basket is {total}." in game.rules()


def test_abductive_answers_parse_in_any_order_and_case():
    links = ((1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (1, 8))
    fault = FaultDiagnosis(1, {"links": links, "outcome": (1, 2, 3, 4, 5, 6)})  # 3 faulty of 8
    assert fault.parse_answer("3, 1, 5") == (1, 3, 5)
    basket = WeighedBasket(1, {"weights": (1, 2, 3, 4, 5, 6, 7, 8), "total": 10})  # 4 of 8 items
    assert basket.parse_answer("3 1 2 4") == (1, 2, 3, 4)
    for game, bad in (
        (fault, "1, 2"),
        (fault, "1, 9, 2"),
        (fault, "1, 1, 2"),
        (fault, "a, b, c"),
        (basket, "1, 2, 3"),
        (basket, "1, 2, 3, 9"),
        (basket, "w, x, y, z"),
    ):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)


def test_hidden_subset_of_unknown_size_queries_and_answers():
    game = HiddenSubset(2, hidden=(4, 17))  # level 2: 28 elements, a set of 1 to 3 of them
    assert game.respond(game.hidden, "member", (17,)) is True and game.respond(game.hidden, "member", (5,)) is False
    assert [game.respond(game.hidden, "count", r) for r in ((1, 28), (1, 4), (5, 16), (4, 17))] == [2, 1, 0, 2]
    states = game.candidate_states()
    assert len(states) == 28 + 378 + 3276 and {len(s) for s in states} == {1, 2, 3}
    assert "at least 1 and at most 3 elements; how many is not told" in game.rules()
    for text in ("4, 17", "17 4", "[4, 17]"):
        assert game.check(game.parse_answer(text)), text
    assert not game.check(game.parse_answer("4"))  # a set of another size is a wrong answer, not a re-prompt
    for bad in ("", "4, 4", "4, 17, 20, 21", "0, 4", "29", "a, b"):
        with pytest.raises(InvalidAction):
            game.parse_answer(bad)
    sizes = {len(HiddenSubset.benchmark(level, c).hidden) for level in (2, 3, 4, 5) for c in range(20)}
    assert sizes == {1, 2, 3}  # the size is drawn too


def test_hidden_subset_scans_must_reach_the_end_unless_they_met_k_elements():
    """From level 2 a scan with exact books stops early only after k elements (issue 25)."""
    from mtp_gym.agents.oracles.query_games import VersionSpace
    from mtp_gym.agents.oracles.sweeps import sweep_turns

    for level in (2, 5):
        space = VersionSpace(HiddenSubset(level))
        n, k = HiddenSubset.levels[level - 1]["n"], HiddenSubset.levels[level - 1]["k"]
        for config_id in range(6):
            game = HiddenSubset.benchmark(level, config_id)
            won, turns = sweep_turns(game, "member", False, space)
            assert won and turns == (max(game.hidden) + 1 if len(game.hidden) == k else n + 1), (level, config_id)
            assert turns > game.budget(level) or len(game.hidden) == k
