"""The common env contract (SPEC.md), checked on every registered id."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ENV_IDS, agent_kinds, play_random
from mtp_gym.agents import make_agent
from mtp_gym.core import OUTCOMES
from mtp_gym.eval.runner import public_info

INFO_KEYS = {"turn", "max_turns", "feedback", "hidden", "valid_action", "format_errors", "outcome", "score", "config_id"}
GOLDEN = json.loads((Path(__file__).parent / "golden_hashes.json").read_text())
TAGS = ("attempt", "question", "query", "guess", "final_answer", "answer", "CHOICE")


def config_hash(env: gym.Env, config_ids) -> str:
    digest = hashlib.sha256()
    for i in config_ids:
        obs, info = env.reset(options={"config_id": i})
        digest.update(obs.encode())
        digest.update(json.dumps(info["hidden"], sort_keys=True, default=str).encode())
    return digest.hexdigest()


def test_check_env(env):
    check_env(env.unwrapped, skip_render_check=False)


def test_reset_and_step_types(env):
    obs, info = env.reset(seed=1)
    assert isinstance(obs, str) and obs in env.observation_space
    assert INFO_KEYS <= set(info)
    assert info["turn"] == 0 and info["outcome"] is None and info["score"] == 0.0
    obs, reward, terminated, truncated, info = env.step("nonsense")
    assert isinstance(obs, str) and obs in env.observation_space
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert INFO_KEYS <= set(info) and info["valid_action"] is False


def test_config_id_and_seed_are_deterministic(env_id):
    a, b = gym.make(env_id), gym.make(env_id)
    assert a.reset(options={"config_id": 3}) [0] == b.reset(options={"config_id": 3})[0]
    obs_a, info_a = a.reset(seed=123)
    obs_b, info_b = b.reset(seed=123)
    assert obs_a == obs_b and info_a["config_id"] == info_b["config_id"]
    if a.unwrapped.configs == "benchmark":
        assert info_a["config_id"] is not None


def test_golden_hash_of_benchmark_split(env_id):
    env = gym.make(env_id)
    n = env.unwrapped.num_configs
    assert n > 0, f"{env_id} has no benchmark split"
    got = config_hash(env, range(n))
    assert env_id in GOLDEN, f"add {env_id!r}: {{'configs': {n}, 'sha256': {got!r}}} to tests/golden_hashes.json"
    assert GOLDEN[env_id] == {"configs": n, "sha256": got}


def test_bad_reset_options_name_the_argument(env):
    n = env.unwrapped.num_configs
    with pytest.raises(ValueError, match="config_id"):
        env.reset(options={"config_id": n})
    with pytest.raises(ValueError, match="config_id"):
        env.reset(options={"config_id": "zero"})
    with pytest.raises(ValueError, match="allowed"):
        env.reset(options={"bogus": 1})


def test_bad_kwargs_name_the_argument(env_id):
    with pytest.raises(ValueError, match="render_mode"):
        gym.make(env_id, render_mode="rgb_array")
    with pytest.raises(ValueError, match="max_turns"):
        gym.make(env_id, max_turns=0)
    with pytest.raises(ValueError, match="configs"):
        gym.make(env_id, configs="everything")


def _hidden_strings(hidden) -> set[str]:
    out: set[str] = set()
    items = hidden.values() if isinstance(hidden, dict) else hidden
    for v in items:
        if isinstance(v, str) and len(v) >= 3:
            out.add(v)
        elif isinstance(v, (dict, list, tuple)):
            out |= _hidden_strings(v)
    return out


@pytest.mark.parametrize("config_id", [0, 7])
def test_hidden_state_absent_before_the_end(env_id, config_id):
    env = gym.make(env_id)
    steps = list(play_random(env, env_id, config_id))
    instructions, first_info = steps[0]
    secrets = {s for s in _hidden_strings(first_info["hidden"]) if s not in instructions}
    for obs, info in steps:
        if info["outcome"] is None:
            leaked = [s for s in secrets if s in obs]
            assert not leaked, f"hidden values {leaked} appear in an observation before the end"
            assert json.dumps(info["hidden"], default=str) not in obs


def test_episode_reaches_an_outcome_and_score(env_id):
    env = gym.make(env_id)
    *_, (obs, info) = play_random(env, env_id, 0)
    assert info["outcome"] in OUTCOMES
    assert isinstance(info["score"], float) and 0.0 <= info["score"] <= 1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step("anything")


def test_format_error_limit_ends_the_episode(env_id):
    env = gym.make(env_id, max_format_errors=2)
    env.reset(options={"config_id": 0})
    _, _, term, _, info = env.step("???")
    assert not term and info["format_errors"] == 1
    _, reward, term, trunc, info = env.step("???")
    assert term and not trunc and info["outcome"] == "format_error" and reward == 0.0
    with pytest.raises(RuntimeError, match="ended"):
        env.step("???")


def test_render_modes(env_id, capsys):
    env = gym.make(env_id, render_mode="ansi")
    obs, _ = env.reset(options={"config_id": 0})
    env.step("???")
    text = env.render()
    assert obs in text and "???" in text
    env = gym.make(env_id, render_mode="human")
    env.reset(options={"config_id": 0})
    env.step("???")
    printed = capsys.readouterr().out
    assert obs.splitlines()[0] in printed and "Invalid action" in printed


def test_non_text_actions_are_rejected_not_raised(env):
    env.reset(options={"config_id": 0})
    for bad in (None, 42, b"bytes"):
        obs, _, _, _, info = env.step(bad)
        assert info["valid_action"] is False and obs.startswith("Invalid action")


def test_scripted_agents_exist(env_id):
    assert {"oracle", "random"} <= set(agent_kinds(env_id))


def _fuzz_actions():
    tagged = st.builds(lambda tag, body: f"<{tag}>{body}</{tag}>", st.sampled_from(TAGS), st.text(max_size=30))
    choice = st.builds(lambda body: f"<CHOICE>: {body}", st.text(max_size=30))
    return st.one_of(st.text(max_size=200), tagged, choice)


@pytest.mark.parametrize("fuzz_env_id", ENV_IDS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=_fuzz_actions())
def test_random_text_never_crashes_and_bad_text_changes_nothing(fuzz_env_id, action):
    env = _fuzz_env(fuzz_env_id)
    env.reset(seed=5, options={"config_id": 1})
    base = env.unwrapped
    before = base.game_state_digest()
    obs, reward, terminated, truncated, info = env.step(action)
    assert isinstance(obs, str)
    if not info["valid_action"]:
        assert obs.startswith("Invalid action:")
        assert reward == 0.0 and not terminated and not truncated
        assert base.game_state_digest() == before
        assert info["turn"] == 0 and info["format_errors"] == 1


_FUZZ_ENVS: dict[str, gym.Env] = {}


def _fuzz_env(env_id: str) -> gym.Env:
    if env_id not in _FUZZ_ENVS:
        _FUZZ_ENVS[env_id] = gym.make(env_id).unwrapped
    return _FUZZ_ENVS[env_id]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_batches_text_observations(env_id, mode):
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode)
    try:
        obs, info = envs.reset(seed=10)
        single = [gym.make(env_id).reset(seed=10 + i)[0] for i in range(2)]
        assert isinstance(obs, tuple) and list(obs) == single
        obs, reward, terminated, truncated, info = envs.step(("???", "???"))
        assert all(o.startswith("Invalid action") for o in obs)
        assert reward.shape == (2,) and not terminated.any() and list(info["valid_action"]) == [False, False]
    finally:
        envs.close(terminate=True)  # a plain close() after a worker's error waits forever


def _leaf_kinds(info: dict, prefix: str, out: dict[str, set[str]]) -> None:
    """Gymnasium's vector envs batch each info leaf into an array typed by the first env's
    value (numeric types) or an object array (anything else); record that kind per leaf."""
    for key, value in info.items():
        if isinstance(value, dict):
            _leaf_kinds(value, f"{prefix}{key}.", out)
        elif type(value) in (int, float, bool) or isinstance(value, np.number):
            out[prefix + key].add(type(value).__name__)
        else:
            out[prefix + key].add("object")


def test_info_leaves_keep_one_type_so_vector_envs_batch_them(env_id):
    """A leaf that is a number in one env and None (or a bool, or text) in another at the same
    step breaks or silently corrupts gymnasium's batched ``infos``: every leaf keeps one kind."""
    env = gym.make(env_id)
    kinds: dict[str, set[str]] = defaultdict(set)
    for config_id in (0, 5):
        for kind in ("random", "oracle"):
            agent = make_agent(kind, env_id)
            agent.reset(seed=config_id)
            obs, info = env.reset(seed=config_id, options={"config_id": config_id})
            _leaf_kinds(info, "", kinds)
            done = False
            while not done:
                obs, _, term, trunc, info = env.step(agent.act(obs, public_info(info)))
                _leaf_kinds(info, "", kinds)
                done = term or trunc
    mixed = {k: v for k, v in kinds.items() if len(v) > 1}
    assert not mixed, f"info leaves with several kinds: {mixed}"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_ends_and_autoresets(env_id, mode):
    """Episodes end inside the vector env (format errors here) and reset on the next step
    (gymnasium's default next-step autoreset: that step's actions are ignored)."""
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode)
    try:
        envs.reset(seed=3)
        for _ in range(gym.make(env_id).unwrapped.max_format_errors):
            obs, reward, terminated, truncated, info = envs.step(("???", "???"))
        assert terminated.all() and list(info["outcome"]) == ["format_error"] * 2
        assert info["score"].dtype == np.float64 and list(info["score"]) == [0.0, 0.0]
        obs, reward, terminated, truncated, info = envs.step(("???", "???"))
        assert list(info["turn"]) == [0, 0] and list(info["format_errors"]) == [0, 0]
        assert all(o in envs.single_observation_space and not o.startswith("Invalid") for o in obs)
    finally:
        envs.close(terminate=True)  # a plain close() after a worker's error waits forever
