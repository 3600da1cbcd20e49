"""mtp_gym.make_vec: the batches of gym.make_vec(..., "sync"), info merged column by column."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.spaces import Text
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers import OrderEnforcing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mtp_gym
from mtp_gym import vector
from mtp_gym.vector import TextSyncVectorEnv, batch_infos


def same(a: Any, b: Any, where: str = "info") -> None:
    """Equal batches: the same keys in the same order, arrays of the same dtype, shape and items."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{where}: {list(a)} != {list(b)}"
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a!r} != {b!r}"
        if a.dtype == object:
            for x, y in zip(a, b):
                same(x, y, where)
        else:
            assert np.array_equal(a, b), f"{where}: {a!r} != {b!r}"
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), f"{where}: {a!r} != {b!r}"
        for x, y in zip(a, b):
            same(x, y, where)
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


def gymnasium_merge(infos: list[tuple[int, dict[str, Any]]], n: int) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    host = SimpleNamespace(num_envs=n)
    host._add_info = lambda *args: SyncVectorEnv._add_info(host, *args)  # type: ignore[arg-type]
    for index, info in infos:
        merged = host._add_info(merged, info, index)
    return merged


PLAYS = {
    "MTP/WordGuess-v0": lambda env, k: f"<attempt>{env.unwrapped.vocabulary[k % 40]}</attempt>",
    "MTP/TwentyQuestions-v0": lambda env, k: ["<question>Is it alive?</question>", "no tags", "<guess>cat</guess>"][
        k % 3
    ],
    "MTP/HiddenNumber-v0": lambda env, k: [f"<query>{k % 7}</query>", f"<answer>{k % 9}</answer>", "?"][k % 3],
    "MTP/TuringMachine-v0": lambda env, k: ["<code>123</code>", "<skip/>", "<verifier>A</verifier>"][k % 3],
}


@pytest.mark.parametrize("n", [1, 5])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
@pytest.mark.parametrize("env_id", sorted(PLAYS))
def test_the_batches_are_gymnasiums(env_id, mode, n, monkeypatch):
    """Every step and reset of mtp_gym.make_vec (one env or five) returns what
    gym.make_vec(..., "sync") returns: observations, rewards, ends, and info key for key, dtype
    for dtype, mask for mask, with episodes ending at different steps (autoreset both ways, or
    the ended envs reset by a ``reset_mask`` when it is disabled); with next-step autoreset
    every batch is built column by column (none falls back to Gymnasium's merge)."""
    batches: list[bool] = []

    def counted(infos: list, n: int) -> dict | None:
        batch = batch_infos(infos, n)
        batches.append(batch is not None)
        return batch

    monkeypatch.setattr(vector, "batch_infos", counted)
    ours = mtp_gym.make_vec(env_id, n, vector_kwargs={"autoreset_mode": mode}, max_turns=4)
    theirs = gym.make_vec(env_id, n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, max_turns=4)
    assert isinstance(ours, TextSyncVectorEnv) and ours._text_observations  # steps in its own loop
    same(ours.reset(seed=3), theirs.reset(seed=3), "reset")
    play = PLAYS[env_id]
    ends = 0
    for step in range(30):
        actions = tuple(play(env, step * n + i) for i, env in enumerate(ours.envs))
        a, b = ours.step(actions), theirs.step(actions)
        assert a[0] == b[0]
        for x, y in zip(a[1:4], b[1:4]):
            same(x, y, f"step {step}")
        same(a[4], b[4], f"step {step} info")
        ends += int(a[2].sum() + a[3].sum())
        ended = a[2] | a[3]
        if mode == AutoresetMode.DISABLED and ended.any():
            mask = {"reset_mask": ended}
            same(ours.reset(options=dict(mask)), theirs.reset(options=dict(mask)), f"reset after {step}")
            assert (a[2] | a[3] == ended).all()  # a batch returned is not changed by the reset
    assert ends >= n  # the envs did end and reset on the way
    assert batches and (all(batches) if mode == AutoresetMode.NEXT_STEP else any(batches))
    ours.close()
    theirs.close()


class Only(gym.Wrapper):
    """The env with only ``keys`` of its ``info``: what ``info_keys`` should batch."""

    def __init__(self, env: gym.Env, keys: tuple[str, ...]) -> None:
        super().__init__(env)
        self.keys = keys

    def reset(self, **kwargs: Any) -> tuple:
        observation, info = self.env.reset(**kwargs)
        return observation, {key: info[key] for key in self.keys}

    def step(self, action: Any) -> tuple:
        *result, info = self.env.step(action)
        return (*result, {key: info[key] for key in self.keys})


