"""Turing Machine (TurnBench-MS): criteria, published data, generator, protocol, beliefs, oracle.

CI runs in about 25 s (the oracle on all 250 well-formed published setups in both modes and
the generator on 1000 seeds per difficulty included). The long sweep is ``slow``:
``pytest -m slow tests/test_turing_machine.py`` (about 40 s: the oracle on 1000 generated
setups per mode).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mtp_gym  # noqa: F401
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.turing_machine import TuringMachineOracle
from mtp_gym.data import asset_path
from mtp_gym.episode import play_to_end, public_info
from mtp_gym.turing_machine import rules
from mtp_gym.turing_machine.env import TuringMachineEnv, parse_code
from mtp_gym.turing_machine.inference import read_instructions
from mtp_gym.turing_machine.prompts import STAGE_PROMPTS

ENV_ID = "MTP/TuringMachine-v0"
sys.path.insert(0, str(Path(__file__).parent))

# ----------------------------------------------------------------------------- criteria
#: Hand-written spot checks: criterion -> (codes that pass, codes that fail).
SPOT_CHECKS = {
    "blue_eq_1": ("111 155", "211 511"),
    "blue_gt_1": ("211 511", "111 155"),
    "blue_lt_3": ("111 255", "311 511"),
    "blue_eq_3": ("311 355", "211 411"),
    "blue_gt_3": ("411 555", "311 155"),
    "blue_lt_4": ("311 111", "411 511"),
    "blue_eq_4": ("411", "311"),
    "blue_gt_4": ("511", "411"),
    "yellow_lt_3": ("121 515", "131 151"),
    "yellow_eq_3": ("131", "121 141"),
    "yellow_gt_3": ("141 151", "131 111"),
    "yellow_lt_4": ("131 111", "141 151"),
    "yellow_eq_4": ("141", "131 151"),
    "yellow_gt_4": ("151", "141"),
    "yellow_eq_1": ("211", "221"),
    "yellow_gt_1": ("121", "111"),
    "purple_lt_3": ("112 552", "113 115"),
    "purple_lt_4": ("113", "114"),
    "purple_eq_1": ("221", "222"),
    "purple_eq_3": ("123", "124"),
    "purple_eq_4": ("114", "115"),
    "purple_gt_1": ("112", "111"),
    "purple_gt_3": ("114 555", "113"),
    "purple_gt_4": ("115", "114"),
    "blue_is_even": ("211 455", "111 511"),
    "blue_is_odd": ("111 355", "222 411"),
    "yellow_is_even": ("121 141", "111 353"),
    "yellow_is_odd": ("111 252", "121"),
    "purple_is_even": ("112 554", "111 225"),
    "purple_is_odd": ("111 225", "112"),
    "zero_1s": ("222 345", "123 111"),
    "one_1": ("125 215 331", "222 112"),
    "two_1s": ("112 151", "111 123"),
    "three_1s": ("111", "112"),
    "zero_3s": ("222", "135"),
    "one_3": ("135 315", "331 222"),
    "two_3s": ("331 353", "333 135"),
    "three_3s": ("333", "332"),
    "zero_4s": ("123", "435"),
    "one_4": ("435 154", "444 434"),
    "two_4s": ("434 244", "444 412"),
    "three_4s": ("444", "443"),
    "blue_lt_yellow": ("125 151", "215 115"),
    "blue_eq_yellow": ("115 443", "125"),
    "blue_gt_yellow": ("215 513", "115 125"),
    "blue_lt_purple": ("152 115", "211 111"),
    "blue_eq_purple": ("151 424", "152"),
    "blue_gt_purple": ("211 543", "111 152"),
    "yellow_lt_purple": ("112 534", "121 111"),
    "yellow_eq_purple": ("122 511", "121"),
    "yellow_gt_purple": ("121 154", "122 112"),
    "yellow_lt_blue": ("211 515", "121 111"),
    "yellow_eq_blue": ("113 552", "123"),
    "yellow_gt_blue": ("121 154", "211 111"),
    "blue_smallest": ("123 132", "113 213"),
    "yellow_smallest": ("213 415", "113 321"),
    "purple_smallest": ("231 541 331", "311 123"),
    "blue_largest": ("521 312", "551 135"),
    "yellow_largest": ("151 252", "155 511"),
    "purple_largest": ("125 335", "155 521"),
    "blue_smallest_or_tie": ("111 112 123", "211 312"),
    "yellow_smallest_or_tie": ("111 212 314 312", "121 132"),
    "purple_smallest_or_tie": ("111 221 331", "112 132"),
    "blue_largest_or_tie": ("555 551 321", "451 345"),
    "yellow_largest_or_tie": ("151 555 154", "415 125"),
    "purple_largest_or_tie": ("125 555 335", "531 154"),
    "more_even_numbers": ("245 222", "332 135"),
    "more_odd_numbers": ("332 135", "245 224"),
    "zero_even_numbers": ("135 531", "235"),
    "one_even_number": ("323 125", "135 225"),
    "two_even_numbers": ("432 225", "242 323"),
    "three_even_numbers": ("242", "243"),
    "sum_is_even": ("112 222 125", "111 113"),
    "sum_is_odd": ("111 113", "112 222"),
    "blue_yellow_sum_lt_6": ("141 111", "151 551"),
    "blue_yellow_sum_eq_6": ("151 331 241", "141 251"),
    "blue_yellow_sum_gt_6": ("251 551", "151 111"),
    "triple_number": ("222 555", "221"),
    "double_number": ("112 121 211", "222 123"),
    "no_repetition": ("125 531", "112 222"),
    "no_pairs": ("134 222", "131 113"),
    "has_pair": ("131 113", "134 222"),
    "ascending_order": ("135 123", "122 321"),
    "descending_order": ("421 531", "221 123"),
    "no_order": ("231 122", "135 421"),
    "sum_lt_6": ("112 113", "123 555"),
    "sum_eq_6": ("123 222 114", "113 124"),
    "sum_gt_6": ("124 555", "123 111"),
    "three_ascending": ("234 123 345", "235 321"),
    "two_ascending": ("233 124 512", "234 135"),
    "no_ascending": ("135 321 111", "233 234"),
    "no_sequence_in_ascending_or_descending": ("135 531 111 153", "235 121"),
    "two_in_sequence_in_ascending_or_descending": ("235 532 121", "234 432 135"),
    "three_in_sequence_in_ascending_or_descending": ("234 432 345 543", "235 121"),
    "sum_multiple_of_3": ("111 123 555", "112 125"),
    "sum_multiple_of_4": ("112 125 444", "111 123"),
    "sum_multiple_of_5": ("113 145 555", "111 112"),
    "blue_yellow_sum_eq_4": ("131 225 315", "141 231"),
    "blue_purple_sum_eq_4": ("113 252 311", "114 233"),
    "yellow_purple_sum_eq_4": ("113 522 131", "114 233"),
    "blue_purple_sum_eq_6": ("115 333 224", "114 225"),
    "yellow_purple_sum_eq_6": ("115 133 242", "114 244"),
}

#: Exact counts of passing codes (of 125) for criteria with a closed form.
COUNTS = {
    "blue_eq_1": 25,
    "ascending_order": 10,
    "descending_order": 10,
    "no_order": 105,
    "triple_number": 5,
    "double_number": 60,
    "no_repetition": 60,
    "has_pair": 60,
    "no_pairs": 65,
    "sum_eq_6": 10,
    "three_in_sequence_in_ascending_or_descending": 6,
    "three_ascending": 3,
    "three_1s": 1,
    "zero_1s": 64,
    "blue_smallest": 30,
    "blue_smallest_or_tie": 55,
    "zero_even_numbers": 27,
    "three_even_numbers": 8,
}

#: Known flaws of the published setups (reference/turnbench/PROVENANCE.md).
NON_UNIQUE = {"B42VD9": 11, "B4BSHV": 3}
REDUNDANT = {
    "B6382UQ",
    "C4AME9",
    "C5H33W",
    "C5M080",
    "C52DRHW",
    "C52BE8D",
    "C51ZLTQ",
    "C5146RZ",
    "C51ADLQ",
    "C630FGI",
    "C64RK1Q",
    "C64E3TG",
    "C64EJ6M",
    "C637RLI",
    "C63HBMM",
    "C63JKTR",
    "C64M824",
    "C64CFS0",
}
#: sha256 of the shipped files = the files at the upstream commit named in assets/turnbench/LICENSE.
ASSET_SHA256 = {
    "verifiers.json": "c801b49f31abdfcb59ebb05c1cd34a2300332add2a3d185403676944922fd03f",
    "setups.json": "5f1841973f9634e747781458a6d5221273b9f6c5c4460c4696272085f0801456",
    "paper_eval_subsets.json": "9a129347c58ebc39cd2bd8aa4b45a456357701b6d96c142bebbdda699ac96b94",
}


def test_every_card_criterion_has_spot_checks_and_they_hold():
    used = {k.function for c in rules.cards().values() for k in c.criteria}
    assert len(rules.cards()) == 48 and sum(len(c.criteria) for c in rules.cards().values()) == 183
    assert used <= set(SPOT_CHECKS), f"no spot checks for {sorted(used - set(SPOT_CHECKS))}"
    for name, (passing, failing) in SPOT_CHECKS.items():
        for code in passing.split():
            assert rules.evaluate(name, rules.parse_code_str(code)), f"{name} should pass {code}"
        for code in failing.split():
            assert not rules.evaluate(name, rules.parse_code_str(code)), f"{name} should fail {code}"


@pytest.mark.parametrize("name, count", sorted(COUNTS.items()))
def test_truth_table_counts(name, count):
    assert rules.popcount(rules.truth_table(name)) == count


def test_single_property_cards_partition_the_codes():
    """Cards 1-13 and 16-25 ask one question with exclusive, exhaustive answers."""
    for cid in [*range(1, 14), *range(16, 26)]:
        masks = [k.mask for k in rules.cards()[cid].criteria]
        assert sum(rules.popcount(m) for m in masks) == rules.N_CODES, cid
        acc = 0
        for m in masks:
            assert acc & m == 0, cid
            acc |= m
        assert acc == rules.ALL_CODES_MASK, cid


def test_code_indexing_round_trips():
    for i, code in enumerate(rules.CODES):
        assert rules.code_index(code) == i and rules.parse_code_str(rules.code_str(code)) == code


# ----------------------------------------------------------------------------- published data
def test_shipped_data_equals_the_upstream_files():
    for name, digest in ASSET_SHA256.items():
        assert hashlib.sha256(asset_path("turnbench", name).read_bytes()).hexdigest() == digest, name
    assert "Copyright (c) 2025 Yiran Zhang" in asset_path("turnbench", "LICENSE").read_text()


def test_published_setups_layout():
    setups = rules.published_setups()
    assert len(setups) == 270 and len({s.setup_id for s in setups}) == 270
    counts: dict[tuple[str, int], int] = {}
    for s in setups:
        counts[(s.difficulty, len(s.cards))] = counts.get((s.difficulty, len(s.cards)), 0) + 1
        assert set(s.cards) <= set(rules.CARD_POOLS[s.difficulty]) and len(set(s.cards)) == len(s.cards)
        assert sorted(s.mapping) == list(range(len(s.cards)))
    assert counts == {("easy", 4): 45, ("easy", 5): 45, **{(d, n): 30 for d in ("medium", "hard") for n in (4, 5, 6)}}
    assert sum(s.mapping == tuple(range(len(s.cards))) for s in setups) == 8  # identity maps (PROVENANCE.md)


def test_loader_detects_exactly_the_published_flaws():
    non_unique, redundant, well_formed = {}, set(), 0
    for s in rules.published_setups():
        check = rules.check_setup(s)
        assert check.answer_ok, s.setup_id
        if not check.unique:
            non_unique[s.setup_id] = len(check.solutions)
        elif check.redundant_slots:
            redundant.add(s.setup_id)
        else:
            well_formed += 1
    assert non_unique == NON_UNIQUE and redundant == REDUNDANT and well_formed == 250


def test_first_published_setup_worked_example():
    """A44BY2: YELLOW > 4, zero 3s, BLUE > PURPLE, zero even numbers -> only 551."""
    s = rules.published_setup("A44BY2")
    assert [c.function for c in s.criteria] == ["yellow_gt_4", "zero_3s", "blue_gt_purple", "zero_even_numbers"]
    assert rules.check_setup(s).solutions == ((5, 5, 1),)
    assert s.mapping == (3, 2, 1, 0)
    assert s.result(0, (5, 5, 1)) and not s.result(0, (5, 4, 1))
    assert not s.result(0, (1, 5, 2), nightmare=True)  # slot 0 answers with card 17: 152 has an even digit
    assert s.result(3, (1, 5, 2), nightmare=True)  # slot 3 answers with card 4: YELLOW=5 > 4


def test_hypothesis_space_contains_the_truth_of_every_well_formed_setup():
    for s in rules.published_setups():
        assign, answers = rules.consistent_assignments(s.cards)
        hit = np.flatnonzero((assign == np.array(s.active)).all(axis=1))
        check = rules.check_setup(s)
        assert (len(hit) == 1) == check.well_formed, s.setup_id
        if len(hit):
            assert rules.CODES[answers[hit[0]]] == s.answer


# ----------------------------------------------------------------------------- generator
def _check_generated(setup: rules.Setup, difficulty: str) -> None:
    check = rules.check_setup(setup)
    assert check.well_formed and check.solutions == (setup.answer,)
    assert len(setup.cards) in rules.VERIFIER_COUNTS[difficulty]
    assert set(setup.cards) <= set(rules.CARD_POOLS[difficulty]) and len(set(setup.cards)) == len(setup.cards)
    assert sorted(setup.mapping) == list(range(len(setup.cards)))


@pytest.mark.parametrize("difficulty", rules.DIFFICULTIES)
def test_generator_1000_seeds_per_difficulty(difficulty):
    for seed in range(1000):
        _check_generated(rules.generate_setup(np.random.default_rng(seed), difficulty), difficulty)


def test_generator_is_deterministic_per_seed_and_avoids_published_setups():
    a = [rules.generate_setup(np.random.default_rng(3), "hard") for _ in range(3)]
    b = [rules.generate_setup(np.random.default_rng(3), "hard") for _ in range(3)]
    assert a == b
    published = {(s.cards, s.active, s.answer) for s in rules.published_setups()}
    rng = np.random.default_rng(0)
    assert all(
        (s.cards, s.active, s.answer) not in published for s in (rules.generate_setup(rng, "easy") for _ in range(50))
    )
    env = gym.make(ENV_ID, setups="generated", mode="nightmare")
    first = env.reset(seed=11)
    assert first[0] == env.reset(seed=11)[0] and first[1]["hidden"] == env.reset(seed=11)[1]["hidden"]
    assert first[1]["config_id"] is None and first[1]["hidden"]["mapping"] is not None


def test_generator_rejects_bad_arguments():
    with pytest.raises(ValueError, match="difficulty"):
        rules.generate_setup(np.random.default_rng(0), "extreme")
    with pytest.raises(ValueError, match="num_verifiers"):
        rules.generate_setup(np.random.default_rng(0), "easy", 6)


# ----------------------------------------------------------------------------- env: split and kwargs
def test_default_split_leaves_out_the_non_unique_setups_and_opt_in_appends_them():
    env = TuringMachineEnv()
    ids = [s.setup_id for s in env.unwrapped._split]
    assert len(ids) == 268 and not set(ids) & set(NON_UNIQUE)
    opt = TuringMachineEnv(allow_non_unique=True)
    opt_ids = [s.setup_id for s in opt._split]
    assert opt_ids[:268] == ids and set(opt_ids[268:]) == set(NON_UNIQUE)
    assert [TuringMachineEnv(difficulty=d).num_configs for d in rules.DIFFICULTIES] == [90, 88, 90]
    assert TuringMachineEnv(difficulty="medium", allow_non_unique=True).num_configs == 90


def test_env_refuses_a_non_unique_setup_unless_opted_in():
    with pytest.raises(ValueError, match="B42VD9.*allow_non_unique"):
        gym.make(ENV_ID, setup_ids=["B42VD9"])
    env = gym.make(ENV_ID, setup_ids=["B42VD9"], allow_non_unique=True)
    _, info = env.reset(options={"config_id": 0})
    assert info["hidden"]["setup_id"] == "B42VD9" and info["hidden"]["unique"] is False
    subset = rules.paper_eval_subsets()["classic_model_eval_45"]
    env = gym.make(ENV_ID, setup_ids=subset)
    assert env.unwrapped.num_configs == 45
    assert env.reset(options={"config_id": 44})[1]["hidden"]["setup_id"] == subset[44]


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"mode": "hard"}, "mode"),
        ({"difficulty": "expert"}, "difficulty"),
        ({"setups": "all"}, "setups"),
        ({"prompt_style": "cot2"}, "prompt_style"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"setup_ids": ["NOPE"]}, "setup_id"),
        ({"setups": "generated", "configs": "benchmark"}, "configs"),
        ({"setup_ids": ["A44BY2"], "difficulty": "easy"}, "setup_ids"),
    ],
)
def test_bad_kwargs_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gym.make(ENV_ID, **kwargs)


def test_nightmare_golden_hash():
    from test_contract import GOLDEN, config_hash

    env = gym.make(ENV_ID, mode="nightmare")
    assert GOLDEN[f"{ENV_ID}@mode=nightmare"] == {"configs": 268, "sha256": config_hash(env, range(268))}


# ----------------------------------------------------------------------------- env: protocol
def _step(env, text):
    obs, reward, term, trunc, info = env.step(text)
    return obs, reward, term, trunc, info


def test_classic_round_protocol_and_paper_prompts():
    env = gym.make(ENV_ID)
    obs, info = env.reset(options={"config_id": 0})
    prompts = STAGE_PROMPTS[("classic", "answer_only")]
    assert obs.startswith("You are participating in a competitive logic deduction game called Turing Machine.")
    assert (
        "Verifier <0>: This Verifier verifies the YELLOW number compared to 4\n- Possible criteria: YELLOW is less than 4"
        in obs
    )
    assert obs.endswith(prompts["proposal"]) and "<CHOICE>: BLUE=X, YELLOW=Y, PURPLE=Z" in obs
    obs, *_, info = _step(env, "<CHOICE>: BLUE=5, YELLOW=4, PURPLE=1")
    assert obs.startswith("You are now entering the **Verifier Questioning Stage** of this round.")
    assert info["feedback"]["next_stage"] == "question" and info["turn"] == 1
    obs, *_, info = _step(env, "<CHOICE>: 0")
    assert obs.startswith("You chose Verifier <0> and the result is <FAIL>.")
    assert info["feedback"]["result"] == "FAIL" and info["feedback"]["verifier_queries"] == 1
    obs, *_, info = _step(env, "<CHOICE>: 2")
    assert obs.startswith("You chose Verifier <2> and the result is <PASS>.")
    obs, *_, info = _step(env, "<CHOICE>: 3")
    assert "You have now tested the maximum number of three verifiers" in obs
    assert obs.endswith(prompts["deduce"]) and info["feedback"]["next_stage"] == "deduce"
    obs, *_, info = _step(env, "<CHOICE>: SKIP")
    assert obs == prompts["proposal"] and info["feedback"]["rounds"] == 2
    _step(env, "<CHOICE>: BLUE=5, YELLOW=5, PURPLE=1")
    obs, *_, info = _step(env, "<CHOICE>: SKIP")
    assert obs == prompts["deduce"] and info["feedback"]["verifier_queries"] == 3
    obs, reward, term, trunc, info = _step(env, "<CHOICE>: BLUE=5, YELLOW=5, PURPLE=1")
    assert obs == "The final guess is 551. The answer is 551, the guess is True."
    assert (reward, term, trunc, info["outcome"], info["score"]) == (1.0, True, False, "success", 1.0)
    assert info["feedback"]["rounds"] == 2 and info["turn"] == 8


def test_nightmare_queries_answer_with_the_mapped_card():
    env = gym.make(ENV_ID, mode="nightmare")
    obs, info = env.reset(options={"config_id": 0})  # A44BY2, mapping (3, 2, 1, 0)
    assert "the mapping between Verifiers and their displayed results is randomized" in obs
    assert info["hidden"]["mapping"] == [3, 2, 1, 0]
    _step(env, "<CHOICE>: BLUE=1, YELLOW=5, PURPLE=2")
    assert _step(env, "<CHOICE>: 0")[4]["feedback"]["result"] == "FAIL"  # card 17: zero even numbers
    obs, *_, info = _step(env, "<CHOICE>: 3")  # card 4: YELLOW > 4
    assert info["feedback"]["result"] == "PASS" and "**Hint**" in obs


def test_invalid_replies_get_the_paper_reprompts_and_change_nothing():
    env = gym.make(ENV_ID)
    env.reset(options={"config_id": 0})
    base = env.unwrapped
    before = base.game_state_digest()
    obs, *_, info = _step(env, "BLUE=1 YELLOW=2")
    assert obs.startswith(
        "Invalid action: You did not follow the required response format. Please try again with same code."
    )
    obs, *_, info = _step(env, "<CHOICE>: BLUE=6, YELLOW=2, PURPLE=3")
    assert info["valid_action"] is False and base.game_state_digest() == before
    _step(env, "<CHOICE>: 123")
    obs, *_, info = _step(env, "<CHOICE>: 9")
    assert obs.startswith("Invalid action: You selected Verifier <9>, which is not a valid verifier number.")
    assert info["turn"] == 1 and info["feedback"] == {
        "error": obs[len("Invalid action: ") :].split(" (format error")[0]
    }
    obs, *_, info = _step(env, "<CHOICE>: maybe")
    assert "Please try again with same choice." in obs


def test_format_error_limit_is_the_same_as_every_env():
    env = gym.make(ENV_ID)
    env.reset(options={"config_id": 0})
    for _ in range(2):
        assert not _step(env, "no choice")[2]
    _, reward, term, trunc, info = _step(env, "no choice")
    assert term and info["outcome"] == "format_error" and info["format_errors"] == 3


def test_cot_style_requires_reasoning():
    env = gym.make(ENV_ID, prompt_style="cot")
    obs, _ = env.reset(options={"config_id": 0})
    assert "<REASONING>: [Explain your reasoning step by step for choosing this code]" in obs
    assert _step(env, "<CHOICE>: BLUE=1, YELLOW=1, PURPLE=1")[4]["valid_action"] is False
    assert _step(env, "<REASONING>: test\n<CHOICE>: BLUE=1, YELLOW=1, PURPLE=1")[4]["valid_action"] is True


def test_round_cap_truncates_as_a_loss():
    env = gym.make(ENV_ID, max_rounds=2)
    env.reset(options={"config_id": 0})
    assert env.unwrapped.max_turns == 10
    for _ in range(2):
        _step(env, "<CHOICE>: 111")
        _step(env, "<CHOICE>: SKIP")
        obs, reward, term, trunc, info = _step(env, "<CHOICE>: SKIP")
    assert trunc and not term and info["outcome"] == "timeout" and reward == 0.0 and info["score"] == 0.0
    assert "round limit (2 rounds)" in obs and info["feedback"]["rounds"] == 2


def test_wrong_submission_is_a_failure():
    env = gym.make(ENV_ID)
    env.reset(options={"config_id": 0})
    _step(env, "<CHOICE>: 111")
    _step(env, "<CHOICE>: SKIP")
    obs, reward, term, _, info = _step(env, "I am sure.\n**<CHOICE>**: blue=1, yellow=1, purple=1")
    assert obs == "The final guess is 111. The answer is 551, the guess is False."
    assert term and reward == 0.0 and info["outcome"] == "failure" and info["feedback"]["correct"] is False


@pytest.mark.parametrize(
    "text, code",
    [
        ("BLUE=1, YELLOW=2, PURPLE=3", (1, 2, 3)),
        ("purple: 3, blue = [1], yellow=2", (1, 2, 3)),
        ("245", (2, 4, 5)),
        ("[2, 4, 5]", (2, 4, 5)),
        ("BLUE=0, YELLOW=2, PURPLE=3", None),
        ("12", None),
    ],
)
def test_parse_code(text, code):
    assert parse_code(text) == code


# ----------------------------------------------------------------------------- beliefs
def test_belief_references_resolve_by_truth_table():
    assert rules.resolve_criterion(48, "B<Y") == 0 and rules.resolve_criterion(48, "Y>B") == 0
    assert rules.resolve_criterion(48, "yellow_gt_purple") == 8 and rules.resolve_criterion(44, "Y < P") == 1
    assert rules.resolve_criterion(19, "B+Y>6") == 2 and rules.resolve_criterion(2, "BLUE is equal to 3") == 1
    assert rules.resolve_criterion(8, "#3") == 3 and rules.resolve_criterion(8, "#4") is None
    assert rules.resolve_criterion(8, "B<Y") is None


def test_beliefs_are_scored_against_the_active_criteria():
    env = gym.make(ENV_ID, mode="nightmare", prompt_style="cot", belief_prompt=True)
    obs, _ = env.reset(options={"config_id": 0})  # yellow_gt_4, zero_3s, blue_gt_purple, zero_even_numbers
    assert "<BELIEF>:" in obs and "<MAPPING>:" in obs
    text = "<REASONING>: guess\n<CHOICE>: BLUE=5, YELLOW=5, PURPLE=1\n<BELIEF>: 0=Y>4, 1=one_3|zero_3s, 2=B<P, 3=?, 7=x\n<MAPPING>: 0=3, 1=1"
    fb = _step(env, text)[4]["feedback"]
    assert {k: v["status"] for k, v in fb["beliefs"].items()} == {0: "correct", 1: "include", 2: "incorrect", 3: "none"}
    assert fb["mapping_beliefs"] == {0: {"stated": 3, "status": "correct"}, 1: {"stated": 1, "status": "incorrect"}}
    fb = _step(env, "<REASONING>: r\n<CHOICE>: 0 <BELIEF>: 0=bogus")[4]["feedback"]
    assert fb["verifier"] == 0 and fb["beliefs"][0]["status"] == "unreadable"
    _step(env, "<REASONING>: r\n<CHOICE>: SKIP")
    info = _step(env, "<REASONING>: r\n<CHOICE>: BLUE=5, YELLOW=5, PURPLE=1")[4]
    log = info["feedback"]["belief_log"]
    assert [(e["round"], e["stage"], e["verifier"], e["status"]) for e in log] == [
        (1, "proposal", 0, "correct"),
        (1, "proposal", 1, "include"),
        (1, "proposal", 2, "incorrect"),
        (1, "proposal", 3, "none"),
        (1, "question", 0, "unreadable"),
    ]


def test_oracle_beliefs_never_exclude_the_truth():
    env = gym.make(ENV_ID, mode="nightmare", prompt_style="cot")
    oracle = TuringMachineOracle(state_beliefs=True)
    for config_id in range(0, 268, 23):
        info = _play(env, oracle, config_id)
        if info["hidden"]["setup_id"] in REDUNDANT:  # the no-redundancy rule excludes their truth
            continue
        statuses = {e["status"] for e in info["feedback"]["belief_log"]}
        # "none": the oracle still held every criterion of a card possible (no conclusion)
        assert info["outcome"] == "success" and statuses <= {"correct", "include", "none"} and "correct" in statuses


# ----------------------------------------------------------------------------- agents
def _play(env, agent, config_id=None, seed=None):
    return play_to_end(env, agent, config_id=config_id, seed=seed).info


def test_read_instructions():
    env = gym.make(ENV_ID, mode="nightmare", prompt_style="cot")
    obs, info = env.reset(options={"config_id": 100})
    cards, nightmare, cot = read_instructions(obs)
    assert [c["card"] for c in info["hidden"]["criteria"]] == list(cards) and nightmare and cot
    assert read_instructions(gym.make(ENV_ID).reset(options={"config_id": 0})[0])[1:] == (False, False)


@pytest.mark.parametrize("mode", ["classic", "nightmare"])
def test_oracle_solves_a_ci_sample_of_generated_setups(mode):
    gen = gym.make(ENV_ID, mode=mode, setups="generated", prompt_style="cot")
    oracle = make_agent("oracle", ENV_ID)
    for seed in range(40):
        info = _play(gen, oracle, seed=seed)
        assert info["outcome"] == "success" and info["format_errors"] == 0


def test_robust_oracle_also_solves_the_redundant_setups():
    env = gym.make(ENV_ID, mode="nightmare", setup_ids=sorted(REDUNDANT))
    oracle = make_agent("oracle", ENV_ID, robust=True)
    assert all(_play(env, oracle, i)["outcome"] == "success" for i in range(len(REDUNDANT)))


def test_random_agent_plays_only_legal_moves():
    env = gym.make(ENV_ID, prompt_style="cot", mode="nightmare")
    agent = make_agent("random", ENV_ID)
    for config_id in range(20):
        info = _play(env, agent, config_id, seed=config_id)
        assert info["format_errors"] == 0 and info["outcome"] in ("success", "failure")
        assert info["feedback"]["rounds"] == 1


@pytest.mark.parametrize("mode", ["classic", "nightmare"])
def test_oracle_solves_every_well_formed_published_setup(mode):
    env = gym.make(ENV_ID, mode=mode)
    oracle = make_agent("oracle", ENV_ID)
    solved = 0
    for config_id in range(268):
        info = _play(env, oracle, config_id)
        if info["hidden"]["setup_id"] not in REDUNDANT:
            assert info["outcome"] == "success", info["hidden"]["setup_id"]
            solved += 1
    assert solved == 250


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["classic", "nightmare"])
def test_oracle_solves_1000_generated_setups(mode):
    env = gym.make(ENV_ID, mode=mode, setups="generated")
    oracle = make_agent("oracle", ENV_ID)
    for seed in range(1000):
        assert _play(env, oracle, seed=seed)["outcome"] == "success", seed


def test_classic_oracle_is_within_one_percent_of_the_exact_optimum():
    """Expected queries over every hypothesis of a setup (each played as the truth) against the
    exact minimum (a lower bound that even ignores the round structure)."""
    from mtp_gym.agents.oracles.turing_machine import min_expected_queries

    env = gym.make(ENV_ID)
    base = env.unwrapped
    oracle = TuringMachineOracle()
    ours = best = 0.0
    for config_id in range(180, 268, 4):  # hard setups
        setup = base._split[config_id]
        if not rules.check_setup(setup).well_formed:
            continue
        assign, answers = rules.consistent_assignments(setup.cards)
        queries = []
        for h in range(len(assign)):
            obs, info = env.reset(options={"config_id": config_id})
            base._start(
                rules.Setup(
                    "H",
                    setup.difficulty,
                    setup.cards,
                    tuple(assign[h].tolist()),
                    rules.CODES[answers[h]],
                    setup.mapping,
                )
            )
            oracle.reset()
            done = False
            while not done:
                obs, _, term, trunc, info = env.step(oracle.act(obs, public_info(info)))
                done = term or trunc
            assert info["outcome"] == "success"
            queries.append(info["feedback"]["verifier_queries"])
        ours += float(np.mean(queries))
        best += min_expected_queries(setup.cards)
    assert best <= ours <= 1.01 * best


def test_the_cli_prompt_style_switches_the_envs_own_variant():
    from mtp_gym.cli import _styled_env_kwargs

    cot = _styled_env_kwargs(ENV_ID, {"mode": "nightmare"}, "openai:m", "cot")
    assert cot == {"prompt_style": "cot", "mode": "nightmare"}
    obs, _ = gym.make(ENV_ID, **cot).reset(options={"config_id": 0})
    assert "DO NOT include any explanation" not in obs and "<REASONING>" in obs
    assert _styled_env_kwargs(ENV_ID, {}, "oracle", "cot") == {}  # scripted agents answer in the plain format
    assert _styled_env_kwargs(ENV_ID, {}, "openai:m", "plain") == {}
    assert _styled_env_kwargs("MTP/WordGuess-v0", {}, "openai:m", "cot") == {}


@pytest.mark.parametrize("difficulty", rules.DIFFICULTIES)
def test_generated_setups_are_like_the_published_ones(difficulty):
    """300 generated setups against the published 90: verifier-count mix and mean ambiguity
    (codes consistent with the card list) within 15%, nightmare mappings derangements."""
    published = [s for s in rules.published_setups() if s.difficulty == difficulty]
    rng = np.random.default_rng(0)
    generated = [rules.generate_setup(rng, difficulty) for _ in range(300)]
    for n in rules.VERIFIER_COUNTS[difficulty]:
        want = sum(len(s.cards) == n for s in published) / len(published)
        got = sum(len(s.cards) == n for s in generated) / len(generated)
        assert abs(got - want) <= 0.15 * want, (n, got, want)
    want = np.mean([rules.ambiguity(s.cards) for s in published])
    got = np.mean([rules.ambiguity(s.cards) for s in generated])
    assert abs(got - want) <= 0.15 * want, (got, want)
    assert all(all(i != m for i, m in enumerate(s.mapping)) for s in generated)


def test_every_criterion_can_be_stated_by_its_own_description_and_a_full_card_is_no_belief():
    for card_id, card in rules.cards().items():
        for c in card.criteria:
            assert rules.parse_beliefs(f"<BELIEF>: 0={c.description}", [card_id])[0][1] == (c.index,), c.description
        everything = " | ".join(c.function for c in card.criteria)
        assert rules.parse_beliefs(f"<BELIEF>: 0={everything}", [card_id])[0][1] == ()
    with_or = [c for card in rules.cards().values() for c in card.criteria if " or " in c.description.lower()]
    assert len(with_or) == 10  # the descriptions a split on " or " used to break


def test_prompts_follow_the_appendix_and_the_harness_wording_is_a_switch():
    extra = "A `<PASS>` confirms *only* that this specific rule was met by the tested code."
    paper, _ = gym.make(ENV_ID).reset(options={"config_id": 0})
    harness, _ = gym.make(ENV_ID, harness_wording=True).reset(options={"config_id": 0})
    assert extra not in paper and extra in harness
    assert paper.replace(" " + extra, "") == harness.replace(" " + extra, "").replace(
        " A `<FAIL>` indicates *only* that this specific rule was violated by the tested code.", ""
    )
    first = STAGE_PROMPTS[("nightmare", "cot")]["question_first"]
    assert "Explain your reasoning step by step based on verifier result after <REASONING> tag" in first
    assert "with <REASONING> tag, then provide your choice" in STAGE_PROMPTS[("classic", "cot")]["question_first"]
