"""Episodes lost in kill, corruption and concurrency trials, and the agent's cost per request.

Run: ``python benchmarks/log_durability.py [--kills K] [--episodes N]``. Prints, per trial,
episodes wanted, kept and lost (must be 0) and duplicated; then requests/s and CPU ms per
request of :class:`OpenAIChatAgent` against a local scripted endpoint (no latency) beside a
bare ``http.client`` loop over the same keep-alive connection, in the same run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import gymnasium as gym  # noqa: E402
from fake_endpoint import FakeEndpoint  # noqa: E402

from mtp_gym.agents.llm.openai_agent import OpenAIChatAgent  # noqa: E402
from mtp_gym.eval.harness import benchmark_subset  # noqa: E402
from mtp_gym.eval.log import read_episodes  # noqa: E402

WG = "MTP/WordGuess-v0"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}


def eval_args(out: Path, split: int, workers: int, executor: str) -> list[str]:
    return [
        sys.executable, "-m", "mtp_gym.cli", "eval", "--env", WG, "--agent", "py:harness_agents:SlowAgent",
        "--agent-kwargs", json.dumps({"env": WG, "delay": 0.002}), "--split", str(split), "--workers", str(workers),
        "--executor", executor, "--out", str(out), "--no-report", "--no-progress",
    ]  # fmt: skip


def count(log: Path, split: int) -> tuple[int, int, int]:
    """(kept, lost, duplicated) of the wanted configurations."""
    ids = [r["config_id"] for r in read_episodes(log)[0]]
    wanted = set(benchmark_subset(gym.make(WG), split))
    return len(set(ids) & wanted), len(wanted - set(ids)), len(ids) - len(set(ids))


def kill_trial(tmp: Path, kills: int, split: int, rng: random.Random) -> None:
    out = tmp / "kill"
    log = out / "py_harness_agents_SlowAgent" / "episodes.jsonl"
    for k in range(kills):
        proc = subprocess.Popen(eval_args(out, split, 4, "process" if k % 2 else "thread"), env=ENV)
        time.sleep(rng.uniform(0.8, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    subprocess.run(eval_args(out, split, 4, "thread"), env=ENV, check=True)
    kept, lost, dup = count(log, split)
    print(f"kill -9 x{kills} then resume     wanted {split:4d}  kept {kept:4d}  lost {lost}  duplicated {dup}")


def corruption_trial(tmp: Path, split: int, rng: random.Random) -> None:
    out = tmp / "corrupt"
    log = out / "py_harness_agents_SlowAgent" / "episodes.jsonl"
    subprocess.run(eval_args(out, split, 2, "thread"), env=ENV, check=True)
    lines = log.read_bytes().splitlines(keepends=True)
    junk = [b"garbage\n", b"\n", b"{}\n", b"\xff\xfe\n", b'{"env_id": 1}\n']
    for bad in junk * 4:
        lines.insert(rng.randrange(len(lines) + 1), bad)
    log.write_bytes(b"".join(lines) + b'{"agent": "py:harness_agents:SlowAgent", "env_')
    subprocess.run(eval_args(out, split, 2, "thread"), env=ENV, check=True, capture_output=True)
    kept, lost, dup = count(log, split)
    print(f"20 bad lines + a cut last line  wanted {split:4d}  kept {kept:4d}  lost {lost}  duplicated {dup}")


def concurrency_trial(tmp: Path, split: int) -> None:
    out = tmp / "concurrent"
    log = out / "py_harness_agents_SlowAgent" / "episodes.jsonl"
    runs = [subprocess.Popen(eval_args(out, split, 2, "thread"), env=ENV, stderr=subprocess.PIPE) for _ in range(3)]
    codes = [p.wait() for p in runs]
    subprocess.run(eval_args(out, split, 2, "thread"), env=ENV, check=True)  # whoever was refused resumes
    kept, lost, dup = count(log, split)
    refused = sum(c != 0 for c in codes)
    print(f"3 runs at once ({refused} refused)     wanted {split:4d}  kept {kept:4d}  lost {lost}  duplicated {dup}")


def request_cost(n: int) -> None:
    with FakeEndpoint(max_requests=10 * n) as ep:
        agent = OpenAIChatAgent("m", base_url=ep.url)
        conn = http.client.HTTPConnection("127.0.0.1", int(ep.url.split(":")[2].split("/")[0]))
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        results = {}
        for label in ("bare", "agent", "bare", "agent"):  # interleaved; the second of each counts
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(n):
                if label == "agent":
                    agent.reset(seed=0)
                    agent.act("hi", {})
                else:
                    conn.request(
                        "POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"}
                    )
                    resp = conn.getresponse()
                    json.loads(resp.read())
            results[label] = (n / (time.perf_counter() - wall), 1000 * (time.process_time() - cpu) / n)
    (b_rps, b_cpu), (a_rps, a_cpu) = results["bare"], results["agent"]
    print(
        f"requests (local endpoint, no latency, server in-process): agent {a_rps:,.0f} req/s, {a_cpu:.2f} CPU ms/req; "
        f"bare http.client {b_rps:,.0f} req/s, {b_cpu:.2f} CPU ms/req; agent/bare {a_rps / b_rps:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=6)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        kill_trial(Path(tmp), args.kills, args.episodes, rng)
        corruption_trial(Path(tmp), args.episodes, rng)
        concurrency_trial(Path(tmp), args.episodes)
    request_cost(args.requests)


if __name__ == "__main__":
    main()