@pytest.mark.parametrize("n", [1, 4])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("keys", [(), ("score", "feedback", "outcome"), ("hidden", "turn")])
def test_info_keys_batches_only_those_keys(keys, mode, n):
    """``info_keys``: the batch Gymnasium makes of envs whose ``info`` holds only those keys
    (``final_info`` of a same-step autoreset alike, a nested dict alike), the observations,
    rewards and ends unchanged; with next-step autoreset every step's batch is read straight
    from the envs' infos."""
    kwargs = {"vector_kwargs": {"autoreset_mode": mode}, "max_turns": 3}
    ours = mtp_gym.make_vec("MTP/WordGuess-v0", n, info_keys=keys, **kwargs)
    direct: list[bool] = []
    every_key = ours._batch_every_key
    ours._batch_every_key = lambda pending: direct.append((batch := every_key(pending)) is not None) or batch
    theirs = gym.make_vec("MTP/WordGuess-v0", n, "sync", wrappers=[lambda env: Only(env, keys)], **kwargs)
    same(ours.reset(seed=5), theirs.reset(seed=5), "reset")
    ends = finals = 0
    for step in range(12):
        actions = tuple(PLAYS["MTP/WordGuess-v0"](env, step * n + i) for i, env in enumerate(ours.envs))
        a, b = ours.step(actions), theirs.step(actions)
        assert a[0] == b[0]
        for x, y in zip(a[1:], b[1:]):
            same(x, y, f"step {step}")
        ends += int(a[2].sum() + a[3].sum())
        finals += "final_info" in a[4]
        assert set(a[4]) - {"final_obs", "_final_obs", "final_info", "_final_info"} == {
            name for key in keys for name in (key, "_" + key)
        }
    assert ends >= n and (finals > 0) == (mode == AutoresetMode.SAME_STEP)
    assert not keys or (direct and all(direct) if mode == AutoresetMode.NEXT_STEP else any(direct))


def test_info_keys_names_a_bad_value_and_warns_of_a_key_no_env_returns():
    with pytest.raises(TypeError, match="info_keys"):
        mtp_gym.make_vec("MTP/WordGuess-v0", 2, info_keys="score")
    with pytest.raises(TypeError, match="info_keys"):
        mtp_gym.make_vec("MTP/WordGuess-v0", 2, info_keys=[1])
    envs = mtp_gym.make_vec("MTP/WordGuess-v0", 2, info_keys=["score", "scor", "score"])
    assert envs.info_keys == ("score", "scor")
    with pytest.warns(UserWarning, match=r"info_keys: \['scor'\] not in the envs' info at reset"):
        _, info = envs.reset(seed=0)
    assert list(info) == ["score", "_score"]


SCALARS = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.tuples(st.integers(0, 3)),
    st.integers(2**62, 2**70),
    st.lists(st.integers(0, 3), max_size=2),
    st.sampled_from([np.bool_(True), np.uint64(2**63), np.array(3), np.complex128(1j)]),
    st.sampled_from([np.float32(1.5), np.int64(7), np.zeros(2), np.ones(3, dtype=np.int8), np.zeros((1, 2))]),
)
INFOS = st.dictionaries(
    st.sampled_from(["turn", "score", "outcome", "hidden", "final_obs"]),
    st.one_of(SCALARS, st.dictionaries(st.sampled_from(["a", "b"]), SCALARS, max_size=2)),
    max_size=4,
)


@pytest.mark.filterwarnings("ignore:Casting complex values to real")  # Gymnasium's merge, a complex among floats
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 4), data=st.data())
def test_batch_infos_merges_as_gymnasium_or_defers(n, data):
    """Any infos of any envs (keys missing in some, types mixed, nested dicts, arrays of several
    shapes): the column batch is Gymnasium's merge, or None (then the env uses that merge)."""
    envs = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    infos = [(i, data.draw(INFOS)) for i in envs]
    try:
        expected = gymnasium_merge(infos, n)
    except (TypeError, ValueError, AttributeError, OverflowError):
        expected = None
    got = batch_infos(infos, n)
    if got is not None:
        assert expected is not None, infos
        same(got, expected)


def test_steps_whose_infos_differ_take_gymnasiums_merge():
    """One env with an extra key, another with an int where the rest have a float: the batch is
    still Gymnasium's (the extra key masked, the int cast the way Gymnasium casts)."""

    class Odd(gym.Env):
        observation_space = gym.spaces.Discrete(2)
        action_space = gym.spaces.Discrete(2)

        def __init__(self, index: int) -> None:
            self.index = index

        def reset(self, *, seed=None, options=None):
            return 0, {}

        def step(self, action):
            info: dict[str, Any] = {"score": 1 if self.index == 2 else 0.5, "hidden": {"secret": "x"}}
            if self.index == 1:
                info["extra"] = np.arange(3)
            return 0, 0.0, False, False, info

    fns = [lambda i=i: Odd(i) for i in range(4)]
    ours, theirs = TextSyncVectorEnv(fns), SyncVectorEnv(fns)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    a, b = ours.step([0] * 4)[4], theirs.step([0] * 4)[4]
    same(a, b)
    assert list(a["_extra"]) == [False, True, False, False] and a["score"].dtype == np.float64


