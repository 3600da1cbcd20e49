"""Word Chaining: rules, the single-agent view, both PettingZoo AEC variants, agents, data.

The full oracle sweep over the 400 benchmark games is ``slow``:
``python -m pytest tests/test_word_chain.py -m slow``.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import mtp_gym
from mtp_gym import word_chain_v0
from mtp_gym.agents import make_agent
from mtp_gym.agents.oracles.word_chain import WordChainSolver
from mtp_gym.core import InvalidAction
from mtp_gym.data import scowl_words
from mtp_gym.envs.word_chain import (
    NOT_IN_LIST,
    REPEAT,
    WRONG_FIRST_LETTER,
    WordChainEnv,
    benchmark_games,
    instructions,
    legal_moves,
    parse_word,
    violation,
)
from mtp_gym.episode import play_to_end
from mtp_gym.eval import evaluate, summarize
from mtp_gym.inference.word_chain import lexicon_from_instructions

ROOT = Path(__file__).resolve().parents[1]
ENV_ID = "MTP/WordChain-v0"
ROUND = ("agenda", "alpha", "aqua", "area", "arena", "aroma", "aura", "alga")  # a...a: never stuck


def env_with(lexicon, first=0, opener=None, **kwargs) -> WordChainEnv:
    """A single-agent env on a hand-made game (after a normal reset)."""
    env = WordChainEnv(**kwargs)
    env.reset(seed=0, options={"config_id": 0})
    env._start({"lexicon": tuple(sorted(lexicon)), "first": first, "opener": opener})
    return env


# ---------------------------------------------------------------------- pure rules
@pytest.mark.parametrize(
    "text, word",
    [
        ("Okay, I'll start with 'encirclement'", "encirclement"),  # the paper's example
        ("Ok, my word is: 'topaz'.", "topaz"),
        ("'zebra', I say 'zebra'!", "zebra"),  # the same word twice
        ("I'll say 'zebra' since it starts with 'z'", "zebra"),  # a quoted letter is not a move
        ("My word: 'Zebra.'", "zebra"),
        ('I pick "zebra"', "zebra"),
        ("I pick ‘zebra’", "zebra"),
        ("I'll go with 'ice-cream'", "ice-cream"),  # a move, not on the list
        ("You said 'topaz', so I'll say 'zebra'", "zebra"),  # a word attributed to the opponent is not the move
        ("After 'topaz' comes 'zebra'.", "zebra"),
        ("I don't know, zebra maybe", None),
        ("'z'", None),
        ("", None),
    ],
)
def test_parse_word(text, word):
    assert parse_word(text) == word


@pytest.mark.parametrize(
    "text",
    ["I'll say 'topaz', or 'zebra'", "I'll go with 'sacred', since 'access' ends in s."],
)
def test_two_different_quoted_words_are_not_guessed_at(text):
    with pytest.raises(InvalidAction, match="2 different quoted words"):
        parse_word(text)


def test_violation_rules_and_their_order():
    lexicon = frozenset({"ant", "tiger", "rat", "eel"})
    assert violation("tiger", lexicon, {"ant"}, "ant") is None
    assert violation("ant", lexicon, set(), None) is None  # any word opens
    assert violation("tigers", lexicon, {"ant"}, "ant") == NOT_IN_LIST
    assert violation("eel", lexicon, {"ant"}, "ant") == WRONG_FIRST_LETTER
    assert violation("tiger", lexicon, {"ant", "tiger"}, "ant") == REPEAT
    assert violation("ant", lexicon, {"ant", "rat"}, "rat") == WRONG_FIRST_LETTER  # both: letter first
    assert legal_moves(("ant", "eel", "rat", "tiger"), {"ant"}, "ant") == ("tiger",)
    assert legal_moves(("ant", "eel", "rat", "tiger"), {"ant"}, None) == ("eel", "rat", "tiger")


# ---------------------------------------------------------------------- single-agent view
def test_paper_prompt_and_openings():
    env = gym.make(ENV_ID)
    games = benchmark_games()
    agent_first = next(i for i, g in enumerate(games) if g["first"] == 0)
    opp_first = next(i for i, g in enumerate(games) if g["first"] == 1)
    obs, info = env.reset(options={"config_id": agent_first})
    assert obs == instructions(games[agent_first]["lexicon"])
    assert obs.startswith("We're going to play a game. One of us will say a word")
    assert "(So for example if I said 'ant', you might say 'television'.)" in obs
    assert "Please always wrap your chosen word in single-quote marks." in obs
    assert obs.endswith("Allowed words: " + ", ".join(games[agent_first]["lexicon"]))
    assert info["chain"] == () and len(info["legal_moves"]) == 500 and info["hidden"]["agent_starts"]
    obs, info = env.reset(options={"config_id": opp_first})
    opener = games[opp_first]["opener"]
    assert obs.endswith(f"\n\nI'll start with '{opener}'.") and info["chain"] == (opener,)
    assert info["legal_moves"] and all(w[0] == opener[-1] for w in info["legal_moves"])
    assert lexicon_from_instructions(obs) == games[opp_first]["lexicon"]
    word = info["legal_moves"][0]
    reply, reward, term, trunc, info = env.step(f"Okay, my word is '{word}'")
    assert reply.startswith("Ok, my word is: '") and reward == 0.0 and not (term or trunc)
    assert info["feedback"]["word"] == word and reply == f"Ok, my word is: '{info['feedback']['opponent_word']}'."
    assert info["chain"] == (opener, word, info["feedback"]["opponent_word"]) and info["turn"] == 1


@pytest.mark.parametrize(
    "move, kind, text",
    [
        ("'areas'", NOT_IN_LIST, "'areas' is not on the list. You lose."),
        ("'tiger'", WRONG_FIRST_LETTER, "'tiger' does not start with 'a', the last letter of 'aqua'. You lose."),
    ],
)
def test_each_violation_is_an_immediate_loss(move, kind, text):
    env = env_with(ROUND + ("tiger",), first=1, opener="aqua")
    obs, reward, term, trunc, info = env.step(f"Hmm. {move}")
    assert obs == text and term and not trunc and reward == 0.0
    assert info["outcome"] == "failure" and info["score"] == 0.0 and info["feedback"]["violation"] == kind
    assert info["turn"] == 1 and info["legal_moves"] == () and info["chain"] == ("aqua",)


def test_the_opponents_word_is_never_read_as_the_move():
    env = env_with(ROUND + ("tiger",), first=1, opener="aqua")
    for reply in ("Hmm. 'aqua'", "You said 'aqua', so mine starts with a: **alpha**."):
        obs, reward, term, trunc, info = env.step(reply)
        assert not info["valid_action"] and not (term or trunc) and "'aqua' is my word" in obs
    _, _, _, _, info = env.step("'aqua' ends in a, so 'alpha'")
    assert info["valid_action"] and info["feedback"]["word"] == "alpha"


def test_repeating_your_own_word_loses_too():
    env = env_with(ROUND)
    _, _, _, _, info = env.step("'alpha'")
    obs, _, term, _, info = env.step("'alpha'")
    assert term and info["feedback"]["violation"] == REPEAT and info["score"] == 0.0


def test_malformed_reply_is_a_format_error_not_a_loss():
    env = env_with(ROUND, max_format_errors=2)
    before = env.game_state_digest()
    obs, reward, term, _, info = env.step("I choose alpha")
    assert obs.startswith("Invalid action: no word in single quotes found.") and not term and reward == 0.0
    assert info["turn"] == 0 and info["format_errors"] == 1 and not info["valid_action"]
    assert env.game_state_digest() == before
    _, _, term, _, info = env.step("'alpha'")  # a legal move clears the streak
    assert not term and info["turn"] == 1 and info["valid_action"]
    env.step("?")
    _, _, term, _, info = env.step("?")
    assert term and info["outcome"] == "format_error" and info["score"] == 0.0


def test_agent_with_no_legal_word_ends_without_a_loss():
    env = env_with(("cat", "tux"))
    obs, reward, term, trunc, info = env.step("'cat'")  # the opponent must say 'tux'; nothing starts with x
    assert obs.startswith("Ok, my word is: 'tux'.\nThere is no unused word on the list that starts with 'x'")
    assert term and not trunc and reward == 1.0 and info["outcome"] == "success" and info["feedback"]["dead_end"] == "x"


def test_opponent_with_no_legal_word_ends_without_a_loss():
    env = env_with(("cat", "dog"))
    obs, reward, term, _, info = env.step("'dog'")
    assert "so I have no move" in obs and term and reward == 1.0 and info["outcome"] == "success"
    assert info["feedback"]["opponent_word"] is None and info["chain"] == ("dog",)


@pytest.mark.parametrize("first", [0, 1])
def test_turn_cap_ends_without_a_loss(first):
    env = env_with(ROUND, first=first, opener="agenda" if first else None, max_turns=3)
    for i in range(3):
        legal = env._game.legal_moves()
        obs, reward, term, trunc, info = env.step(f"'{legal[0]}'")
        assert (term, trunc) == (False, i == 2)
    assert info["outcome"] == "success" and reward == info["score"] == 1.0
    assert len(info["chain"]) == 6 and obs.endswith("The turn limit has been reached. The game is over without a loss.")


def test_random_play_on_the_benchmark_reaches_the_cap():
    env = gym.make(ENV_ID)
    agent = make_agent("random_legal", ENV_ID)
    capped = 0
    for config_id in range(0, 400, 20):
        last = play_to_end(env, agent, config_id=config_id, seed=config_id)
        info, trunc = last.info, last.truncated
        assert info["outcome"] == "success" and info["turn"] <= 20
        capped += trunc
        assert len(info["chain"]) == 40 if trunc else len(info["chain"]) < 40
    assert capped > 0


def test_hidden_state_names_the_opponent_and_its_plan():
    env = gym.make(ENV_ID)
    _, info = env.reset(options={"config_id": 1})
    assert info["hidden"] == {"opponent": "random", "opponent_plan": None, "agent_starts": False}
    env = gym.make(ENV_ID, opponent=make_agent("oracle", ENV_ID))
    obs, info = env.reset(seed=3, options={"config_id": 3})
    obs, _, _, _, info = env.step(f"'{info['legal_moves'][-1]}'")
    assert info["hidden"]["opponent"] == "WordChainOracle" and info["hidden"]["opponent_plan"] == {"value": 0}


class _ScriptedOpponent:
    def __init__(self, replies):
        self.replies = list(replies)
        self.seen: list[tuple[str, dict]] = []

    def reset(self, seed=None):
        pass

    def act(self, observation, info):
        self.seen.append((observation, info))
        return self.replies.pop(0)


def test_pluggable_opponent_sees_a_players_view_and_can_lose():
    opponent = _ScriptedOpponent(["'alpha'", "'alpha'"])
    env = env_with(ROUND, opponent=opponent)
    obs, _, term, _, info = env.step("'aqua'")
    assert obs == "Ok, my word is: 'alpha'." and not term
    first_obs, first_info = opponent.seen[0]
    assert first_obs.startswith("We're going to play a game.") and first_obs.endswith("I'll start with 'aqua'.")
    assert first_info["chain"] == ("aqua",) and "hidden" not in first_info and "alpha" in first_info["legal_moves"]
    obs, reward, term, _, info = env.step("'area'")
    assert obs == "My word is: 'alpha'. But 'alpha' has already been used, so I lose."
    assert term and reward == 1.0 and info["outcome"] == "success" and info["feedback"]["opponent_violation"] == REPEAT


def test_opponent_that_never_answers_forfeits():
    env = env_with(ROUND, opponent=_ScriptedOpponent(["pass"] * 3))
    obs, reward, term, _, info = env.step("'aqua'")
    assert obs == "I cannot find a word. I lose." and term and reward == 1.0
    assert info["feedback"]["opponent_violation"] == "format_error"


@pytest.mark.parametrize(
    "kwargs, name",
    [({"opponent": "smart"}, "opponent"), ({"opponent": 3}, "opponent"), ({"lexicon_size": 1}, "lexicon_size")],
)
def test_bad_kwargs_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gym.make(ENV_ID, **kwargs)


def test_generated_games():
    env = gym.make(ENV_ID, lexicon_size=60)
    obs, info = env.reset(seed=4)
    lexicon = lexicon_from_instructions(obs)
    assert info["config_id"] is None and len(lexicon) == 60 and set(lexicon) <= set(scowl_words())
    assert env.reset(seed=4)[0] == obs and env.reset(seed=5)[0] != obs
    with pytest.raises(ValueError, match="config_id"):
        env.reset(options={"config_id": 0})


def test_benchmark_split_layout():
    games = benchmark_games()
    pool = set(scowl_words())
    assert len(games) == 400 and {g["first"] for g in games} == {0, 1}
    for g in games:
        lexicon = g["lexicon"]
        assert len(set(lexicon)) == 500 and list(lexicon) == sorted(lexicon) and set(lexicon) <= pool
        if g["first"] == 1:
            assert g["opener"] in lexicon and legal_moves(lexicon, {g["opener"]}, g["opener"])
        else:
            assert g["opener"] is None
    assert len({g["lexicon"] for g in games}) == 400


def test_shipped_games_rebuild_identically(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "assets/scripts/build_word_chain.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    rel = "word_chain/games.json.gz"
    rebuilt = json.loads(gzip.decompress((tmp_path / rel).read_bytes()))
    assert rebuilt == json.loads(gzip.decompress((ROOT / "assets" / rel).read_bytes()))


# ---------------------------------------------------------------------- PettingZoo AEC
@pytest.mark.parametrize("action_type", ["text", "discrete"])
def test_pettingzoo_api_and_seed_tests(action_type):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice to use Box spaces
        api_test(word_chain_v0.env(action_type=action_type), num_cycles=200)
        seed_test(lambda: word_chain_v0.env(action_type=action_type), num_cycles=100)
    assert mtp_gym.word_chain_v0 is word_chain_v0


def test_aec_text_game_violation_rewards():
    env = word_chain_v0.env()
    env.reset(seed=0, options={"config_id": 1})
    first = env.agent_selection
    assert first == "player_1"  # game 1: the opponent seat moves first, as in the single-agent view
    obs, _, _, _, info = env.last()
    assert obs["text"] == instructions(benchmark_games()[1]["lexicon"]) and len(info["legal_moves"]) == 500
    env.step("I'll start with 'exclaim'")
    second = env.agent_selection
    obs, _, _, _, info = env.last()
    assert second == "player_0" and obs["text"].endswith("I'll start with 'exclaim'.")
    assert info["chain"] == ("exclaim",) and all(w[0] == "m" for w in info["legal_moves"])
    env.step("no idea")  # format error: same agent again, nothing changes
    obs, _, _, _, info = env.last()
    assert env.agent_selection == second and obs["text"].startswith("Invalid action") and info["format_errors"] == 1
    env.step("'exclaim'")  # the opponent's word is not a move: a format error
    assert env.agent_selection == second and env.infos[second]["format_errors"] == 2
    wrong = next(w for w in benchmark_games()[1]["lexicon"] if w[0] != "m" and w != "exclaim")
    env.step(f"'exclaim' ends in m, so '{wrong}'")  # the opponent's word is skipped; a wrong letter
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    _, reward, term, _, info = env.last()
    assert (
        term and reward == -1.0 and info["outcome"] == "failure" and info["feedback"]["violation"] == WRONG_FIRST_LETTER
    )
    assert env.infos["player_1"]["score"] == 1.0 and env.infos["player_0"]["score"] == 0.0


def test_aec_masked_variant_observation_and_illegal_index():
    env = word_chain_v0.env(action_type="discrete")
    env.reset(seed=0, options={"config_id": 0})
    lexicon = benchmark_games()[0]["lexicon"]
    obs, _, _, _, info = env.last()
    vec, mask = obs["observation"], obs["action_mask"]
    assert vec.shape == (27 + 53 * 500,) and vec[26] == 1 and mask.sum() == 500
    word_rows = vec[27:].reshape(500, 53)
    assert all(
        word_rows[i, ord(w[0]) - 97] == 1 and word_rows[i, 26 + ord(w[-1]) - 97] == 1 for i, w in enumerate(lexicon)
    )
    env.step(0)
    obs, _, _, _, info = env.last()
    mask = obs["action_mask"]
    assert obs["observation"][ord(lexicon[0][-1]) - 97] == 1 and obs["observation"][27 + 52] == 1
    assert [lexicon[i] for i in np.flatnonzero(mask)] == list(info["legal_moves"])
    illegal = int(np.flatnonzero(mask == 0)[0])
    mover = env.agent_selection
    env.step(illegal)
    assert env.rewards[mover] == -1.0 and all(env.terminations.values())
    with pytest.raises(ValueError, match="lexicon index"):
        bad = word_chain_v0.raw_env(action_type="discrete")
        bad.reset(seed=0)
        bad.step(500)


def test_aec_dead_end_and_turn_cap():
    env = word_chain_v0.raw_env(max_turns=2)
    env.reset(seed=0, options={"config_id": 0})
    for _ in range(4):
        env.step(f"'{env.infos[env.agent_selection]['legal_moves'][0]}'")
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert len(env.infos["player_0"]["chain"]) == 4 and env.infos["player_0"]["outcome"] == "success"
    env.reset(seed=0, options={"config_id": 0})
    stuck = next(w for w in benchmark_games()[0]["lexicon"] if not legal_moves(benchmark_games()[0]["lexicon"], {w}, w))
    mover = env.agent_selection
    other = "player_1" if mover == "player_0" else "player_0"
    env.step(f"'{stuck}'")
    assert all(env.terminations.values()) and env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.observe(other)["text"].endswith("so you have no move. The game is over without a loss.")
    assert env.observe(mover)["text"].endswith("so I have no move. The game is over without a loss.")


def test_aec_forfeit_after_format_errors():
    env = word_chain_v0.raw_env(max_format_errors=2)
    env.reset(seed=0, options={"config_id": 0})
    mover = env.agent_selection
    env.step("?")
    env.step("?")
    assert env.rewards[mover] == -1.0 and env.infos[mover]["outcome"] == "format_error"


def test_aec_render_and_config_errors(capsys):
    env = word_chain_v0.env(render_mode="ansi")
    env.reset(seed=0, options={"config_id": 2})
    mover = env.agent_selection
    env.step("'zzz'")
    other = "player_1" if mover == "player_0" else "player_0"
    assert env.render() == (
        f"[{mover}] 'zzz'\n[env -> {mover}] 'zzz' is not on the list. You lose.\n"
        f"[env -> {other}] My word is: 'zzz'. But 'zzz' is not on the list, so I lose."
    )
    env = word_chain_v0.env(render_mode="human")
    env.reset(seed=0, options={"config_id": 2})
    env.step("hello")
    assert "Invalid action: no word in single quotes found." in capsys.readouterr().out
    with pytest.raises(ValueError, match="config_id"):
        env.reset(options={"config_id": 400})
    with pytest.raises(ValueError, match="config_id"):
        word_chain_v0.env(lexicon_size=50).reset(options={"config_id": 0})
    generated = word_chain_v0.env(configs="generated")
    generated.reset(seed=1)
    assert generated.unwrapped._config_id is None


@pytest.mark.parametrize(
    "kwargs, name",
    [({"action_type": "box"}, "action_type"), ({"max_turns": 0}, "max_turns"), ({"configs": "all"}, "configs")],
)
def test_aec_bad_kwargs(kwargs, name):
    with pytest.raises(ValueError, match=name):
        word_chain_v0.env(**kwargs)


# ---------------------------------------------------------------------- agents
def _brute_force(lexicon, used, previous, plies, stuck):
    if plies == 0:
        return 0
    moves = legal_moves(lexicon, used, previous)
    if not moves:
        return stuck
    return max(-_brute_force(lexicon, used | {w}, w, plies - 1, stuck) for w in moves)


@pytest.mark.parametrize("dead_end", ["draw", "loss"])
@pytest.mark.parametrize("seed", range(6))
def test_solver_matches_exhaustive_search(dead_end, seed):
    rng = np.random.default_rng(seed)
    words = sorted(
        {rng.choice(list("abc")) + rng.choice(list("mnopqrstuvwxyz")) + rng.choice(list("abc")) for _ in range(11)}
    )
    solver = WordChainSolver(tuple(words), dead_end)
    stuck = -1 if dead_end == "loss" else 0
    seen = set()
    for plies in (1, 4, 7, 9):
        for used in [()] + [(w,) for w in words[:3]]:
            previous = used[-1] if used else None
            value = solver.value(used, previous, plies)
            assert value == _brute_force(tuple(words), frozenset(used), previous, plies, stuck)
            seen.add(value)
    assert len(seen) >= 2 if dead_end == "loss" else seen == {0}  # "loss" positions are not all alike
    value, move = solver.best_move((), None, 9)
    assert move is not None and -_brute_force(tuple(words), frozenset({move}), move, 8, stuck) == value


def _oracle_never_loses(config_ids):
    results = evaluate(ENV_ID, "oracle", config_ids)
    assert all(r.outcome == "success" and r.score == 1.0 and r.format_errors == 0 for r in results)
    return results


def test_oracle_never_loses_on_a_sample():
    _oracle_never_loses(range(0, 400, 8))


@pytest.mark.slow
def test_oracle_never_loses_on_the_full_split():
    _oracle_never_loses(range(400))


def test_oracle_plays_both_aec_seats_without_a_loss():
    env = word_chain_v0.env()
    for config_id in (0, 1, 2):
        env.reset(seed=config_id, options={"config_id": config_id})
        players = {a: make_agent("oracle", ENV_ID) for a in env.agents}
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            env.step(None if term or trunc else players[agent].act(obs["text"], info))
            if not term and not trunc:
                assert env.infos[agent]["valid_action"]
        assert {env.unwrapped._outcome[a] for a in ("player_0", "player_1")} == {"success"}


def test_random_agents():
    legal = summarize(evaluate(ENV_ID, "random_legal", range(0, 400, 16)))
    assert legal["mean_score"] == 1.0 and legal["format_errors"] == 0  # legal play never loses
    floor = summarize(evaluate(ENV_ID, "random", range(0, 400, 4)))  # the registered floor: any word of the list
    assert floor["mean_score"] < 0.05 and floor["format_errors"] == 0
