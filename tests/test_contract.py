"""The common env contract (README, "The env contract"), checked on every registered id."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import ENV_IDS, agent_kinds, play_random
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mtp_gym.registration
from mtp_gym.agents import make_agent
from mtp_gym.core import OUTCOMES
from mtp_gym.episode import play

INFO_KEYS = {
    "turn",
    "max_turns",
    "feedback",
    "hidden",
    "valid_action",
    "format_errors",
    "outcome",
    "score",
    "config_id",
}
GOLDEN = json.loads((Path(__file__).parent / "golden_hashes.json").read_text())
TAGS = ("attempt", "question", "query", "guess", "final_answer", "answer", "CHOICE")


def config_hash(env: gym.Env, config_ids) -> str:
    digest = hashlib.sha256()
    for i in config_ids:
        obs, info = env.reset(options={"config_id": i})
        digest.update(obs.encode())
        digest.update(json.dumps(dict(info["hidden"]), sort_keys=True, default=str).encode())
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
    assert a.reset(options={"config_id": 3})[0] == b.reset(options={"config_id": 3})[0]
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


# ------------------------------------------------------------------ leaks of the target
# Each env states what would reveal its target before the end (mostly the sentence the env
# itself uses to reveal it at the end), and the check looks for exactly that: whole words,
# any case, in every observation before the last. ``legit`` removes what the rules may show.
def _query_game_leak(hidden: dict) -> list[str]:
    return [f"answer was {hidden['target']}", f"answer is {hidden['target']}"]


def _circuit_tables(hidden: dict) -> list[str]:
    answer, labels = hidden["answer"], hidden["labels"]
    size = len(answer) // len(labels)
    return [answer] + [f"{label} = {answer[i * size : (i + 1) * size]}" for i, label in enumerate(labels)]


def _favourite(hidden: dict) -> str:
    unseen = hidden["unseen_utilities"]
    return max(unseen, key=unseen.get)


WORD_CHAIN_HIDDEN = {"opponent", "opponent_plan", "agent_starts"}

#: env id -> (what would reveal the target, texts(hidden) that would reveal it, legit(obs, hidden)).
LEAKS: dict[str, tuple[str, Any, Any]] = {
    "MTP/WordGuess-v0": (
        "the secret word announced ('secret word is X') or named anywhere outside the vocabulary list",
        lambda h: [f"secret word is {h['secret']}", h["secret"]],
        lambda obs, h: obs.replace(", ".join(h["vocabulary"]), ""),
    ),
    "MTP/MovieRec-v0": (
        "the user's favourite unseen movie announced ('favourite was X') or a weight stated ('Pace: 0.4')",
        lambda h: (
            [f"favourite was {_favourite(h)}", f"favourite is {_favourite(h)}"]
            + [f"{name}: {w}" for name, w in h["weights"].items()]
        ),
        None,
    ),
    "MTP/CircuitDecoding-v0": (
        "the truth tables, whole ('0101...') or per circuit ('A = 0101')",
        _circuit_tables,
        None,
    ),
    "MTP/TwentyQuestions-v0": (
        "the words still consistent with the answers listed in a reply (the agent must track them)",
        lambda h: [", ".join(h["consistent"])] if len(h["consistent"]) > 1 else [],
        None,
    ),
    "MTP/WordChain-v0": (
        f"no hidden target: `hidden` holds only {sorted(WORD_CHAIN_HIDDEN)}; a planning opponent's plan in a reply",
        lambda h: [] if h["opponent_plan"] is None else [str(h["opponent_plan"])],
        None,
    ),
    "MTP/TuringMachine-v0": (
        "the code announced ('The answer is 551')",
        lambda h: [f"answer is {h['answer']}", f"code is {h['answer']}"],
        None,
    ),
}
LEAKS.update(
    {
        env_id: ("the answer announced ('The answer was X')", _query_game_leak, None)
        for env_id in mtp_gym.registration.GAME_IDS
    }
)


def find_leaks(env_id: str, steps: list[tuple[str, dict]]) -> list[str]:
    """What reveals the target in an observation before the last (``steps``: (obs, info))."""
    _, texts, legit = LEAKS[env_id]
    found = []
    for i, (obs, info) in enumerate(steps[:-1]):
        hidden = info["hidden"]
        if env_id == "MTP/WordChain-v0" and set(hidden) != WORD_CHAIN_HIDDEN:
            found.append(f"hidden keys {sorted(hidden)}: a new secret needs its leak rule here")
        seen = legit(obs, hidden) if legit and i == 0 else obs
        if env_id == "MTP/TwentyQuestions-v0" and i == 0:
            continue  # the rules list the whole lexicon, which is every word still consistent
        for text in texts(hidden):
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(text)}(?![A-Za-z0-9])", seen, re.IGNORECASE):
                found.append(f"step {i}: {text!r}")
    return found


def test_every_env_states_what_would_leak():
    assert sorted(LEAKS) == ENV_IDS


@pytest.mark.parametrize("config_id", [0, 7])
def test_target_not_revealed_before_the_end(env_id, config_id):
    steps = list(play_random(gym.make(env_id), env_id, config_id))
    assert find_leaks(env_id, steps) == []


def test_the_leak_check_finds_a_planted_leak(env_id):
    """The revealing text appended to the first reply (or a new secret in ``hidden``) is found."""
    steps = list(play_random(gym.make(env_id), env_id, 0))
    steps.append(steps[-1])  # a last step, so the first reply counts as "before the end"
    obs, info = steps[1]
    texts = LEAKS[env_id][1](info["hidden"])
    if texts:
        steps[1] = (f"{obs}\n{texts[0]}", info)
    else:
        steps[1] = (obs, {**info, "hidden": {**info["hidden"], "secret": "x"}})
    assert find_leaks(env_id, steps)


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
    assert isinstance(obs, str) and base.observation_space.contains(obs)
    if not info["valid_action"]:
        assert obs.startswith("Invalid action:")
        assert reward == 0.0 and not terminated and not truncated
        assert base.game_state_digest() == before
        assert info["turn"] == 0 and info["format_errors"] == 1


def test_echoes_of_long_or_foreign_replies_stay_in_the_observation_space(env_id):
    """Re-prompts and replies quote the agent's text: cut and made ASCII, never outside the space."""
    base = gym.make(env_id).unwrapped
    base.reset(options={"config_id": 0})
    junk = "ü" * 5000 + "x" * 20000
    tags = ["attempt", "query", "guess", "question", "final_answer", "answer", "query_odd", "query_degree"]
    replies = [f"<{t}>{junk}</{t}>" for t in tags]
    replies += [f"<question>Would you prefer watching {junk} over ü?</question>", f"<CHOICE>: {junk}", f"'{junk}'"]
    for text in ["é" * 9000, "naïve ✓ " * 2000, *replies]:
        obs, *_ = base.step(text)
        assert base.observation_space.contains(obs), (text[:20], len(obs), obs[:200])
        if base._outcome is not None:
            base.reset(options={"config_id": 0})


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
            for step in play(env, make_agent(kind, env_id), config_id=config_id, seed=config_id):
                _leaf_kinds(step.info, "", kinds)
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


