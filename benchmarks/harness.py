"""Harness throughput: oracle episodes/s through ``mtp-gym eval``'s machinery vs the bare env loop,
and tokens/s of real-model runs (SmolLM2-135M via transformers, one episode at a time and four
at once, whose calls decode in shared batches; and via a llama.cpp server).

Run: ``python benchmarks/harness.py [--episodes N] [--no-models]``. Per env: the bare loop
(``env.reset``/``agent.act``/``env.step``, nothing else) and the harness (``run_eval`` into a
fresh directory: JSONL log with transcripts, progress accounting, one worker) play the same
configurations with the oracle, in the same run; the ratio is harness time / bare time and the
overhead is the difference per episode.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import gymnasium as gym

import mtp_gym
from mtp_gym.agents import agent_kinds, make_agent
from mtp_gym.episode import play_to_end
from mtp_gym.eval.harness import AgentConfig, benchmark_subset, run_eval


def bare_loop(env_id: str, config_ids: list[int]) -> float:
    """Seconds for the oracle over ``config_ids`` with nothing but the env and the agent."""
    env, agent = gym.make(env_id), make_agent("oracle", env_id)
    start = time.perf_counter()
    for cid in config_ids:
        play_to_end(env, agent, config_id=cid)
    return time.perf_counter() - start


def harness(env_id: str, split: str, out: Path, workers: int = 1) -> float:
    start = time.perf_counter()
    run_eval([env_id], AgentConfig("oracle"), out, split=split, workers=workers, progress=False)
    return time.perf_counter() - start


def model_rates(env_ids: list[str], max_tokens: int) -> None:
    """tokens/s (prompt + completion, and completion alone) of one short episode per env."""
    from mtp_gym.agents.llm.models import smollm2_gguf

    gguf = smollm2_gguf()
    hf = {"max_new_tokens": max_tokens}
    # (label, spec, kwargs, workers): concurrent hf episodes decode in shared batches
    runs = [("hf:smollm2", "hf:smollm2", hf, 1), ("hf:smollm2 x4", "hf:smollm2", hf, 4)]
    server = None
    try:
        import llama_cpp.server  # noqa: F401

        port = 8765
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--port",
                str(port),
                "--n_ctx",
                "8192",
                "--verbose",
                "False",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        server_kwargs = {"base_url": f"http://127.0.0.1:{port}/v1", "max_tokens": max_tokens, "temperature": 0.0}
        runs.append(("llama.cpp server", "openai:smollm2", server_kwargs, 1))
    except ImportError:
        print("llama-cpp-python not installed: no server figures")
    try:
        for label, spec, kwargs, workers in runs:
            t0 = time.perf_counter()
            make_agent(spec, env_ids[0], **kwargs)  # model load, not timed below
            load = time.perf_counter() - t0
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                log = run_eval(
                    env_ids,
                    AgentConfig(spec, kwargs),
                    tmp,
                    split="1",
                    env_kwargs={e: {"max_turns": 2, "max_format_errors": 2} for e in env_ids},
                    workers=workers,
                    progress=False,
                )
                secs = time.perf_counter() - start
                p = sum(r["prompt_tokens"] for r in log.records)
                c = sum(r["completion_tokens"] for r in log.records)
            print(
                f"{label:16s} load {load:6.1f} s | {len(log.records)} episodes in {secs:6.1f} s | "
                f"{(p + c) / secs:8.0f} tokens/s (prompt+completion) | {c / secs:6.1f} completion tokens/s"
            )
    finally:
        if server is not None:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100, help="oracle episodes per env (spread over the split)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats per env (best taken)")
    parser.add_argument("--max-tokens", type=int, default=24, help="reply cap for the model runs")
    parser.add_argument("--no-models", action="store_true", help="skip the real-model tokens/s")
    args = parser.parse_args()
    env_ids = [e for e in sorted(mtp_gym.ENV_IDS) if "oracle" in agent_kinds(e)]
    print(
        f"{'env':28s} {'episodes':>8s} {'bare ep/s':>10s} {'harness ep/s':>12s} {'ratio':>6s} {'overhead ms/ep':>15s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for env_id in env_ids:
            ids = benchmark_subset(gym.make(env_id), args.episodes)
            # Interleaved repeats, best of each: the first pass warms caches (word lists, oracle
            # tables) for both, and the minimum filters out other processes' load.
            bare, full = [], []
            for rep in range(args.repeats):
                bare.append(bare_loop(env_id, ids))
                full.append(harness(env_id, str(args.episodes), Path(tmp) / f"{env_id.replace('/', '_')}{rep}"))
            bare, full = min(bare), min(full)
            n = len(ids)
            print(
                f"{env_id:28s} {n:8d} {n / bare:10.1f} {n / full:12.1f} {full / bare:6.2f} {1000 * (full - bare) / n:15.2f}"
            )
        pool = harness(env_ids[0], str(args.episodes), Path(tmp) / "pool", workers=2)
        print(f"{env_ids[0]} with --workers 2 (process pool): {args.episodes / pool:.1f} ep/s")
    if not args.no_models:
        model_rates(env_ids, args.max_tokens)


if __name__ == "__main__":
    main()
