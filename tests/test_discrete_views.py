"""Discrete views for classic RL (Circuit Decoding, Word Chaining, Turing Machine): SB3's
check_env, action masks = legal moves, text equivalence with the raw env, make_vec, the
harness adapter (agents/sb3_agent.py) and a smoke run of each training example."""

from __future__ import annotations

import runpy
import sys
import tempfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

import mtp_gym  # noqa: F401
from mtp_gym.agents.sb3_agent import SB3Policy
from mtp_gym.circuit_decoding.env import input_row, row_inputs
from mtp_gym.episode import play, public_info
from mtp_gym.eval.runner import evaluate, run_episode
from mtp_gym.turing_machine import rules
from mtp_gym.wrappers import CircuitDecodingDiscrete, TuringMachineDiscrete, WordChainDiscrete, WordGuessDiscrete
from mtp_gym.wrappers.turing_machine_discrete import SKIP_ACTION, SUBMIT_POSSIBLE_ACTION, VERIFIER_OFFSET

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

VIEWS = {
    "CircuitDecoding": (CircuitDecodingDiscrete, "MTP/CircuitDecoding-v0"),
    "WordChain": (WordChainDiscrete, "MTP/WordChain-v0"),
    "TuringMachine": (TuringMachineDiscrete, "MTP/TuringMachine-v0"),
}


def _view(name: str, **kwargs) -> gym.Env:
    cls, env_id = VIEWS[name]
    return cls(gym.make(env_id, **kwargs))


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_check_env(name: str) -> None:
    env = _view(name)
    check_env(env, warn=True, skip_render_check=True)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    registered = gym.make(f"MTP/{name}Discrete-v0")
    check_env(registered, warn=True, skip_render_check=True)
    registered.reset(seed=3)
    assert registered.get_wrapper_attr("action_masks")().shape == (registered.action_space.n,)