def test_make_vec_names_a_bad_argument_and_passes_the_rest_on():
    with pytest.raises(ValueError, match="num_envs"):
        mtp_gym.make_vec("MTP/WordGuess-v0", 0)
    with pytest.raises(gym.error.Error):
        mtp_gym.make_vec("MTP/NoSuchPuzzle-v0", 2)
    seen = []

    def tag(env: gym.Env) -> gym.Env:
        seen.append(env)
        return env

    envs = mtp_gym.make_vec("MTP/WordGuess-v0", 3, wrappers=[tag], max_turns=5)
    assert len(seen) == 3 and envs.spec.kwargs["max_turns"] == 5 and envs.spec.kwargs["num_envs"] == 3
    _, info = envs.reset(seed=0)
    assert (info["max_turns"] == 5).all() and info["max_turns"].dtype == np.int64


class Counting(gym.Env):
    """A text env whose reward is its step count: it ends every third step, and truncates on
    the reply ``stop``."""

    observation_space = action_space = Text(16)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple:
        super().reset(seed=seed)
        self.t = 0
        return "0", {"turn": 0, "score": 0.0, "feedback": {"said": ""}}

    def step(self, action: str) -> tuple:
        self.t += 1
        info = {"turn": self.t, "score": float(self.t), "feedback": {"said": action}}
        return str(self.t), float(self.t), self.t % 3 == 0, action == "stop", info


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("keys", [None, ("score", "feedback"), ()])
def test_a_batch_returned_stays_as_it_was_and_a_wrong_count_of_actions_is_named(keys, mode, n):
    """The arrays a step returns (rewards, ends, info columns and masks, nested ones too) are the
    caller's: later steps, autoresets and resets leave them as they were; a step with more or
    fewer actions than envs raises a ValueError that names ``actions``, and the envs play on."""
    envs = TextSyncVectorEnv([Counting] * n, info_keys=keys, autoreset_mode=mode)
    envs.reset(seed=0)
    kept = []
    for step in range(9):
        result = envs.step(("go",) * (n - 1) + ("stop" if step == 4 else f"s{step}",))
        kept.append((result, copy.deepcopy(result)))
        if step == 6:
            envs.reset(options={"reset_mask": np.ones(n, dtype=np.bool_)})
    rewards = {float(r) for result, _ in kept for r in result[1]}
    assert len(rewards) >= 3 and any(result[3].any() for result, _ in kept)  # ends of both kinds on the way
    for result, copied in kept:
        same(result[1:], copied[1:])
    for wrong in [("go",) * (n - 1), ("go",) * (n + 1)]:
        with pytest.raises(ValueError, match="actions"):
            envs.step(wrong)
    assert envs.step(["go"] * n)[0] and envs.step(iter(["go"] * n))[0]  # a list or any iterable
    envs.close()


class Doubled(gym.RewardWrapper):
    def reward(self, reward: float) -> float:
        return 2 * reward


class BadFirstObservation(Counting):
    """Its first step's observation is outside its space (for the env checker to warn of)."""

    def step(self, action: str) -> tuple:
        observation, *rest = super().step(action)
        return (7 if self.t == 1 else observation), *rest


def test_steps_skip_only_gymnasiums_pass_through_wrappers(monkeypatch):
    """Once ``OrderEnforcing`` has seen a reset and ``PassiveEnvChecker`` its two checked steps
    (both then only pass a step on), a step calls the base env's own ``step``; before that they
    answer as in Gymnasium (a step before any reset raises ``ResetNeeded``, the first step is
    checked), and any other wrapper sees every step: the batches stay Gymnasium's."""
    spec = EnvSpec("Counting-v0", entry_point=Counting)
    makers = [lambda: Doubled(gym.make(spec)), lambda: gym.make(spec)]
    ours, theirs = TextSyncVectorEnv(makers), SyncVectorEnv(makers)
    with pytest.raises(gym.error.ResetNeeded):
        ours.step(("a", "b"))
    calls: list[int] = []
    original = OrderEnforcing.step

    def counted(self: OrderEnforcing, action: Any) -> tuple:
        calls.append(id(self))
        return original(self, action)

    monkeypatch.setattr(OrderEnforcing, "step", counted)
    same(ours.reset(seed=0), theirs.reset(seed=0))
    calls.clear()
    for step in range(8):
        a, b = ours.step(("go", "go")), theirs.step(("go", "go"))
        assert a[0] == b[0]
        same(a[1:], b[1:], f"step {step}")
    doubled, plain = id(ours.envs[0].env), id(ours.envs[1])  # each env's OrderEnforcing
    checked = 2 if hasattr(ours.envs[1].env, "checked_data_reuse") else 1  # Gymnasium 1.4 checks two steps
    assert calls.count(plain) == checked  # then the base env's step
    assert calls.count(doubled) == calls.count(id(theirs.envs[1])) == 6  # 8 steps, 2 of them resets
    assert ours._steps is not None  # each env's step found once, not per step
    bad = TextSyncVectorEnv([lambda: gym.make(EnvSpec("Bad-v0", entry_point=BadFirstObservation))])
    bad.reset(seed=0)
    with pytest.warns(UserWarning, match="step.*observation space"):
        bad.step(("go",))