def test_hidden_info_is_a_read_only_mapping_fixed_within_an_episode(env_id):
    """``info["hidden"]`` is a read-only mapping (a :class:`FrozenInfo`: one object per env in a
    vector env); a puzzle whose secret is fixed for the episode shares one between its steps,
    and the next reset brings the new configuration's."""
    from collections.abc import Mapping

    from mtp_gym.core import FrozenInfo

    env = gym.make(env_id)
    infos = [step.info for step in play(env, make_agent("random", env_id), config_id=0)]
    for info in infos:
        assert isinstance(info["hidden"], FrozenInfo) and isinstance(info["hidden"], Mapping)
        with pytest.raises(TypeError):
            info["hidden"]["x"] = 1
    fixed = env.unwrapped.hidden_fixed
    if fixed:
        assert all(info["hidden"] is infos[0]["hidden"] for info in infos)
    for key in ("game",):  # the per-episode public keys of query games
        if key in infos[0]:
            assert all(isinstance(i[key], FrozenInfo) and i[key] is infos[0][key] for i in infos)
    _, other = env.reset(options={"config_id": 1})
    assert other["hidden"] == dict(env.unwrapped.build_info({}, True)["hidden"])
    if fixed:
        assert other["hidden"] is not infos[0]["hidden"]
        assert dict(other["hidden"]) == dict(env.unwrapped._hidden())  # the new configuration's


def test_vector_env_keeps_hidden_info_one_object_per_env(env_id):
    """gymnasium's vector env stores ``hidden`` as an object array (it does not batch every
    nested key, the cost of a vector step), each entry the sub-env's own."""
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync")
    try:
        _, info = envs.reset(seed=4)
        _, _, _, _, info = envs.step(("???", "???"))
        assert info["hidden"].dtype == object and info["_hidden"].all()
        for i, sub in enumerate(envs.unwrapped.envs):
            assert info["hidden"][i] == sub.unwrapped.build_info({}, True)["hidden"]
        assert list(info["turn"]) == [0, 0] and info["feedback"]["error"].shape == (2,)  # per-step keys batch
    finally:
        envs.close()


INFO_SECRET_IDS = [e for e in ENV_IDS if e == "MTP/WordGuess-v0" or e in mtp_gym.registration.GAME_IDS]


@pytest.mark.parametrize("env_id", INFO_SECRET_IDS)
def test_info_secret_false_leaves_hidden_out_in_single_and_vector_envs(env_id):
    env = gym.make(env_id, info_secret=False)
    steps = list(play(env, make_agent("oracle", env_id), config_id=0))
    assert steps[-1].info["outcome"] == "success"
    assert all("hidden" not in step.info for step in steps)
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync", info_secret=False)
    try:
        _, info = envs.reset(seed=0)
        _, _, _, _, info = envs.step(("???", "???"))
        assert "hidden" not in info and "_hidden" not in info and list(info["valid_action"]) == [False, False]
    finally:
        envs.close()
    with pytest.raises(ValueError, match="info_secret"):
        gym.make(env_id, info_secret="no")