def _masked_rollout(env: gym.Env, seed: int, max_steps: int = 200):
    """Yield (mask, info) before every action of a uniformly random masked episode."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    for _ in range(max_steps):
        mask = env.action_masks()
        yield mask, info
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs)
        assert info["valid_action"], "a masked action was rejected by the env"
        if terminated or truncated:
            return


def test_word_chain_mask_is_legal_moves() -> None:
    env = _view("WordChain")
    for seed in range(3):
        for mask, info in _masked_rollout(env, seed):
            legal = {env.lexicon[i] for i in np.flatnonzero(mask)}
            assert legal == set(info["legal_moves"])
    # an unmasked illegal word is a (losing) move, as in the text env
    env.reset(options={"config_id": 1})
    if env.action_masks().all():  # the agent opens: every word is legal, so play one first
        env.step(0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == 0.0 and info["feedback"]["violation"] is not None


def test_circuit_decoding_mask_is_legal_moves() -> None:
    env = _view("CircuitDecoding")
    for config_id in (0, 200):
        env.reset(options={"config_id": config_id})
        for step in range(18):
            mask = env.action_masks()
            assert mask.all(), "every query and submit are legal while queries are left"
            env.step(step)
        mask = env.action_masks()
        assert not mask[:-1].any() and mask[-1], "after the last query only submit is legal"
        _, _, terminated, _, info = env.step(0)  # a query now is the env's format error
        assert not terminated and not info["valid_action"] and info["turn"] == 18
        _, reward, terminated, _, info = env.step(env.submit_action)
        assert terminated and info["valid_action"] and reward == info["score"]


def test_circuit_decoding_submit_is_exact_after_full_information() -> None:
    """Asking every row of every circuit leaves one joint table: submit must be right."""
    env = _view("CircuitDecoding", num_queries=24)
    for config_id in (5, 160):
        env.reset(options={"config_id": config_id})
        for action in range(24):
            env.step(action)
        _, reward, terminated, _, info = env.step(env.submit_action)
        assert terminated and reward == 1.0 and info["outcome"] == "success"


def test_circuit_decoding_slot_layout() -> None:
    env = _view("CircuitDecoding")
    env.reset(options={"config_id": 0})  # 3 circuits of 3 inputs
    for action in range(24):
        c, row = divmod(action, 8)
        assert env.action_text(action) == f"<query>{'ABC'[c]}({', '.join(map(str, row_inputs(row, 3)))})</query>"
        assert input_row(row_inputs(row, 3)) == row
    env.reset(options={"config_id": 150})  # 6 circuits of 2 inputs
    assert env.action_text(23) == "<query>F(1, 1)</query>"


def test_turing_machine_mask_is_legal_moves() -> None:
    env = _view("TuringMachine")
    for seed in range(4):
        for mask, _info in _masked_rollout(env, seed):
            stage = env._stage
            codes, verifiers, skip = mask[:VERIFIER_OFFSET], mask[VERIFIER_OFFSET:SKIP_ACTION], mask[SKIP_ACTION]
            assert codes.all() == (stage in ("proposal", "deduce")) and codes.any() == codes.all()
            assert skip == (stage in ("question", "deduce"))
            assert mask[SUBMIT_POSSIBLE_ACTION] == (stage == "deduce")
            assert verifiers.sum() == (env._num_verifiers if stage == "question" else 0)
    # every unmasked action is the env's re-prompt: no turn spent
    env.reset(seed=0)
    for action in np.flatnonzero(~env.action_masks()):
        _, _, terminated, _, info = env.step(int(action))
        assert not info["valid_action"] and info["turn"] == 0
        if terminated:
            assert info["outcome"] == "format_error"
            break


def test_turing_machine_candidates_shrink_to_the_answer() -> None:
    """Following the oracle's moves, the view's candidate codes always hold the answer."""
    from mtp_gym.agents import make_agent

    env = _view("TuringMachine")
    raw = env.env
    oracle = make_agent("oracle", "MTP/TuringMachine-v0")
    for config_id in (0, 100, 200):
        obs_v, info = env.reset(options={"config_id": config_id})
        oracle.reset(seed=config_id)
        text = raw.unwrapped.transcript[0]["content"]
        answer = rules.code_index(rules.parse_code_str(info["hidden"]["answer"]))
        done = False
        while not done:
            candidates = obs_v[5 + 125 : 5 + 250]
            assert candidates[answer] == 1.0
            choice = oracle.act(text, public_info(info))
            action = _tm_action(env, choice)
            assert env.action_text(action) == choice
            if env._stage == "deduce" and action < VERIFIER_OFFSET:  # the oracle submits when certain
                assert env.action_text(SUBMIT_POSSIBLE_ACTION) == choice
            obs_v, reward, terminated, truncated, info = env.step(action)
            text = raw.unwrapped.transcript[-1]["content"]
            done = terminated or truncated
        assert reward == 1.0


def _tm_action(env: TuringMachineDiscrete, text: str) -> int:
    choice = text.split("<CHOICE>: ", 1)[1].strip()
    if choice == "SKIP":
        return SKIP_ACTION
    if choice.isdigit():
        return VERIFIER_OFFSET + int(choice)
    from mtp_gym.turing_machine.env import parse_code

    return rules.code_index(parse_code(choice))


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_text_equivalence(name: str) -> None:
    """Playing an action through the view = playing its text in the raw env (same seed)."""
    cls, env_id = VIEWS[name]
    view, raw = _view(name), gym.make(env_id)
    rng = np.random.default_rng(7)
    for seed in (1, 2):
        obs_v, info_v = view.reset(seed=seed)
        obs_r, info_r = raw.reset(seed=seed)
        assert info_v == info_r
        for _ in range(60):
            # mostly legal actions, sometimes any action (illegal ones included)
            mask = view.action_masks()
            pool = np.flatnonzero(mask) if rng.random() < 0.8 else np.arange(view.action_space.n)
            action = int(rng.choice(pool))
            text = view.action_text(action)
            _, rv, tv, trv, info_v = view.step(action)
            obs_r, rr, tr, trr, info_r = raw.step(text)
            assert (rv, tv, trv) == (rr, tr, trr) and info_v == info_r
            assert view.unwrapped.transcript[-2]["content"] == text
            if tv or trv:
                break


@pytest.mark.parametrize("style", ["registered", "wrappers"])
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_make_vec(name: str, mode: str, style: str) -> None:
    """Both ``gym.make_vec("MTP/<Name>Discrete-v0")`` and the text id with ``wrappers=[View]``."""
    cls, env_id = VIEWS[name]
    if style == "registered":
        envs = gym.make_vec(f"MTP/{name}Discrete-v0", num_envs=2, vectorization_mode=mode)
    else:
        envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, wrappers=[cls])
    try:
        assert envs.single_observation_space == cls(gym.make(env_id)).observation_space
        obs, _ = envs.reset(seed=11)
        envs.action_space.seed(11)
        assert obs.shape == (2,) + envs.single_observation_space.shape and obs.dtype == np.float32
        for _ in range(25):  # long enough to end and autoreset some episodes
            obs, reward, terminated, truncated, _ = envs.step(envs.action_space.sample())
            assert obs.shape[0] == 2 and np.all((obs >= 0) & (obs <= 1))
        masks = envs.call("action_masks")
        assert len(masks) == 2 and all(m.shape == (envs.single_action_space.n,) for m in masks)
    finally:
        envs.close(terminate=True)  # a plain close() after a worker's error waits forever


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_sb3_policy_random_legal_through_the_harness(name: str) -> None:
    cls, env_id = VIEWS[name]
    results = evaluate(env_id, SB3Policy(cls, None, env_id), [0, 1, 2])
    assert [r.format_errors for r in results] == [0, 0, 0]  # random *legal* view actions
    assert all(r.outcome in ("success", "failure", "timeout") for r in results)


def test_sb3_policy_replays_the_view() -> None:
    """The adapter on the harness picks exactly what the model picks on the view itself."""

    class FirstLegal:  # a stand-in "model": the first legal action, read from the obs
        def predict(self, obs, deterministic=True):
            return np.array(int(np.flatnonzero(obs[:500])[0])), None

    policy = SB3Policy(WordChainDiscrete, FirstLegal(), "MTP/WordChain-v0")
    env = gym.make("MTP/WordChain-v0")
    result = run_episode(env, policy, config_id=3)
    view = _view("WordChain")
    obs, _ = view.reset(seed=3, options={"config_id": 3})
    texts, done = [], False
    while not done:
        action = int(FirstLegal().predict(obs)[0])
        texts.append(view.action_text(action))
        obs, _, terminated, truncated, _ = view.step(action)
        done = terminated or truncated
    assert [m["content"] for m in result.transcript if m["role"] == "assistant"] == texts
    assert result.score == 1.0


def test_sb3_policy_works_with_word_guess_view() -> None:
    """A view without ``action_text`` (the lead's Word Guess) goes through the capture path."""
    policy = SB3Policy(WordGuessDiscrete, None, "MTP/WordGuess-v0")
    results = evaluate("MTP/WordGuess-v0", policy, [0, 1])
    assert all(r.format_errors == 0 and r.outcome in ("success", "failure", "timeout") for r in results)


@pytest.mark.parametrize("script", ["train_circuit_decoding.py", "train_word_chain.py", "train_turing_machine.py"])
def test_example_smoke(script: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(
        sys, "argv", [script, "--timesteps", "256", "--configs", "2", "--n-envs", "2", "--out", str(tmp_path)]
    )
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    out = capsys.readouterr().out
    for row in ("trained", "trained-sampled", "view-random", "random", "oracle"):
        assert f"\n{row} " in out
    assert list(tmp_path.glob("*.png")) and list(tmp_path.glob("*.zip"))
    assert not list(temp.glob("SB3-*")), "training left SB3's empty log folder in the temp dir"


def test_sb3_policy_reads_the_episode_from_observations_only() -> None:
    """A generated Word Guess vocabulary reset without a seed: the policy still plays the real
    env's words (it never replays the episode on a copy of the env)."""
    env = gym.make("MTP/WordGuess-v0", configs="generated")
    policy = SB3Policy(WordGuessDiscrete, None, "MTP/WordGuess-v0", {"configs": "generated"}, seed=1)
    for step in play(env, policy):
        if step.action is not None:
            assert step.action.removeprefix("<attempt>").removesuffix("</attempt>") in env.unwrapped.vocabulary
    assert step.info["format_errors"] == 0
